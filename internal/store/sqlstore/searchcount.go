package sqlstore

import (
	"context"
	"slices"
	"strconv"
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
	ProtectedSearcher
	SearchWindower
}

// ProtectedSearcher is a Dialect that tells, row by row, whether a
// protected post matches a search (protectedCount).
type ProtectedSearcher interface {
	// FieldsSearch returns the condition that every one of words begins
	// a word of one of the text columns cols (SearchFieldsMatch), worked
	// out on the row.
	FieldsSearch(a *Args, words []string, cols ...string) string
	// ProtectedPosts names the posts table read through the index of the
	// posts with a password (posts_protected), for a query whose WHERE
	// has password <> ''.
	ProtectedPosts() string
}

// CommonSearchCounter is a Dialect whose index counts the unprotected
// posts of a collection that a search in many of them matches without
// reading those posts (countCommonSearch).
type CommonSearchCounter interface {
	// CommonSearchCount returns the statement counting the posts without
	// a password whose indexed words every one of words begins, among the
	// ids that the statement ids (SELECT posts.id FROM posts ...) selects.
	CommonSearchCount(a *Args, words []string, ids string) string
	ProtectedSearcher
}

// SearchWindower is a Dialect that can tell which posts of a window of
// the collection (listSearchWindowed) a search matches.
type SearchWindower interface {
	// SearchWithin returns the condition that the post id (an SQL
	// expression) is among the posts whose indexed words every one of
	// words begins, looking only at the ids from lo to hi (SQL
	// expressions) in the index, or asking the index about each post of
	// the window where it has no cheaper way.
	SearchWithin(a *Args, words []string, id, lo, hi string) string
}

// maxSearchKinds bounds the type × status pairs a search total names.
const maxSearchKinds = 16

// searchKinds returns the marks of the type and status pairs a search q
// counts through the index, when its total can be counted there: a
// search on types, statuses and a visibility without owner-only statuses
// alone (any other filter needs the posts' rows).
func searchKinds(q *store.PostQuery) ([]string, bool) {
	types, statuses, ok := searchCollection(q)
	if !ok {
		return nil, false
	}
	var kinds []string
	for _, t := range types {
		for _, s := range statuses {
			kinds = append(kinds, SearchKindMark(t, s))
		}
	}
	return kinds, true
}

// searchCollection returns the types and the statuses whose posts (every
// type with every status, those with a password aside) a search q counts
// without their rows (searchKinds).
func searchCollection(q *store.PostQuery) (types, statuses []string, ok bool) {
	if strings.TrimSpace(q.Search) == "" || len(q.Types) == 0 {
		return nil, nil, false
	}
	plain := *q
	plain.Search = ""
	if !countsOnly(&plain) {
		return nil, nil, false
	}
	all, anyStatus, own := statusSets(q)
	if anyStatus || len(own) > 0 || len(q.Types)*len(all) > maxSearchKinds {
		return nil, nil, false
	}
	return q.Types, all, true
}

// SearchTotals is Conns that keep the totals of searches up to date as
// their full-text index changes: a search counted once is not counted
// again (a word in most posts costs its whole list in the index).
type SearchTotals interface {
	// SearchTotal returns the number of unprotected posts of one of
	// kinds' marks whose indexed words every one of words begins: kept,
	// or counted by count on a read-only Conn of one snapshot and kept
	// from then on. words and kinds are sorted and distinct.
	SearchTotal(ctx context.Context, words, kinds []string, count func(ctx context.Context, c Conn) (int64, error)) (int64, error)
	// KeptSearchTotal returns SearchTotal's total when it is kept, and
	// false when it would have to be counted.
	KeptSearchTotal(ctx context.Context, words, kinds []string) (int64, bool, error)
}

// keptSearchTotal returns the kept total of q's unprotected matches
// (SearchTotals), false when there is none.
func (o ops) keptSearchTotal(ctx context.Context, q *store.PostQuery, words []string) (int64, bool, error) {
	st, keeps := o.db.c.(SearchTotals)
	kinds, ok := searchKinds(q)
	if !keeps || o.tx != nil || !ok || len(kinds) == 0 {
		return 0, false, nil
	}
	words, kinds = slices.Clone(words), slices.Clone(kinds)
	slices.Sort(words)
	slices.Sort(kinds)
	return st.KeptSearchTotal(ctx, slices.Compact(words), slices.Compact(kinds))
}

