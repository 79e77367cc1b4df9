package sqlstore

import (
	"encoding/hex"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Full-text search splits text into words the same way on every store, so
// that a search finds the same posts on SQLite (an FTS5 index fed by
// SearchText) and on PostgreSQL (a tsvector built by the SQL function
// folio_search_words, which mirrors SearchWords step by step):
//
//  1. HTML tags and comments (<...>) become spaces;
//  2. only the first MaxSearchChars characters of a field count;
//  3. letters are folded to lower case (U+0130 İ to "i̇" and the final
//     sigma ς to σ, as Unicode's full case mapping does);
//  4. a word is a run of letters (Unicode L*) and decimal digits (Nd);
//     everything else separates words;
//  5. a word is cut to its first MaxWordChars characters.
//
// A searched word matches a post when it begins one of the post's words
// (prefix matching: "gard" finds "garden", "arden" does not).

// MaxSearchChars bounds the characters of one field that are indexed.
const MaxSearchChars = 100000

// MaxWordChars bounds the characters of one indexed or searched word.
const MaxWordChars = 64

// SearchWords returns the words of s, in order, repeats included.
func SearchWords(s string) []string {
	var out []string
	eachSearchWord(s, func(w string) { out = append(out, w) })
	return out
}

// eachSearchWord calls yield with every word of s, in order, repeats
// included, in one pass over s: tags are skipped where they stand, and a
// word already in lower case is handed over as a piece of s, without a
// copy (indexing a post's text is the bulk of what a create costs).
func eachSearchWord(s string, yield func(w string)) {
	var (
		chars = 0 // characters of s seen, a tag counting as one (rule 2)
		tags  = strings.IndexByte(s, '<') >= 0
		start = -1    // where the current word begins in s, -1 between words
		end   = 0     // where its kept characters end (rule 5)
		n     = 0     // its characters kept
		buf   []byte  // the word folded, once it differs from s[start:end]
		fold  = false // buf holds the word
	)
	flush := func() {
		switch {
		case fold:
			yield(string(buf))
		case start >= 0:
			yield(s[start:end])
		}
		start, n, fold = -1, 0, false
	}
	for i := 0; i < len(s); {
		if chars == MaxSearchChars {
			break
		}
		chars++
		c := s[i]
		if c == '<' && tags {
			if j := strings.IndexByte(s[i+1:], '>'); j >= 0 {
				flush() // a tag separates words as the space it stands for
				i += j + 2
				continue
			}
			tags = false // no tag closes after here
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		at := i
		i += size
		var lower rune
		switch {
		case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			lower = r
		case 'A' <= r && r <= 'Z':
			lower = r + 'a' - 'A'
		case r < utf8.RuneSelf:
			flush()
			continue
		case r == 'İ':
			// Full case mapping: i followed by a combining dot, which is
			// not a word character.
			if start < 0 {
				start, end = at, at
			}
			if n < MaxWordChars {
				if !fold {
					buf, fold = append(buf[:0], s[start:end]...), true
				}
				buf = append(buf, 'i')
			}
			flush()
			continue
		case unicode.IsLetter(r) || unicode.Is(unicode.Nd, r):
			lower = unicode.ToLower(r)
			if lower == 'ς' {
				lower = 'σ'
			}
		default:
			flush()
			continue
		}
		if start < 0 {
			start, end = at, at
		}
		if n == MaxWordChars {
			continue
		}
		n++
		switch {
		case fold:
			buf = utf8.AppendRune(buf, lower)
		case lower != r:
			buf, fold = append(buf[:0], s[start:end]...), true
			buf = utf8.AppendRune(buf, lower)
		default:
			end = i
		}
	}
	flush()
}

// SearchText returns the distinct words of all the fields, space-separated:
// the text the SQLite FTS5 index holds for a post (it keeps no positions,
// so repeats would only cost time).
func SearchText(fields ...string) string {
	var b strings.Builder
	size := 0
	for _, f := range fields {
		size += len(f)
	}
	b.Grow(min(size/4, 1<<16))
	seen := make(map[string]struct{}, 64)
	for _, f := range fields {
		eachSearchWord(f, func(w string) {
			if _, ok := seen[w]; ok {
				return
			}
			seen[w] = struct{}{}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		})
	}
	return b.String()
}

// SearchMatch reports whether every one of words begins a word of text.
func SearchMatch(text string, words []string) bool {
	have := SearchWords(text)
	for _, w := range words {
		found := false
		for _, h := range have {
			if strings.HasPrefix(h, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// searchQuery is a search split as WordPress (4.4 and later) splits one:
// into words, "quoted phrases" and -excluded terms (docs/search.md).
type searchQuery struct {
	// words are the distinct words every one of which begins a word of a
	// matching post (those of its phrases included), in order.
	words []string
	// phrases are the quoted phrases of two words or more: each is in a
	// matching post as consecutive words, each beginning the word at its
	// place.
	phrases [][]string
	// exclude are the terms after a '-': a post that has every word of
	// one of them does not match.
	exclude [][]string
	// terms are the terms that are not excluded, in order, for ordering
	// by relevance (relevanceTier).
	terms []searchTerm
}

// plain reports whether the search is only words (no phrase, nothing
// excluded), which the full-text index answers alone.
func (sq searchQuery) plain() bool { return len(sq.phrases) == 0 && len(sq.exclude) == 0 }

// parseSearch splits a search: a term is a run of characters up to a
// space, tab, comma or plus, or everything between double quotes (a
// phrase; an unclosed quote runs to the end); a term that begins with '-'
// is excluded. Each term is then split into words as texts are
// (SearchWords): a term of one word is that word, a quoted term of
// several a phrase, an unquoted one ("well-known", "3.14") its words. A
// term without any word is ignored.
func parseSearch(s string) searchQuery {
	var sq searchQuery
	seen := map[string]bool{}
	add := func(ws []string) {
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				sq.words = append(sq.words, w)
			}
		}
	}
	for len(s) > 0 {
		if strings.ContainsRune(" \t,+\n\r", rune(s[0])) {
			s = s[1:]
			continue
		}
		negate := false
		if s[0] == '-' && len(s) > 1 {
			negate, s = true, s[1:]
		}
		var term string
		quoted := s[0] == '"'
		if quoted {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				term, s = s[1:], ""
			} else {
				term, s = s[1:1+end], s[2+end:]
			}
		} else {
			end := strings.IndexAny(s, " \t,+\n\r\"")
			if end < 0 {
				end = len(s)
			}
			term, s = s[:end], s[end:]
		}
		ws := SearchWords(term)
		switch {
		case len(ws) == 0:
		case negate:
			sq.exclude = append(sq.exclude, ws)
		case quoted && len(ws) > 1:
			sq.phrases = append(sq.phrases, ws)
			sq.terms = append(sq.terms, searchTerm{words: ws, phrase: true})
			add(ws)
		default:
			sq.terms = append(sq.terms, searchTerm{words: ws})
			add(ws)
		}
	}
	return sq
}

// SearchPhraseMatch reports whether phrase is in one of fields as
// consecutive words, each beginning the word at its place.
func SearchPhraseMatch(phrase []string, fields ...string) bool {
	for _, f := range fields {
		ws := SearchWords(f)
		for i := 0; i+len(phrase) <= len(ws); i++ {
			ok := true
			for j, p := range phrase {
				if !strings.HasPrefix(ws[i+j], p) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// SearchFieldsMatch reports whether every one of words begins a word of
// one of fields, each split on its own (as SearchText splits them).
func SearchFieldsMatch(words []string, fields ...string) bool {
	var have []string
	for _, f := range fields {
		have = append(have, SearchWords(f)...)
	}
	for _, w := range words {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// A store's full-text index may also hold, beside a post's words, marks
// of its type and status and of its password, so that it can count a
// search's matches among the posts a caller may see without reading them
// (SearchCounter). A mark begins with a character of Unicode's private
// use area, which FTS5 keeps in a word but SearchWords never does (it
// separates words), so no search word equals or begins a mark; the type
// and status are written in hexadecimal, which no tokenizer splits.
const (
	// SearchMarkKind begins the mark of a post's type and status.
	SearchMarkKind = "\ue000"
	// SearchMarkProtected is the mark of a post with a password.
	SearchMarkProtected = "\ue002"
)

// SearchKindMark returns the mark of posts of type typ in status.
func SearchKindMark(typ, status string) string {
	return SearchMarkKind + hex.EncodeToString([]byte(typ)) + "x" + hex.EncodeToString([]byte(status))
}

// SearchDocument returns what a store's full-text index holds for a
// post: SearchText of its title, excerpt and content, then the marks of
// its type and status and, when it has a password, of that.
func SearchDocument(title, excerpt, content, typ, status, password string) string {
	return SearchDocumentOf(SearchText(title, excerpt, content), typ, status, password)
}

// SearchDocumentOf is SearchDocument of a post whose SearchText is text.
func SearchDocumentOf(text, typ, status, password string) string {
	var b strings.Builder
	b.Grow(len(text) + 64)
	b.WriteString(text)
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(SearchKindMark(typ, status))
	if password != "" {
		b.WriteString(" " + SearchMarkProtected)
	}
	return b.String()
}
