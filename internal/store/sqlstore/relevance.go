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
const relevanceRanked = 2000

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
// hidden text holds.
func relevanceTier(sq searchQuery, sentence []string, p *store.Post, open bool) int {
	n := len(sq.terms) + len(sq.exclude)
	if n <= 1 {
		if len(sq.terms) == 1 && sq.terms[0].inTitle(p.Title) {
			return 1
		}
		return 2
	}
	whole := len(sq.exclude) == 0 && len(sentence) > 0
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
		if SearchPhraseMatch(sentence, p.Content) {
			return 5
		}
	}
	return 6
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
// usual plans and ranked here, with the same word rules as the index;
// the matches after them keep their date order. A search of fewer
// matches is ranked whole.
func (o ops) listRelevance(ctx context.Context, q *store.PostQuery) ([]*store.Post, error) {
	byDate := *q
	byDate.OrderBy, byDate.StickyFirst = "date", false
	ranked := o.db.relevanceRanked
	offset := max(q.Offset, 0)
	var out []*store.Post
	if offset < ranked {
		first := byDate
		first.Offset, first.Limit = 0, ranked
		posts, err := o.ListPosts(ctx, first)
		if err != nil {
			return nil, err
		}
		sq := parseSearch(q.Search)
		sentence := SearchWords(q.Search)
		tiers := make(map[int64]int, len(posts))
		for _, p := range posts {
			open := p.Password == "" || p.Password == q.SearchPassword || visibleTo(q.SearchProtected, p)
			tiers[p.ID] = relevanceTier(sq, sentence, p, open)
		}
		slices.SortStableFunc(posts, func(x, y *store.Post) int { return tiers[x.ID] - tiers[y.ID] })
		end := len(posts)
		if q.Limit > 0 {
			end = min(end, offset+q.Limit)
		}
		if offset < end {
			out = append(out, posts[offset:end]...)
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

// relevanceSearch reports whether q asks for a search by relevance.
func relevanceSearch(q *store.PostQuery) bool {
	return q.OrderBy == "relevance" && strings.TrimSpace(q.Search) != ""
}