// countSearch counts a search's posts when the dialect can count them in
// its full-text index: the unprotected matches there (kept by the Conns
// when they are SearchTotals, outside a transaction, which sees its own
// changes), plus the protected posts (few, through posts_protected)
// checked row by row as searchCond does, on their title alone for a
// caller who may not read them. ok is false when the search needs the
// plain count.
func (o ops) countSearch(ctx context.Context, q *store.PostQuery) (n int64, ok bool, err error) {
	sc, can := o.db.d.(SearchCounter)
	sq := parseSearch(q.Search)
	words := sq.words
	kinds, countable := searchKinds(q)
	if !can || !countable || len(words) == 0 || !sq.plain() {
		return 0, false, nil
	}
	if len(kinds) == 0 { // no status is visible
		return 0, true, nil
	}
	a := &Args{}
	protected := o.protectedCount(sc, q, words, a)
	st, keeps := o.db.c.(SearchTotals)
	if !keeps || o.tx != nil {
		leave, err := o.costlyTurn(ctx, true)
		if err != nil {
			return 0, true, o.db.fail("count posts", err)
		}
		defer leave()
		query := `SELECT (` + sc.SearchCount(a, words, kinds) + `) + (` + protected + `)`
		if err := o.reader().queryRow(ctx, query, a.vals...).Scan(&n); err != nil {
			return 0, true, o.db.fail("count posts", err)
		}
		return n, true, nil
	}
	words, kinds = slices.Clone(words), slices.Clone(kinds)
	slices.Sort(words)
	slices.Sort(kinds)
	words, kinds = slices.Compact(words), slices.Compact(kinds)
	indexed, err := st.SearchTotal(ctx, words, kinds, func(ctx context.Context, c Conn) (int64, error) {
		a := &Args{}
		var n int64
		err := querier{db: o.db, c: c}.queryRow(ctx, sc.SearchCount(a, words, kinds), a.vals...).Scan(&n)
		return n, err
	})
	if err != nil {
		return 0, true, o.db.fail("count posts", err)
	}
	if err := o.reader().queryRow(ctx, protected, a.vals...).Scan(&n); err != nil {
		return 0, true, o.db.fail("count posts", err)
	}
	return indexed + n, true, nil
}

// collectionWhere returns the condition that a post is in q's collection:
// of its types, statuses and visibility (searchKinds' queries).
func (o ops) collectionWhere(q *store.PostQuery, a *Args) *cond {
	c := o.db.newCond(a)
	inList(c, "type", q.Types, false)
	if len(q.Statuses) > 0 {
		inList(c, "status", q.Statuses, false)
	}
	if v := q.Visibility; v != nil {
		c.add(visibilityExpr(o.db.d, a, "", v))
	}
	return c
}

// protectedCount returns the statement counting the protected posts of
// q's collection (few, through posts_protected) that a search of words
// matches, checked row by row as searchCond does: on their title alone
// for a caller who may not read them.
func (o ops) protectedCount(ps ProtectedSearcher, q *store.PostQuery, words []string, a *Args) string {
	c := o.collectionWhere(q, a)
	c.add(`password <> ''`)
	c.add(ps.FieldsSearch(a, words, "title", "excerpt", "content"))
	var open []string
	if q.SearchPassword != "" {
		open = append(open, `password = `+a.Add(q.SearchPassword))
	}
	if q.SearchProtected != nil {
		open = append(open, visibilityExpr(o.db.d, a, "", q.SearchProtected))
	}
	open = append(open, o.db.d.TitleSearch(a, "title", words))
	c.add(`(` + strings.Join(open, ` OR `) + `)`)
	return `SELECT COUNT(*) FROM ` + ps.ProtectedPosts() + c.where()
}

