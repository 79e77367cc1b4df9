package sqlstore

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// deepOffset is the offset from which a page in date order is found
// through post_counts (monthSeek) rather than by skipping rows one by one.
const deepOffset = 1000

// countsOnly reports whether q filters on type, status and visibility
// alone, so that post_counts (kept by triggers, migration 0013) can
// answer its total.
func countsOnly(q *store.PostQuery) bool {
	return strings.TrimSpace(q.Search) == "" && q.After == nil && q.Before == nil &&
		len(q.Authors) == 0 && len(q.AuthorExclude) == 0 && len(q.Include) == 0 && len(q.Exclude) == 0 &&
		!q.ParentsSet && len(q.ParentExclude) == 0 && len(q.Slugs) == 0 && q.MenuOrder == nil &&
		len(q.MimeTypes) == 0 && len(q.MimePrefixes) == 0 && q.Year == 0 && q.Month == 0 && q.Day == 0 &&
		len(q.Terms) == 0 && len(q.ParentVisibility) == 0
}

// statusSets splits what q's statuses and visibility allow into the
// statuses every post of may be counted under (all, nil for any status
// when ok) and those only the owner's posts are (own); none is true when
// nothing is allowed.
func statusSets(q *store.PostQuery) (all []string, any bool, own []string) {
	v := q.Visibility
	if v == nil {
		if len(q.Statuses) == 0 {
			return nil, true, nil
		}
		return slices.Clone(q.Statuses), false, nil
	}
	allowed := func(s string) bool { return len(q.Statuses) == 0 || slices.Contains(q.Statuses, s) }
	for _, s := range append(slices.Clone(v.Public), v.OthersStatuses...) {
		if allowed(s) && !slices.Contains(all, s) {
			all = append(all, s)
		}
	}
	if v.Owner != 0 {
		for _, s := range v.OwnStatuses {
			if allowed(s) && !slices.Contains(all, s) && !slices.Contains(own, s) {
				own = append(own, s)
			}
		}
	}
	return all, false, own
}

// termCountable reports whether q's total can come from term_post_counts
// (kept by triggers, migration 0032): q filters on one term, named by one
// id or slug, without its children, and otherwise on type, status and
// visibility alone, as an archive page of a category or tag does. Two
// terms or more would count a post that has both twice.
func termCountable(q *store.PostQuery) bool {
	if len(q.Terms) != 1 {
		return false
	}
	f := q.Terms[0]
	if f.IncludeChildren || len(f.IDs)+len(f.Slugs) != 1 {
		return false
	}
	rest := *q
	rest.Terms = nil
	return countsOnly(&rest)
}

// authorCountable reports whether q's total can come from
// author_post_counts (kept by triggers, migration 0035): q filters on one
// author, and otherwise on type, status and visibility alone, as an
// author's archive does.
func authorCountable(q *store.PostQuery) bool {
	if len(q.Authors) != 1 {
		return false
	}
	rest := *q
	rest.Authors = nil
	return countsOnly(&rest)
}

// countsWhere returns the conditions on the type and status of post_counts
// or term_post_counts that q's types and the statuses all (any when
// anyStatus) select, after the conditions already in c.
func countsWhere(c *cond, q *store.PostQuery, all []string, anyStatus bool) string {
	if len(q.Types) > 0 {
		inList(c, "type", q.Types, false)
	}
	if !anyStatus {
		inList(c, "status", all, false)
	}
	return c.where()
}

