package sqlstore

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// pageStatuses returns the statuses a date-ordered page of q is merged
// from (listByStatus), or nil when the plain query is the better plan: a
// page of one post type whose rows may have any of several statuses — an
// editor's or an administrator's "all" list — matches the (type, status,
// date) index only one status at a time, so the plain query sorts every
// post of the type to find one page.
func pageStatuses(q *store.PostQuery) []string {
	if q.Limit <= 0 || len(q.Types) != 1 || q.StickyFirst || strings.TrimSpace(q.Search) != "" ||
		(q.OrderBy != "" && q.OrderBy != "date") {
		return nil
	}
	var allowed []string
	if v := q.Visibility; v != nil {
		allowed = slices.Concat(v.Public, v.OthersStatuses)
		if v.Owner != 0 {
			allowed = append(allowed, v.OwnStatuses...)
		}
	}
	var statuses []string
	switch {
	case len(q.Statuses) > 0 && q.Visibility != nil:
		for _, s := range q.Statuses {
			if slices.Contains(allowed, s) {
				statuses = append(statuses, s)
			}
		}
	case len(q.Statuses) > 0:
		statuses = slices.Clone(q.Statuses)
	default:
		statuses = allowed // nil without a visibility: any status
	}
	slices.Sort(statuses)
	statuses = slices.Compact(statuses)
	if len(statuses) < 2 {
		return nil
	}
	return statuses
}

// listByStatus lists a date-ordered page as the merge of one branch per
// status, each walking the (type, status, date) index for at most the
// rows up to the page's end: the cost follows the page's end, not the
// number of posts of the type.
func (o ops) listByStatus(ctx context.Context, q *store.PostQuery, statuses []string) ([]*store.Post, error) {
	a := &Args{}
	end := a.Add(int64(q.Limit + max(q.Offset, 0)))
	// Each branch has one status: the status filter and the visibility
	// become that status, and the author for a status the caller sees of
	// their own posts only (pageStatuses kept only allowed statuses).
	bq := *q
	bq.Statuses, bq.Visibility = nil, nil
	branches := make([]string, len(statuses))
	for i, s := range statuses {
		c := o.db.postWhere(&bq, a)
		c.add(`status = ` + a.Add(s))
		if v := q.Visibility; v != nil && !slices.Contains(v.Public, s) && !slices.Contains(v.OthersStatuses, s) {
			c.add(`author = ` + a.Add(v.Owner))
		}
		branches[i] = `SELECT * FROM (SELECT ` + o.cols() + ` FROM posts` + c.where() + o.db.postOrder(q, a) + ` LIMIT ` + end + `) AS s` + strconv.Itoa(i)
	}
	query := `SELECT * FROM (` + strings.Join(branches, ` UNION ALL `) + `) AS page` +
		o.db.postOrder(q, a) + o.db.limitClause(q.Limit, q.Offset, a)
	var out []*store.Post
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}

// termPageable reports whether a page of q is listed by listByTerm: one
// term filter, no search (which has its own plans), a bounded page.
func termPageable(q *store.PostQuery) bool {
	f := q.Terms
	return q.Limit > 0 && len(f) == 1 && (len(f[0].IDs) > 0 || len(f[0].Slugs) > 0) && strings.TrimSpace(q.Search) == ""
}

// termPageMatches is where listByTerm changes plans: terms with at most
// this many posts have them looked up, terms with more have the page's
// order walked and each post checked.
const termPageMatches = 2000

// listByTerm lists a page of the posts of a term in one statement that
// holds both plans, each guarded by how many posts the term has (counted
// up to termPageMatches + 1), as listSearch does for words: looking up
// and sorting a rare term's posts is cheap, walking the order's index
// until a page is full is cheap for a common one.
func (o ops) listByTerm(ctx context.Context, q *store.PostQuery) ([]*store.Post, error) {
	a := &Args{}
	guard := `(SELECT COUNT(*) FROM (SELECT 1 FROM term_relationships tr WHERE tr.term_id IN (` +
		termMatch(o.db.d, a, q.Terms[0]) + `) LIMIT ` + strconv.Itoa(termPageMatches+1) + `) AS g)`
	limit := a.Add(int64(q.Limit))
	offset := a.Add(int64(max(q.Offset, 0)))
	branch := func(seek bool, test string) string {
		c := o.db.postFilterTerms(q, a, true, seek)
		return `SELECT * FROM (SELECT ` + o.cols() + ` FROM posts` + c.where() + o.db.postOrder(q, a) +
			` LIMIT CASE WHEN ` + guard + ` ` + test + ` THEN ` + limit + ` ELSE 0 END OFFSET ` + offset + `) AS ` + map[bool]string{true: "seek", false: "walk"}[seek]
	}
	query := `SELECT * FROM (` + branch(true, `<= `+strconv.Itoa(termPageMatches)) + ` UNION ALL ` +
		branch(false, `> `+strconv.Itoa(termPageMatches)) + `) AS page` + o.db.postOrder(q, a)
	var out []*store.Post
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}