// countCommonSearch counts a search's posts, for a dialect that can count
// a common search's matches in its index (CommonSearchCounter), when the
// Conns estimate that the words are in a large share of the posts
// (SearchEstimator): the unprotected matches among the collection's ids,
// read from its index, plus the protected posts checked row by row
// (protectedCount). The statement is planned for its words (PlanEach).
// A search on types, statuses and a visibility without owner-only
// statuses alone, as countSearch's; ok is false for any other, and for a
// search the estimate does not call common, which the plain count
// serves.
func (o ops) countCommonSearch(ctx context.Context, q *store.PostQuery) (n int64, ok bool, err error) {
	cc, can := o.db.d.(CommonSearchCounter)
	est, estimates := o.db.c.(SearchEstimator)
	sq := parseSearch(q.Search)
	kinds, countable := searchKinds(q)
	if !can || !estimates || !countable || len(sq.words) == 0 || !sq.plain() {
		return 0, false, nil
	}
	if len(kinds) == 0 { // no status is visible
		return 0, true, nil
	}
	if share, known := est.SearchShare(ctx, sq.words); !known || share < commonShare {
		return 0, false, nil
	}
	keeper, keeps := o.db.c.(SearchKeeper)
	keeps = keeps && o.tx == nil
	var words, types, statuses []string
	if keeps {
		words = slices.Compact(slices.Sorted(slices.Values(sq.words)))
		types, statuses, _ = searchCollection(q)
		if n, kept, err := o.keptSearch(ctx, keeper, q, words, types, statuses); kept || err != nil {
			return n, true, err
		}
	}
	leave, err := o.costlyTurn(ctx, true)
	if err != nil {
		return 0, true, o.db.fail("count posts", err)
	}
	defer leave()
	if keeps {
		// Kept by another request while this one waited for its turn, or
		// kept now.
		if n, kept, err := o.keptSearch(ctx, keeper, q, words, types, statuses); kept || err != nil {
			return n, true, err
		}
		indexed, kept, err := keeper.KeepSearch(ctx, words, types, statuses)
		if err != nil {
			return 0, true, o.db.fail("count posts", err)
		}
		if kept {
			a := &Args{}
			if err := o.reader().queryRow(ctx, o.protectedCount(cc, q, sq.words, a), a.vals...).Scan(&n); err != nil {
				return 0, true, o.db.fail("count posts", err)
			}
			return indexed + n, true, nil
		}
	}
	a := &Args{}
	ids := `SELECT posts.id FROM posts` + o.collectionWhere(q, a).where()
	query := `SELECT (` + cc.CommonSearchCount(a, sq.words, ids) + `) + (` + o.protectedCount(cc, q, sq.words, a) + `)`
	if err := o.reader().queryRow(ctx, query, o.db.d.PlanEach(a.vals)...).Scan(&n); err != nil {
		return 0, true, o.db.fail("count posts", err)
	}
	return n, true, nil
}

// SearchKeeper is Conns whose database keeps the totals of the searches
// they choose to keep, in the writing transactions (PostgreSQL's
// search_kept: a word in most posts costs its every match to count, at
// each request).
type SearchKeeper interface {
	// KeptSearch returns the expression of the kept number of posts
	// without a password, of one of types with one of statuses, whose
	// indexed words every one of words begins: NULL when that search is
	// not kept. words are sorted and distinct.
	KeptSearch(a *Args, words, types, statuses []string) string
	// SearchRead tells that words' kept total was read (the searches read
	// least lately make room for others).
	SearchRead(words []string)
	// KeepSearch counts KeptSearch's total and keeps the search from then
	// on, when it chooses to and can keep it now; kept is false when the
	// search is to be counted as before.
	KeepSearch(ctx context.Context, words, types, statuses []string) (n int64, kept bool, err error)
}

// keptSearch returns the total of q's search of words when its
// unprotected matches are kept (SearchKeeper): those and the protected
// posts checked row by row (protectedCount), read in one statement.
func (o ops) keptSearch(ctx context.Context, keeper SearchKeeper, q *store.PostQuery, words, types, statuses []string) (int64, bool, error) {
	cc := o.db.d.(CommonSearchCounter)
	a := &Args{}
	query := `SELECT (` + keeper.KeptSearch(a, words, types, statuses) + `), (` + o.protectedCount(cc, q, words, a) + `)`
	var kept *int64
	var protected int64
	if err := o.reader().queryRow(ctx, query, a.vals...).Scan(&kept, &protected); err != nil {
		return 0, false, o.db.fail("count posts", err)
	}
	if kept == nil {
		return 0, false, nil
	}
	keeper.SearchRead(words)
	return *kept + protected, true, nil
}