// countFromCounts counts the posts of a countsOnly query, or of a
// termCountable or authorCountable one, in one statement: the post_counts
// rows (or the term's term_post_counts rows, or the author's
// author_post_counts rows) of the statuses everybody's posts count under,
// plus the owner's own posts in the statuses only they count under (an
// index-only count on posts_author, which checks each of those posts' link
// to the term).
func (o ops) countFromCounts(ctx context.Context, q *store.PostQuery) (int64, error) {
	a := &Args{}
	all, anyStatus, own := statusSets(q)
	var term *store.TermFilter
	if len(q.Terms) == 1 {
		term = &q.Terms[0]
	}
	sum := `0`
	if anyStatus || len(all) > 0 {
		c := o.db.newCond(a)
		table := `post_counts`
		switch {
		case term != nil:
			table = `term_post_counts`
			c.add(`term_id IN (` + termMatch(o.db.d, a, *term) + `)`)
		case len(q.Authors) == 1:
			table = `author_post_counts`
			c.add(`author = ` + a.Add(q.Authors[0]))
		}
		sum = `COALESCE((SELECT CAST(SUM(n) AS BIGINT) FROM ` + table + countsWhere(c, q, all, anyStatus) + `), 0)`
	}
	// In another author's archive, none of the owner's posts.
	if len(own) > 0 && (len(q.Authors) == 0 || q.Authors[0] == q.Visibility.Owner) {
		c := o.db.newCond(a)
		c.add(`author = ` + a.Add(q.Visibility.Owner))
		if len(q.Types) > 0 {
			inList(c, "type", q.Types, false)
		}
		inList(c, "status", own, false)
		if term != nil {
			c.add(termPosts(o.db.d, a, *term, false))
		}
		sum += ` + (SELECT COUNT(*) FROM posts` + c.where() + `)`
	}
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT `+sum, a.vals...).Scan(&n); err != nil {
		return 0, o.db.fail("count posts", err)
	}
	return n, nil
}

// monthSeekable reports whether the page q asks for is found faster by
// monthSeek: a deep page in date order of a countsOnly query whose
// visibility has no owner-only statuses.
func monthSeekable(q *store.PostQuery) bool {
	if q.Limit <= 0 || q.Offset < deepOffset || q.StickyFirst || !countsOnly(q) {
		return false
	}
	if q.OrderBy != "" && q.OrderBy != "date" && !(q.OrderBy == "include" && len(q.Include) == 0) {
		return false
	}
	all, anyStatus, own := statusSets(q)
	return len(own) == 0 && (anyStatus || len(all) > 0)
}

// monthSeek lists a deep page in date order without skipping every row
// before it: post_counts tells in which month of dates the page's first
// row is and how many rows come before that month, so the statement skips
// only the rows of that month before it. The months are summed here,
// walked from the end of the order nearer the page and no further than
// its month (a running sum over every month in SQL cost 15 ms at a
// million posts over 4,000 months); three statements: the total, the
// months, the page.
func (o ops) monthSeek(ctx context.Context, q *store.PostQuery) ([]*store.Post, error) {
	all, anyStatus, _ := statusSets(q)
	dir := orderDir(q.Order, "DESC")
	off := int64(q.Offset)
	total, err := o.countFromCounts(ctx, q) // no owner-only statuses: post_counts alone
	if err != nil {
		return nil, err
	}
	a := &Args{}
	where := countsWhere(o.db.newCond(a), q, all, anyStatus)
	if off >= total {
		return nil, nil
	}
	// The page's first row is row target of the months walked in walk
	// order (from 0).
	walk, target := dir, off
	if off > total/2 {
		walk, target = map[string]string{"ASC": "DESC", "DESC": "ASC"}[dir], total-1-off
	}
	var month any
	var seen, inMonth int64 // the rows of the months walked before month; month's
	err = o.reader().query(ctx, func(rows Rows) error {
		var m any
		var n int64
		if err := rows.Scan(&m, &n); err != nil {
			return err
		}
		if seen+n > target {
			month, inMonth = m, n
			return errMonthFound
		}
		seen += n
		return nil
	}, `SELECT month, CAST(SUM(n) AS BIGINT) FROM post_counts`+where+` GROUP BY month ORDER BY month `+walk, a.vals...)
	if err != nil && !errors.Is(err, errMonthFound) {
		return nil, o.db.fail("list posts", err)
	}
	if month == nil {
		return nil, nil // the counts changed between the two statements
	}
	before := seen // the rows before month in the page's order
	if walk != dir {
		before = total - seen - inMonth
	}
	a = &Args{}
	w := o.db.postWhere(q, a)
	w.add(o.db.d.MonthStart(a, month, dir == "DESC"))
	query := `SELECT ` + o.cols() + ` FROM posts` + w.where() + ` ORDER BY date ` + dir + `, id ` + dir +
		` LIMIT ` + a.Add(int64(q.Limit)) + ` OFFSET ` + a.Add(max(off-before, 0))
	var out []*store.Post
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}

// errMonthFound ends monthSeek's walk of the months.
var errMonthFound = errors.New("month found")
