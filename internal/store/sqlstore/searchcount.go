package sqlstore

import (
	"context"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// SearchCounter is a Dialect whose full-text index holds the marks of
// SearchDocument beside each post's words, so that the total of a search
// is counted in the index alone: the number of posts a word is in costs
// its list in the index, not a read of every one of those posts.
type SearchCounter interface {
	// SearchCount returns the expression counting the posts whose indexed
	// words every one of words begins, that have one of kinds' marks
	// (SearchKindMark) and no password.
	SearchCount(a *Args, words []string, kinds []string) string
	// FieldsSearch returns the condition that every one of words begins a
	// word of one of the text columns cols (SearchFieldsMatch), worked
	// out on the row.
	FieldsSearch(a *Args, words []string, cols ...string) string
	// SearchWithin returns the condition that posts.id is among the posts
	// whose indexed words every one of words begins, looking only at the
	// ids from lo to hi (SQL expressions) in the index.
	SearchWithin(a *Args, words []string, lo, hi string) string
	// ProtectedPosts names the posts table read through the index of the
	// posts with a password (posts_protected), for a query whose WHERE
	// has password <> ''.
	ProtectedPosts() string
}

// maxSearchKinds bounds the type × status pairs a search total names.
const maxSearchKinds = 16

// searchKinds returns the marks of the type and status pairs a search q
// counts through the index, when its total can be counted there: a
// search on types, statuses and a visibility without owner-only statuses
// alone (any other filter needs the posts' rows).
func searchKinds(q *store.PostQuery) ([]string, bool) {
	if strings.TrimSpace(q.Search) == "" || len(q.Types) == 0 {
		return nil, false
	}
	plain := *q
	plain.Search = ""
	if !countsOnly(&plain) {
		return nil, false
	}
	all, anyStatus, own := statusSets(q)
	if anyStatus || len(own) > 0 || len(q.Types)*len(all) > maxSearchKinds {
		return nil, false
	}
	var kinds []string
	for _, t := range q.Types {
		for _, s := range all {
			kinds = append(kinds, SearchKindMark(t, s))
		}
	}
	return kinds, true
}

// countSearch counts a search's posts in one statement when the dialect
// can count them in its full-text index: the unprotected matches there,
// plus the protected posts (few, through posts_protected) checked row by
// row as searchCond does, on their title alone for a caller who may not
// read them. ok is false when the search needs the plain count.
func (o ops) countSearch(ctx context.Context, q *store.PostQuery) (n int64, ok bool, err error) {
	sc, can := o.db.d.(SearchCounter)
	words := searchTerms(q.Search)
	kinds, countable := searchKinds(q)
	if !can || !countable || len(words) == 0 {
		return 0, false, nil
	}
	if len(kinds) == 0 { // no status is visible
		return 0, true, nil
	}
	a := &Args{}
	c := o.db.newCond(a)
	inList(c, "type", q.Types, false)
	if len(q.Statuses) > 0 {
		inList(c, "status", q.Statuses, false)
	}
	if v := q.Visibility; v != nil {
		c.add(visibilityExpr(o.db.d, a, "", v))
	}
	c.add(`password <> ''`)
	c.add(sc.FieldsSearch(a, words, "title", "excerpt", "content"))
	var open []string
	if q.SearchPassword != "" {
		open = append(open, `password = `+a.Add(q.SearchPassword))
	}
	if q.SearchProtected != nil {
		open = append(open, visibilityExpr(o.db.d, a, "", q.SearchProtected))
	}
	open = append(open, o.db.d.TitleSearch(a, "title", words))
	c.add(`(` + strings.Join(open, ` OR `) + `)`)
	query := `SELECT (` + sc.SearchCount(a, words, kinds) + `) + (SELECT COUNT(*) FROM ` + sc.ProtectedPosts() + c.where() + `)`
	if err := o.reader().queryRow(ctx, query, a.vals...).Scan(&n); err != nil {
		return 0, true, o.db.fail("count posts", err)
	}
	return n, true, nil
}

// windowStart is how many posts in order the first window of a search
// page takes, per post of the page and its offset; each next window is
// windowGrowth times larger.
const (
	windowStart  = 4
	windowGrowth = 8
)

// listSearchWindow lists a search page in date order without looking up
// every matching post first, for a search on types, statuses and a
// visibility without owner-only statuses alone: it takes the first K
// posts of the collection in date order (an index walk), and asks the
// full-text index only about the ids between the smallest and largest of
// them. When they hold the page, it is the page (they are the first K of
// the same order); when they do not and more posts remain, K grows. A
// word in most posts is answered from the first window, a rarer one from
// a few; ids that follow dates keep each window's slice of the index
// small. ok is false when the dialect or q does not allow it: the caller
// lists the page the plain way.
func (o ops) listSearchWindow(ctx context.Context, q *store.PostQuery, words []string) (out []*store.Post, ok bool, err error) {
	sc, can := o.db.d.(SearchCounter)
	if !can || q.Limit <= 0 || q.StickyFirst || (q.OrderBy != "" && q.OrderBy != "date") {
		return nil, false, nil
	}
	plain := *q
	plain.Search, plain.SearchPassword, plain.SearchProtected = "", "", nil
	if !countsOnly(&plain) {
		return nil, false, nil
	}
	if _, anyStatus, own := statusSets(q); anyStatus || len(own) > 0 {
		return nil, false, nil
	}
	total, err := o.countFromCounts(ctx, &plain)
	if err != nil || total == 0 {
		return nil, err == nil, err
	}
	order := o.db.postOrder(q, &Args{})
	for k := int64(q.Offset+q.Limit) * windowStart; ; k *= windowGrowth {
		k = min(k, total)
		a := &Args{}
		cand := `WITH cand AS (SELECT id FROM posts` + o.db.postWhere(&plain, a).where() + order + ` LIMIT ` + a.Add(k) + `) `
		c := o.db.newCond(a)
		c.add(`posts.id IN (SELECT id FROM cand)`)
		c.add(sc.SearchWithin(a, words, `(SELECT MIN(id) FROM cand)`, `(SELECT MAX(id) FROM cand)`))
		c.add(searchReadable(o.db.d, a, q, words))
		query := cand + `SELECT ` + postCols + ` FROM posts` + c.where() + order + o.db.limitClause(q.Limit, q.Offset, a)
		out = out[:0]
		if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
			return nil, true, o.db.fail("list posts", err)
		}
		if len(out) == q.Limit || k >= total {
			return out, true, nil
		}
	}
}