// windowMatches is the number of matches from which a search page in
// date order is found through windows (listSearchWindowed) rather than by
// walking the order and checking each post against all the matches,
// which lists them all first.
const windowMatches = 50000

// windowStart is how many posts in order the first window of a search
// page takes, per post of the page and its offset (a word in at least
// one post in twenty fills it); each next window is windowGrowth times
// larger.
const (
	windowStart  = 20
	windowGrowth = 8
)

// windowable reports whether q's search pages may be found through
// windows: the dialect can ask its index about a range of ids, and q is
// a page in date order of a search on types, statuses and a visibility
// without owner-only statuses alone.
func windowable(d Dialect, q *store.PostQuery) bool {
	if _, ok := d.(SearchWindower); !ok || q.Limit <= 0 || q.StickyFirst || (q.OrderBy != "" && q.OrderBy != "date") {
		return false
	}
	plain := *q
	plain.Search, plain.SearchPassword, plain.SearchProtected = "", "", nil
	if !countsOnly(&plain) {
		return false
	}
	_, anyStatus, own := statusSets(q)
	return !anyStatus && len(own) == 0
}

// listSearchWindowed lists a search page in date order by one of three
// plans, chosen by the number of posts the words match: up to
// adaptiveMatches, the matches are looked up by id and sorted; up to
// windowMatches, the order is walked and each post checked against the
// matches; beyond, the page comes from a window of the collection: its
// first K posts in date order (an index walk), of which the full-text
// index is asked only about the ids between the smallest and the
// largest. When the window holds the page, it is the page (it is the
// start of the same order), whatever the number of matches: past
// adaptiveMatches, a first window of at most firstWindowMax posts is
// tried before the matches are counted up to windowMatches, in the
// statement that counts them up to adaptiveMatches. When a window does
// not hold the page and the matches are more than windowMatches, windows
// windowGrowth times larger follow until the page is full or the
// collection ends. A word in most posts is answered from the first
// window, where the plain plan would list its every match first; ids
// that follow dates (most sites) keep each window's slice of the index
// small.
func (o ops) listSearchWindowed(ctx context.Context, q *store.PostQuery, words []string) ([]*store.Post, error) {
	sc := o.db.d.(SearchCounter)
	plain := *q
	plain.Search, plain.SearchPassword, plain.SearchProtected = "", "", nil
	k := int64(q.Offset+q.Limit) * windowStart
	// A kept total past searchMany (a lower bound of the matches, which
	// are of any type and status) chooses the window plan without
	// counting the matches up to searchMany first.
	kept, known, err := o.keptSearchTotal(ctx, q, words)
	if err != nil {
		return nil, o.db.fail("list posts", err)
	}
	if known && kept > int64(o.db.searchMany) {
		return o.listSearchWindows(ctx, sc, &plain, q, words, k, false)
	}
	first := k <= firstWindowMax // the window is tried before counting up to searchMany
	a := &Args{}
	// The bounded counts, once each for the statement (a subquery written
	// in each LIMIT would run in each).
	counts := `counts AS MATERIALIZED (SELECT (` + o.db.d.SearchMatches(a, words, o.db.searchFew) + `) AS few`
	if !first {
		counts += `, (` + o.db.d.SearchMatches(a, words, o.db.searchMany) + `) AS many`
	}
	counts += `)`
	few := `(SELECT few FROM counts) <= ` + strconv.Itoa(o.db.searchFew)
	many := `(SELECT many FROM counts) <= ` + strconv.Itoa(o.db.searchMany)
	lim := a.Add(int64(q.Limit))
	off := a.Add(int64(q.Offset))
	limit := func(when string) string {
		return ` LIMIT CASE WHEN ` + when + ` THEN ` + lim + ` ELSE 0 END OFFSET ` + off
	}
	order := o.db.postOrder(q, a)
	byID := `SELECT * FROM (SELECT ` + o.cols() + ` FROM posts` + o.db.postFilter(q, a, true).where() + order + limit(few) + `)`
	cand, window := o.searchWindow(sc, &plain, q, words, a, k)
	query := `WITH ` + cand + `, ` + counts + ` ` + byID
	if first {
		query += ` UNION ALL SELECT ` + o.cols() + ` FROM posts WHERE posts.id IN (` + window + limit(`NOT `+few) + `)` + order
	} else {
		walk := `SELECT * FROM (SELECT ` + o.cols() + ` FROM posts` + o.db.postFilter(q, a, false).where() + order + limit(`NOT `+few+` AND `+many) + `)`
		query += ` UNION ALL ` + walk + ` UNION ALL SELECT ` + o.cols() + ` FROM posts WHERE posts.id IN (` + window +
			limit(`NOT `+few+` AND NOT `+many) + `)` + order
	}
	leave, err := o.windowTurn(ctx, k)
	if err != nil {
		return nil, o.db.fail("list posts", err)
	}
	var out []*store.Post
	err = collect(ctx, o.reader(), &out, scanPost, query, a.vals...)
	leave()
	if err != nil {
		return nil, o.db.fail("list posts", err)
	}
	if len(out) == q.Limit {
		return out, nil
	}
	// Fewer posts than a page: the end of the matches, or a window too
	// small. Only a window can have missed posts.
	a = &Args{}
	var nFew, nMany int64
	err = o.reader().queryRow(ctx, `SELECT (`+o.db.d.SearchMatches(a, words, o.db.searchFew)+`), (`+
		o.db.d.SearchMatches(a, words, o.db.searchMany)+`)`, a.vals...).Scan(&nFew, &nMany)
	if err != nil {
		return nil, o.db.fail("list posts", err)
	}
	switch {
	case nFew <= int64(o.db.searchFew) || (!first && nMany <= int64(o.db.searchMany)):
		return out, nil // the matches by id, or the walk
	case nMany > int64(o.db.searchMany):
		return o.listSearchWindows(ctx, sc, &plain, q, words, k, true)
	}
	// The first window did not hold the page of a search in fewer than
	// searchMany posts: the walk.
	a = &Args{}
	query = `SELECT ` + o.cols() + ` FROM posts` + o.db.postFilter(q, a, false).where() + o.db.postOrder(q, a) + o.db.limitClause(q.Limit, q.Offset, a)
	out = out[:0]
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}

