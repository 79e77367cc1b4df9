package sqlstore

import (
	"context"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// relevanceRanked is how many of a search's matches orderby=relevance
// ranks: the newest ones (the first in date order). A search matching
// more ranks those, then lists the rest in date order, so that ranking a
// word in most of a million posts costs reading this many, not all of
// them (docs/search.md).
const relevanceRanked = 200

// SetRelevanceRanked sets how many matches orderby=relevance ranks.
// Tests lower it to reach its date-ordered tail on a small site; a server
// keeps the default.
func (db *DB) SetRelevanceRanked(n int) { db.relevanceRanked = n }

// searchTerm is one term of a search that is not excluded: a word, the
// words of an unquoted term ("well-known"), or a quoted phrase.
type searchTerm struct {
	words  []string
	phrase bool
}

// inTitle reports whether the term is in title: each of its words begins
// a word of it, or, for a phrase, the phrase is in it.
func (t searchTerm) inTitle(title string) bool {
	if t.phrase {
		return SearchPhraseMatch(t.words, title)
	}
	return SearchMatch(title, t.words)
}

// relevanceTier returns the rank of post p for search s, smaller first,
// as WordPress (4.4 and later) orders a search by relevance, on words as
// Folio matches them (a searched word begins a word of the text):
//
//   - one term: 1 when the term is in the title, else 2;
//   - several: 1 when the whole search is in the title as a phrase, 2 when
//     every term is in it, 3 when one is (these two only for fewer than
//     seven terms), 4 when the whole search is in the excerpt as a phrase,
//     5 when it is in the content, else 6. The phrase tiers are left out
//     when a term is excluded.
//
// The excerpt and content only count when open (the caller may read the
// post's text): the order of a protected post must not tell what its
// hidden text holds. p's content is not read: inContent tells whether
// the whole search is in it, asked only for an open post still at 6.
func relevanceTier(sq searchQuery, sentence []string, p *store.Post, open bool, inContent func() bool) int {
	n := len(sq.terms) + len(sq.exclude)
	if n <= 1 {
		if len(sq.terms) == 1 && sq.terms[0].inTitle(p.Title) {
			return 1
		}
		return 2
	}
	whole := wholeSearchRanks(sq, sentence)
	if whole && SearchPhraseMatch(sentence, p.Title) {
		return 1
	}
	if len(sq.terms) > 0 && len(sq.terms) < 7 {
		in := 0
		for _, t := range sq.terms {
			if t.inTitle(p.Title) {
				in++
			}
		}
		if in == len(sq.terms) {
			return 2
		}
		if in > 0 {
			return 3
		}
	}
	if whole && open {
		if SearchPhraseMatch(sentence, p.Excerpt) {
			return 4
		}
		if inContent() {
			return 5
		}
	}
	return 6
}

// wholeSearchRanks reports whether the whole search, as a phrase, ranks
// posts: a search of several terms, none excluded.
func wholeSearchRanks(sq searchQuery, sentence []string) bool {
	return len(sq.terms) > 1 && len(sq.exclude) == 0 && len(sentence) > 0
}

// visibleTo reports whether p passes v, as visibilityExpr does in SQL.
func visibleTo(v *store.Visibility, p *store.Post) bool {
	if v == nil {
		return false
	}
	return slices.Contains(v.Public, p.Status) ||
		v.Owner != 0 && p.Author == v.Owner && slices.Contains(v.OwnStatuses, p.Status) ||
		slices.Contains(v.OthersStatuses, p.Status)
}

// listRelevance lists a page of a search by relevance (relevanceTier),
// ties in date order (q.Order, newest first by default). The newest
// relevanceRanked matches are read in date order through the search's
// usual plans, without their content, and ranked here with the same word
// rules as the index; the store is asked in one statement which of them
// have the whole search in their content, and the page's posts are then
// read whole. The matches after the ranked ones keep their date order. A
// search of fewer matches is ranked whole.
func (o ops) listRelevance(ctx context.Context, q *store.PostQuery) ([]*store.Post, error) {
	byDate := *q
	byDate.OrderBy, byDate.StickyFirst = "date", false
	ranked := o.db.relevanceRanked
	offset := max(q.Offset, 0)
	var out []*store.Post
	if offset < ranked {
		first := byDate
		first.Offset, first.Limit = 0, ranked
		light := o
		light.noContent = true
		posts, err := light.ListPosts(ctx, first)
		if err != nil {
			return nil, err
		}
		sq := parseSearch(q.Search)
		sentence := SearchWords(q.Search)
		inContent := map[int64]bool{}
		if wholeSearchRanks(sq, sentence) {
			if inContent, err = o.phraseInContent(ctx, posts, sentence); err != nil {
				return nil, err
			}
		}
		tiers := make(map[int64]int, len(posts))
		for _, p := range posts {
			open := p.Password == "" || p.Password == q.SearchPassword || visibleTo(q.SearchProtected, p)
			tiers[p.ID] = relevanceTier(sq, sentence, p, open, func() bool { return inContent[p.ID] })
		}
		slices.SortStableFunc(posts, func(x, y *store.Post) int { return tiers[x.ID] - tiers[y.ID] })
		end := len(posts)
		if q.Limit > 0 {
			end = min(end, offset+q.Limit)
		}
		if offset < end {
			page, err := o.wholePosts(ctx, posts[offset:end])
			if err != nil {
				return nil, err
			}
			out = page
		}
		if len(posts) < ranked || (q.Limit > 0 && len(out) == q.Limit) {
			return out, nil
		}
	}
	rest := byDate
	rest.Offset = max(offset, ranked)
	if q.Limit > 0 {
		rest.Limit = q.Limit - len(out)
	}
	tail, err := o.ListPosts(ctx, rest)
	if err != nil {
		return nil, err
	}
	return append(out, tail...), nil
}

// phraseInContent returns which of posts have phrase in their content
// (Dialect.PhraseSearch), in one statement.
func (o ops) phraseInContent(ctx context.Context, posts []*store.Post, phrase []string) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(posts) == 0 {
		return out, nil
	}
	ids := make([]int64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	a := &Args{}
	query := `SELECT id FROM posts WHERE ` + inExpr(o.db.d, a, "id", ids, false) + ` AND ` + o.db.d.PhraseSearch(a, phrase, "content")
	var found []int64
	if err := collect(ctx, o.reader(), &found, scanInt64, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// wholePosts reads posts (listed without their content) whole, in order.
func (o ops) wholePosts(ctx context.Context, posts []*store.Post) ([]*store.Post, error) {
	ids := make([]int64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	byID, err := o.GetPosts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*store.Post, 0, len(posts))
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// relevanceSearch reports whether q asks for a search by relevance.
func relevanceSearch(q *store.PostQuery) bool {
	return q.OrderBy == "relevance" && strings.TrimSpace(q.Search) != ""
}