// listSearchWindows lists a search page from windows of the collection
// (listSearchWindowed), the first of k posts, each next one windowGrowth
// times larger, until the page is full or the window is the collection.
// With tried, the window of k posts did not hold the page: the windows
// start from the next one.
func (o ops) listSearchWindows(ctx context.Context, sc SearchCounter, plain, q *store.PostQuery, words []string, k int64, tried bool) ([]*store.Post, error) {
	// The collection's size bounds the windows; it is read only when a
	// window did not hold the page (a word in most posts fills the first).
	total := int64(-1)
	var out []*store.Post
	ran := false // out is the page of the window of k posts
	// The turn taken for the first costly window is kept for the larger
	// ones after it.
	leave := func() {}
	defer func() { leave() }()
	turn := false
	for first := !tried; ; first = false {
		if !first {
			if total < 0 {
				n, err := o.countFromCounts(ctx, plain)
				if err != nil {
					return nil, err
				}
				total = n
			}
			if ran && k >= total {
				return out, nil
			}
			k = min(k*windowGrowth, total)
		}
		if !turn && k > int64(o.db.windowGated) {
			l, err := o.windowTurn(ctx, k)
			if err != nil {
				return nil, o.db.fail("list posts", err)
			}
			leave, turn = l, true
		}
		var err error
		if out, err = o.windowPage(ctx, sc, plain, q, words, k, out[:0]); err != nil {
			return nil, err
		}
		ran = true
		if len(out) == q.Limit {
			return out, nil
		}
	}
}

// SearchEstimator is Conns whose database estimates, from its planner
// statistics, the share of the posts a search's words are in, without
// reading their matches.
type SearchEstimator interface {
	// SearchShare returns the estimated share (0 to 1) of the posts whose
	// indexed words every one of words begins; ok is false when there is
	// no estimate (the index was never analyzed).
	SearchShare(ctx context.Context, words []string) (share float64, ok bool)
}

// firstWindowMax bounds the window a search page reads first on an
// estimate (listSearchFirstWindow): the pages of the first hundred
// matches, or the two hundred that order=relevance ranks.
const firstWindowMax = 4000

// commonShare is the estimated share of the posts from which a search page
// reads a window first: twice the share that fills the window on average.
const commonShare = 2.0 / windowStart

// listSearchFirstWindow lists a search page from the first window of the
// collection (listSearchWindowed) when the Conns estimate that its words
// are in a large share of the posts, for a dialect that cannot count the
// matches up to a bound in the statement (SearchMatches) and so would
// collect every match first: a word in most posts is answered from a few
// hundred posts. ok is false when the estimate does not call the words
// common, or when the window did not hold the page (a word the newest
// posts do not have): the page is then listed from the matches, having
// cost one window more.
func (o ops) listSearchFirstWindow(ctx context.Context, q *store.PostQuery, words []string) (out []*store.Post, ok bool, err error) {
	est, estimates := o.db.c.(SearchEstimator)
	sw, windows := o.db.d.(SearchWindower)
	if !estimates || !windows || !windowable(o.db.d, q) {
		return nil, false, nil
	}
	k := int64(q.Offset+q.Limit) * windowStart
	if k > firstWindowMax {
		return nil, false, nil
	}
	if share, known := est.SearchShare(ctx, words); !known || share < commonShare {
		return nil, false, nil
	}
	plain := *q
	plain.Search, plain.SearchPassword, plain.SearchProtected = "", "", nil
	if out, err = o.windowPage(ctx, sw, &plain, q, words, k, nil); err != nil {
		return nil, false, err
	}
	return out, len(out) == q.Limit, nil
}

// windowPage appends to out q's page of the matches in the window of the
// first k posts of plain's collection (searchWindow), in one statement.
func (o ops) windowPage(ctx context.Context, sw SearchWindower, plain, q *store.PostQuery, words []string, k int64, out []*store.Post) ([]*store.Post, error) {
	a := &Args{}
	cand, window := o.searchWindow(sw, plain, q, words, a, k)
	// The page's ids first: the window's posts are sorted without their
	// text.
	query := `WITH ` + cand + ` SELECT ` + o.cols() + ` FROM posts WHERE posts.id IN (` + window +
		o.db.limitClause(q.Limit, q.Offset, a) + `)` + o.db.postOrder(q, a)
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}

// windowGated is the size of a window (in posts of the collection) past
// which reading it takes a turn with the counts of searches (gate.go): a
// window is read whole, and a word found in none of the newest posts
// makes a search page read windows of most of the collection (tens of
// milliseconds of CPU and more at a million posts), which many clients
// at once would hold every connection and CPU with.
const windowGated = 10000

// windowTurn waits for a turn with the counts of searches when a window
// of k posts is larger than windowGated, outside a write transaction
// (which waits for nothing); leave gives the turn back, and does nothing
// when no turn was taken.
func (o ops) windowTurn(ctx context.Context, k int64) (leave func(), err error) {
	return o.costlyTurn(ctx, k > int64(o.db.windowGated))
}

// searchWindow returns the definition of the common table cand, the
// first k posts of plain's collection in q's order (their ids and dates:
// an index walk), and the statement selecting the ids of those that match
// the search's words (asking the index only about the ids the window
// spans) and may be listed, in q's order. A post without a password is
// listed without reading its row.
func (o ops) searchWindow(sw SearchWindower, plain, q *store.PostQuery, words []string, a *Args, k int64) (cte, ids string) {
	order := o.db.postOrder(q, a) // date and id, which cand holds
	cte = `cand AS (SELECT id, date FROM posts` + o.db.postWhere(plain, a).where() + order + ` LIMIT ` + a.Add(k) + `)`
	ids = `SELECT cand.id FROM cand WHERE ` + sw.SearchWithin(a, words, `cand.id`, `(SELECT MIN(id) FROM cand)`, `(SELECT MAX(id) FROM cand)`) +
		` AND (cand.id NOT IN (SELECT pp.id FROM posts pp WHERE pp.password <> '')` +
		` OR EXISTS (SELECT 1 FROM posts WHERE posts.id = cand.id AND ` + searchReadable(o.db.d, a, q, words) + `))` + order
	return cte, ids
}
