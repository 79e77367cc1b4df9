package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/store"
)

// postCols lists the posts columns in scanPost's order.
const postCols = `id, type, status, author, parent, menu_order, title, content, excerpt, slug,
	password, guid, date, date_gmt, modified, modified_gmt, comment_status, ping_status,
	sticky, format, template, featured_media, mime_type, comment_count, pre_trash_status`

// postColsNoContent is postCols with an empty content.
var postColsNoContent = strings.Replace(postCols, "title, content,", "title, '' AS content,", 1)

// postInsertCols lists the posts columns InsertPost writes, postArgs' order.
const postInsertCols = `type, status, author, parent, menu_order, title, content, excerpt, slug,
	password, guid, date, date_gmt, modified, modified_gmt, comment_status, ping_status,
	sticky, format, template, featured_media, mime_type, comment_count, pre_trash_status`

func scanPost(s scanner) (*store.Post, error) {
	var p store.Post
	if err := s.Scan(&p.ID, &p.Type, &p.Status, &p.Author, &p.Parent, &p.MenuOrder, &p.Title,
		&p.Content, &p.Excerpt, &p.Slug, &p.Password, &p.GUID, at(&p.Date), at(&p.DateGMT),
		at(&p.Modified), at(&p.ModifiedGMT), &p.CommentStatus, &p.PingStatus, &p.Sticky, &p.Format,
		&p.Template, &p.FeaturedMedia, &p.MimeType, &p.CommentCount, &p.PreTrashStatus); err != nil {
		return nil, err
	}
	return &p, nil
}

// postArgs returns p's columns after id, in postInsertCols order.
func (db *DB) postArgs(p *store.Post) []any {
	t := db.d.Time
	return []any{p.Type, p.Status, p.Author, p.Parent, p.MenuOrder, p.Title, p.Content,
		p.Excerpt, p.Slug, p.Password, p.GUID, t(p.Date), t(p.DateGMT), t(p.Modified),
		t(p.ModifiedGMT), p.CommentStatus, p.PingStatus, p.Sticky, p.Format, p.Template,
		p.FeaturedMedia, p.MimeType, p.CommentCount, p.PreTrashStatus}
}

// postUpdateArgs returns the arguments of UpdatePost: postArgs(p) without
// comment_count, which only the comment writes change, then p.ID.
func (db *DB) postUpdateArgs(p *store.Post) []any {
	args := db.postArgs(p)
	// comment_count is the second-to-last column.
	n := len(args)
	return append(args[:n-2:n-2], args[n-1], p.ID)
}

// GetPost loads one post; store.ErrNotFound when there is none.
func (o ops) GetPost(ctx context.Context, id int64) (*store.Post, error) {
	p, err := scanPost(o.reader().queryRow(ctx, `SELECT `+postCols+` FROM posts WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound(fmt.Sprintf("post %d", id))
	}
	if err != nil {
		return nil, o.db.fail(fmt.Sprintf("get post %d", id), err)
	}
	return p, nil
}

// GetPosts loads the posts with the given ids in one query.
func (o ops) GetPosts(ctx context.Context, ids []int64) (map[int64]*store.Post, error) {
	out := make(map[int64]*store.Post, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	a := &Args{}
	var posts []*store.Post
	err := collect(ctx, o.reader(), &posts, scanPost, `SELECT `+postCols+` FROM posts WHERE `+inExpr(o.db.d, a, "id", ids, false), a.vals...)
	if err != nil {
		return nil, o.db.fail("get posts", err)
	}
	for _, p := range posts {
		out[p.ID] = p
	}
	return out, nil
}

// visibilityExpr turns v into a condition on the posts table alias t
// (columns status and author).
func visibilityExpr(d Dialect, a *Args, t string, v *store.Visibility) string {
	var alts []string
	if len(v.Public) > 0 {
		alts = append(alts, inExpr(d, a, t+"status", v.Public, false))
	}
	if v.Owner != 0 && len(v.OwnStatuses) > 0 {
		alts = append(alts, `(`+t+`author = `+a.Add(v.Owner)+` AND `+inExpr(d, a, t+"status", v.OwnStatuses, false)+`)`)
	}
	if len(v.OthersStatuses) > 0 {
		alts = append(alts, inExpr(d, a, t+"status", v.OthersStatuses, false))
	}
	if len(alts) == 0 {
		return `FALSE`
	}
	return "(" + strings.Join(alts, " OR ") + ")"
}

// postWhere turns q's filters into a WHERE clause.
func (db *DB) postWhere(q *store.PostQuery, a *Args) *cond {
	return db.postFilter(q, a, true)
}

// postFilter is postWhere; seek says whether the search may look posts up
// by the ids the full-text index finds (Dialect.PostSearch).
func (db *DB) postFilter(q *store.PostQuery, a *Args, seek bool) *cond {
	return db.postFilterTerms(q, a, seek, false)
}

// postFilterTerms is postFilter; termSeek says whether the term filters
// look posts up by the term's posts (termFilterCond).
func (db *DB) postFilterTerms(q *store.PostQuery, a *Args, seek, termSeek bool) *cond {
	c := db.newCond(a)
	if len(q.Types) > 0 {
		inList(c, "type", q.Types, false)
	}
	if len(q.Statuses) > 0 {
		inList(c, "status", q.Statuses, false)
	}
	if v := q.Visibility; v != nil {
		c.add(visibilityExpr(db.d, a, "", v))
	}
	if strings.TrimSpace(q.Search) != "" {
		searchCond(db.d, c, a, q, seek)
	}
	if q.After != nil {
		c.add(`date > ` + a.Add(db.d.Time(*q.After)))
	}
	if q.Before != nil {
		c.add(`date < ` + a.Add(db.d.Time(*q.Before)))
	}
	if len(q.Authors) > 0 {
		inList(c, "author", q.Authors, false)
	}
	if len(q.AuthorExclude) > 0 {
		inList(c, "author", q.AuthorExclude, true)
	}
	if len(q.Include) > 0 {
		inList(c, "id", q.Include, false)
	}
	if len(q.Exclude) > 0 {
		inList(c, "id", q.Exclude, true)
	}
	if q.ParentsSet {
		if len(q.Parents) == 0 {
			c.add(`FALSE`)
		} else {
			inList(c, "parent", q.Parents, false)
		}
	}
	if len(q.ParentExclude) > 0 {
		inList(c, "parent", q.ParentExclude, true)
	}
	if len(q.Slugs) > 0 {
		inList(c, "slug", q.Slugs, false)
	}
	if q.MenuOrder != nil {
		c.add(`menu_order = ` + a.Add(*q.MenuOrder))
	}
	if len(q.MimeTypes) > 0 {
		inList(c, "mime_type", q.MimeTypes, false)
	}
	if len(q.MimePrefixes) > 0 {
		var alts []string
		for _, p := range q.MimePrefixes {
			alts = append(alts, `mime_type LIKE `+a.Add(LikeEscape(p)+"%")+` ESCAPE '\'`)
		}
		c.add("(" + strings.Join(alts, " OR ") + ")")
	}
	if q.Year > 0 {
		c.add(db.d.DatePart(a, "date", "year", q.Year))
	}
	if q.Month > 0 {
		c.add(db.d.DatePart(a, "date", "month", q.Month))
	}
	if q.Day > 0 {
		c.add(db.d.DatePart(a, "date", "day", q.Day))
	}
	for _, f := range q.Terms {
		termFilterCond(c, f, termSeek)
	}
	parentVisibilityCond(c, q)
	return c
}

// searchCond adds q.Search's condition: every word of the search begins a
// word of the post's title, excerpt or content (the full-text index finds
// them), and a password-protected post the caller may not read matches on
// its title alone, so that search cannot reveal its text
// (store.PostQuery.Search). A search without any word (only punctuation)
// matches nothing.
func searchCond(d Dialect, c *cond, a *Args, q *store.PostQuery, seek bool) {
	sq := parseSearch(q.Search)
	words := sq.words
	if sq.plain() {
		if len(words) == 0 {
			c.add(`FALSE`)
			return
		}
		c.add(d.PostSearch(a, words, seek))
		c.add(searchReadable(d, a, q, words))
		return
	}
	// Phrases and excluded terms: a post the caller may read is checked
	// on its text, any other on its title alone, excluded terms too, so
	// that leaving a post out never tells what its hidden text holds.
	var text, title []string
	if len(words) > 0 {
		c.add(d.PostSearch(a, words, seek))
		title = append(title, d.TitleSearch(a, "title", words))
	}
	for _, ex := range sq.exclude {
		text = append(text, `NOT `+d.PostSearch(a, ex, false))
		title = append(title, `NOT `+d.TitleSearch(a, "title", ex))
	}
	for _, ph := range sq.phrases {
		text = append(text, d.PhraseSearch(a, ph, "title", "excerpt", "content"))
		title = append(title, d.PhraseSearch(a, ph, "title"))
	}
	readable := searchOpen(d, a, q)
	c.add(`((` + readable + `) AND ` + strings.Join(text, ` AND `) + ` OR NOT (` + readable + `) AND ` + strings.Join(title, ` AND `) + `)`)
}

// searchOpen returns the condition that the caller may read a post's
// text: it has no password, or the caller sent it, or may read it anyway.
func searchOpen(d Dialect, a *Args, q *store.PostQuery) string {
	// posts_protected, a partial index, lists the protected posts: the
	// others pass without reading their row.
	open := `posts.id NOT IN (SELECT pp.id FROM posts pp WHERE pp.password <> '')`
	if q.SearchPassword != "" {
		open += ` OR password = ` + a.Add(q.SearchPassword)
	}
	if q.SearchProtected != nil {
		open += ` OR ` + visibilityExpr(d, a, "", q.SearchProtected)
	}
	return open
}

// searchReadable returns the condition that a post matching a search's
// words in its text may be listed: it has no password, or the caller may
// read it, or its title alone matches.
func searchReadable(d Dialect, a *Args, q *store.PostQuery, words []string) string {
	return `(` + searchOpen(d, a, q) + ` OR ` + d.TitleSearch(a, "title", words) + `)`
}

// postOrder returns the ORDER BY clause for q; ties break on id in the
// same direction.
func (db *DB) postOrder(q *store.PostQuery, a *Args) string {
	dir := orderDir(q.Order, "DESC")
	var by string
	switch q.OrderBy {
	case "id":
		by = "id " + dir
	case "include":
		if len(q.Include) == 0 {
			by = "date " + dir + ", id " + dir
			break
		}
		// The given order, whatever Order says.
		by = db.d.Position(a, q.Include, "posts.id") + `, id ASC`
	case "title":
		by = db.d.FoldOrder("title") + " " + dir + ", id " + dir
	case "slug", "menu_order", "modified", "parent", "author":
		by = q.OrderBy + " " + dir + ", id " + dir
	default: // date
		by = "date " + dir + ", id " + dir
	}
	if q.StickyFirst {
		by = "sticky DESC, " + by
	}
	return " ORDER BY " + by
}

// ListPosts returns the posts q selects, in q's order, in one query.
func (o ops) ListPosts(ctx context.Context, q store.PostQuery) ([]*store.Post, error) {
	if relevanceSearch(&q) {
		return o.listRelevance(ctx, &q)
	}
	if monthSeekable(&q) {
		return o.monthSeek(ctx, &q)
	}
	if sq := parseSearch(q.Search); sq.plain() && len(sq.words) > 0 && !(q.OrderBy == "include" && len(q.Include) > 0) {
		words := sq.words
		a := &Args{}
		if guard := o.db.d.SearchMatches(a, words, o.db.searchFew); guard != "" {
			if windowable(o.db.d, &q) {
				return o.listSearchWindowed(ctx, &q, words)
			}
			return o.listSearch(ctx, &q, a, guard)
		}
		if out, ok, err := o.listSearchFirstWindow(ctx, &q, words); err != nil || ok {
			return out, err
		}
	}
	leave, err := o.deepPageTurn(ctx, &q)
	if err != nil {
		return nil, o.db.fail("list posts", err)
	}
	defer leave()
	if termPageable(&q) {
		return o.listByTerm(ctx, &q)
	}
	if statuses := pageStatuses(&q); statuses != nil {
		return o.listByStatus(ctx, &q, statuses)
	}
	a := &Args{}
	c := o.db.postWhere(&q, a)
	query := `SELECT ` + o.cols() + ` FROM posts` + c.where() + o.db.postOrder(&q, a) + o.db.limitClause(q.Limit, q.Offset, a)
	var out []*store.Post
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}

// deepGated is the offset past which a page of posts that its month does
// not find takes a turn with the search counts (deepPageTurn).
const deepGated = 5000

// deepPageTurn waits for a turn with the search counts (the gate of
// SearchCountSlots) for a deep page that the month of its first post
// does not find (monthSeek: pages in date order of a type, its statuses
// and a visibility): every other order (title, slug, author, ...) and
// every other filter (an author, a term, a date range) skips its offset
// in an index, and most of them read each post skipped for what the index
// lacks. At a million posts on PostgreSQL a title page 20,000 deep took
// 4 s; a client asking for many such pages kept every CPU busy. Taking
// turns, such pages slow each other (and the costly searches) alone. A
// page at a lower offset, or read in a write transaction, waits for
// nothing.
func (o ops) deepPageTurn(ctx context.Context, q *store.PostQuery) (leave func(), err error) {
	return o.costlyTurn(ctx, q.Offset > o.db.deepGated)
}

// adaptiveMatches is where listSearch changes plans: a search matching at
// most this many posts looks them up by id, one matching more walks the
// order's index and checks each post against the full-text index.
const adaptiveMatches = 2000

// listSearch lists a search page in one statement that holds both plans,
// each guarded by the number of posts the words match (counted up to
// adaptiveMatches + 1), for a dialect whose planner cannot tell a rare word
// from a common one: looking up a few thousand matches and sorting them is
// cheap, but sorting most of the site is not, while walking the order's
// index until a page is full is cheap for a common word and reads the
// whole index for a rare one.
func (o ops) listSearch(ctx context.Context, q *store.PostQuery, a *Args, guard string) ([]*store.Post, error) {
	// The guard goes in each branch's LIMIT, evaluated once before the
	// branch runs: a branch whose LIMIT is 0 reads nothing.
	limit := int64(q.Limit)
	if limit <= 0 {
		limit = math.MaxInt64
	}
	branch := func(seek bool, test string) string {
		c := o.db.postFilter(q, a, seek)
		return `SELECT * FROM (SELECT ` + o.cols() + ` FROM posts` + c.where() + o.db.postOrder(q, a) +
			` LIMIT CASE WHEN (` + guard + `) ` + test + ` THEN ` + a.Add(limit) + ` ELSE 0 END OFFSET ` +
			a.Add(int64(max(q.Offset, 0))) + `)`
	}
	query := branch(true, `<= `+strconv.Itoa(o.db.searchFew)) + ` UNION ALL ` +
		branch(false, `> `+strconv.Itoa(o.db.searchFew)) + o.db.postOrder(q, a)
	var out []*store.Post
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("list posts", err)
	}
	return out, nil
}

// CountPosts counts the posts q selects, ignoring its order and page.
//
// A query on type, status and visibility alone is answered from
// post_counts, one that also filters on a single term from
// term_post_counts, and one that also filters on a single author from
// author_post_counts, which triggers keep exact, so that its cost does
// not grow with the number of posts.
func (o ops) CountPosts(ctx context.Context, q store.PostQuery) (int64, error) {
	if countsOnly(&q) || termCountable(&q) || authorCountable(&q) {
		return o.countFromCounts(ctx, &q)
	}
	if n, ok, err := o.countSearch(ctx, &q); ok {
		return n, err
	}
	if n, ok, err := o.countCommonSearch(ctx, &q); ok {
		return n, err
	}
	leave, err := o.costlyTurn(ctx, strings.TrimSpace(q.Search) != "")
	if err != nil {
		return 0, o.db.fail("count posts", err)
	}
	defer leave()
	a := &Args{}
	// A count visits each post of the terms it filters on, not each post
	// of the type.
	c := o.db.postFilterTerms(&q, a, true, true)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM posts`+c.where(), a.vals...).Scan(&n); err != nil {
		return 0, o.db.fail("count posts", err)
	}
	return n, nil
}

// InsertPost stores p and sets p.ID.
func (o ops) InsertPost(ctx context.Context, p *store.Post) error {
	if p.ID != 0 {
		if !o.takeReserved(ctx, p.ID) {
			return o.db.errorf("insert post: id is %d, want 0 or one ReservePostID handed out", p.ID)
		}
		return o.writeTx(ctx, false, func(q querier) (bool, error) {
			a := &Args{vals: append([]any{p.ID}, o.db.postArgs(p)...)}
			values := marks(1, len(a.vals))
			st := Stmt{Query: o.db.searchRowFirst(a, p) + `INSERT INTO posts (id, ` + postInsertCols + `) VALUES (` + values + `)`, Args: a.vals,
				Wrap: func(err error) error { return o.db.conflict(err, "insert post") }}
			// Nothing is read back: where the transaction can hold the
			// insert, it goes with the next statement (a new post's
			// terms, or the commit), in its round trip.
			if d, ok := q.c.(Deferrer); ok {
				q.db.stmts.Add(1)
				if err := d.Defer(st); err != nil {
					return false, o.db.conflict(err, "insert post")
				}
				return true, nil
			}
			if _, err := q.exec(ctx, st.Query, st.Args...); err != nil {
				return false, o.db.conflict(err, "insert post")
			}
			return true, nil
		})
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		id, err := q.insert(ctx, "posts", postInsertCols, o.db.postArgs(p)...)
		if err != nil {
			return false, o.db.conflict(err, "insert post")
		}
		p.ID = id
		return true, nil
	})
}

// searchRowFirst returns, where the dialect is a PostSearchLoader and the
// database splits post p's text as Go does (splitAlike), the part of the
// statement inserting p that writes p's index row first, from the words
// Go splits, with its parameters added to a; "" otherwise. The index
// trigger then leaves p alone: splitting a post's text is most of what the
// database spends on its insert (a regular-expression function), and Go
// does it many times faster. p.ID must be set.
func (db *DB) searchRowFirst(a *Args, p *store.Post) string {
	l, ok := db.d.(PostSearchLoader)
	if !ok || !splitAlike(p.Title, p.Excerpt, p.Content) {
		return ""
	}
	var words postWords
	return l.PostSearchFirst(a, p.ID, words.Set(p.Title, p.Excerpt, p.Content))
}

// ReservePostID takes a new id from the posts' sequence where ids come
// from one (IDReserver), in one query, or from the counter a write
// transaction moves on (CounterIDReserver); 0 elsewhere
// (store.PostIDReserver).
func (o ops) ReservePostID(ctx context.Context) (int64, error) {
	var id int64
	switch r := o.db.d.(type) {
	case IDReserver:
		if t := o.bound(ctx); t != nil && t.nextIDDone != nil {
			// Asked for ahead: still held when no statement went since.
			if !t.nextIDDone.Done {
				if err := t.tx.(Prefetcher).Flush(ctx); err != nil {
					return 0, o.db.fail("reserve post id", err)
				}
			}
			if t.nextIDDone.Done {
				id, t.nextID, t.nextIDDone = t.nextID, 0, nil
				break
			}
		}
		a := &Args{}
		if err := o.reader().queryRow(ctx, r.ReserveIDs(a, "posts", 1), a.vals...).Scan(&id); err != nil {
			return 0, o.db.fail("reserve post id", err)
		}
	case CounterIDReserver:
		next, first := r.ReserveIDQueries("posts")
		err := o.writeTx(ctx, false, func(q querier) (bool, error) {
			err := q.queryRow(ctx, next).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) { // no counter yet
				err = q.queryRow(ctx, first).Scan(&id)
			}
			return false, err
		})
		if err != nil {
			return 0, o.db.fail("reserve post id", err)
		}
	default:
		return 0, nil
	}
	if t := o.bound(ctx); t != nil {
		t.reserved = append(t.reserved, id)
	} else {
		o.db.reserved.Store(id, struct{}{})
	}
	return id, nil
}

// PrefetchPostID asks for a new post id with the write transaction's next
// statement where ids come from a sequence and the transaction sends
// statements together (Prefetcher); ReservePostID then hands it out
// without a round trip of its own (store.PostIDPrefetcher). Like the
// reservation itself it counts as a statement. An id asked for and not
// handed out is a gap, as a rolled-back insert leaves.
func (o ops) PrefetchPostID(ctx context.Context) error {
	r, ok := o.db.d.(IDReserver)
	t := o.bound(ctx)
	if !ok || t == nil || !t.write {
		return nil
	}
	p, ok := t.tx.(Prefetcher)
	if !ok {
		return nil
	}
	a := &Args{}
	o.db.stmts.Add(1)
	done, err := p.Prefetch(Stmt{Query: r.ReserveIDs(a, "posts", 1), Args: a.vals}, &t.nextID)
	if err != nil {
		return o.db.fail("reserve post id", err)
	}
	t.nextIDDone = done
	return nil
}

// bound returns the transaction o is bound to or ctx carries, or nil.
func (o ops) bound(ctx context.Context) *txState {
	if o.tx != nil {
		return o.tx
	}
	if t := o.db.joined(ctx); t != nil {
		return t.tx
	}
	return nil
}

// takeReserved reports whether ReservePostID handed out id (in the
// transaction o is bound to, or outside any), and forgets it.
func (o ops) takeReserved(ctx context.Context, id int64) bool {
	if t := o.bound(ctx); t != nil {
		if i := slices.Index(t.reserved, id); i >= 0 {
			t.reserved = slices.Delete(t.reserved, i, i+1)
			return true
		}
	}
	_, ok := o.db.reserved.LoadAndDelete(id)
	return ok
}

// UpdatePost writes every column of p but comment_count, which only the
// comment writes change (keeping the counts of its terms right);
// store.ErrNotFound when p.ID does not exist.
func (o ops) UpdatePost(ctx context.Context, p *store.Post) error {
	defer o.freeingSlugs(ctx)()
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := o.db.lockRows(ctx, q, "posts", []int64{p.ID}, false); err != nil {
			return false, err
		}
		if err := o.db.countPostStatusChange(ctx, q, p.ID, p.Status); err != nil {
			return false, err
		}
		res, err := q.exec(ctx, `UPDATE posts SET type = $1, status = $2, author = $3, parent = $4,
			menu_order = $5, title = $6, content = $7, excerpt = $8, slug = $9, password = $10,
			guid = $11, date = $12, date_gmt = $13, modified = $14, modified_gmt = $15,
			comment_status = $16, ping_status = $17, sticky = $18, format = $19, template = $20,
			featured_media = $21, mime_type = $22, pre_trash_status = $23
			WHERE id = $24`, o.db.postUpdateArgs(p)...)
		if err != nil {
			return false, o.db.conflict(err, "update post")
		}
		return o.db.affected(res, fmt.Sprintf("post %d", p.ID))
	})
}

// DeletePost removes a post (its term relationships and meta go with it,
// and its terms' counts are kept right); store.ErrNotFound when it does not
// exist.
func (o ops) DeletePost(ctx context.Context, id int64) error {
	defer o.freeingSlugs(ctx)()
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := o.db.lockRows(ctx, q, "posts", []int64{id}, false); err != nil {
			return false, err
		}
		if err := o.db.countPostDelete(ctx, q, id); err != nil {
			return false, err
		}
		res, err := q.exec(ctx, `DELETE FROM posts WHERE id = $1`, id)
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("delete post %d", id), err)
		}
		return o.db.affected(res, fmt.Sprintf("post %d", id))
	})
}

// slugHolders adds the conditions of a post whose slug counts as taken:
// not exceptID (none when it is not a post's id, as for a post not yet
// stored), not a draft, of one of types (any when empty), under parent
// when parent >= 0. Without the id the conditions are all columns of
// the slug indexes, which PostgreSQL can then answer from the index
// alone instead of fetching each taken slug's row.
func slugHolders(c *cond, a *Args, types []string, parent, exceptID int64) {
	if exceptID > 0 {
		c.add(`id <> ` + a.Add(exceptID))
	}
	c.add(`status NOT IN ('draft', 'pending', 'auto-draft')`)
	if len(types) > 0 {
		inList(c, "type", types, false)
	}
	if parent >= 0 {
		c.add(`parent = ` + a.Add(parent))
	}
}

// SlugsTaken returns which of slugs another visible post of one of types
// (any type when empty) uses, under parent when parent >= 0, in one query.
func (o ops) SlugsTaken(ctx context.Context, slugs []string, types []string, parent int64, exceptID int64) (map[string]bool, error) {
	out := map[string]bool{}
	if len(slugs) == 0 {
		return out, nil
	}
	a := &Args{}
	c := o.db.newCond(a)
	inList(c, "slug", slugs, false)
	slugHolders(c, a, types, parent, exceptID)
	err := o.reader().query(ctx, func(rows Rows) error {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		out[s] = true
		return nil
	}, `SELECT DISTINCT slug FROM posts`+c.where(), a.vals...)
	if err != nil {
		return nil, o.db.fail("slugs taken", err)
	}
	return out, nil
}

// slugSuffixRows is how many taken suffixes FreeSlug reads per query.
const slugSuffixRows = 64

// FreeSlug returns base when no other visible post of one of types (any
// type when empty), under parent when parent >= 0, uses it and it is not
// reserved, else base-n for the least n >= 2 that none uses. The taken
// suffixes are read in order from the index on (type, length(slug), slug,
// parent, status), which holds the suffixes of one length in numeric
// order: one range per length, slugSuffixRows at a time, up to the first
// gap. The first query also asks for base itself.
//
// A title used thousands of times has thousands of suffixes below its
// first gap. For a new post (exceptID 0) in a write transaction, the
// store therefore remembers, once the transaction has committed, the
// suffix it found free (slugHints): every suffix below it was taken then,
// and the next new post with that base reads from there. Only an update
// or delete of a post can free a suffix, and each one forgets what is
// remembered (in this process: a post deleted by another process leaves
// its suffix unused until this one writes a post or restarts; the slugs
// stay unique either way). What a process remembers it also writes to
// slug_hints, every slugSuffixRows suffixes, in the create's
// transaction, where a fresh process (after a restart, or another node)
// finds it with its first query of a base that has that many suffixes;
// the table's triggers forget a base's hint in every transaction that can
// free one of its suffixes (migration 0027 on SQLite, 0029 on
// PostgreSQL). A post deleted while another of its base is being
// created, on another connection, can still leave its suffix unused.
//
// Where write transactions run one at a time (Conns without KeyLocker:
// SQLite's single writer), a write transaction whose process remembers
// no suffix of base first asks only whether base itself is taken
// (SlugsTaken of base alone): most posts' bases are free, and the one lookup costs a
// fraction of the whole query in the turn that every write waits for.
// A base found taken before (a remembered suffix) goes to the whole
// query at once. Elsewhere a taken base would cost a second round trip,
// and the whole query asks for base itself.
func (o ops) FreeSlug(ctx context.Context, base string, types []string, parent, exceptID int64, reserved bool) (string, error) {
	key := slugHintKey(base, types, parent)
	self := true // the next query asks for base itself
	if _, keyed := o.db.c.(KeyLocker); !keyed && !reserved && o.tx != nil && o.tx.write {
		if _, known := o.db.slugHints.get(key); !known {
			taken, err := o.SlugsTaken(ctx, []string{base}, types, parent, exceptID)
			if err != nil {
				return "", err
			}
			if !taken[base] {
				return base, nil
			}
			self = false
		}
	}
	remember := exceptID == 0 && o.tx != nil && o.tx.write
	epoch := o.db.slugHints.epoch.Load()
	next := int64(2)
	// stored asks the first query for the base's slug_hints row too: a
	// new post's in a process that remembers nothing of the base.
	var hint slugHint
	stored := false
	var row slugHintRow // the base's slug_hints row
	if remember {
		var ok bool
		hint, ok = o.db.slugHints.get(key)
		stored = !ok
		next = max(next, hint.next)
		row = slugHintRow{base: base, types: strings.Join(types, ","), parent: parent, from: next}
	}
	baseLen := utf8.RuneCountInString(base)
	// Each query reads the length of next from next on and, when the
	// suffixes left of that length fit in what one query reads, the
	// length after it from its start: a gap just past a length's last
	// suffix (base-9, base-99) costs no second query, and a next in the
	// middle of its length reads nothing of the longer one.
	ranges := func(next int64) []slugRange {
		digits := len(strconv.FormatInt(next, 10))
		rs := []slugRange{{length: baseLen + 1 + digits, from: base + "-" + strconv.FormatInt(next, 10)}}
		if digits < 18 && pow10(digits)-next <= slugSuffixRows {
			rs = append(rs, slugRange{length: baseLen + 2 + digits, from: base + "-" + strconv.FormatInt(pow10(digits), 10)})
		}
		return rs
	}
	rs := ranges(next)
	for {
		var hintRow *slugHintRow
		if stored {
			hintRow = &row
		}
		selfTaken, read, storedNext, err := o.slugSuffixes(ctx, base, rs, next, self, hintRow, types, parent, exceptID)
		if err != nil {
			return "", err
		}
		if self && !selfTaken && !reserved {
			return base, nil
		}
		self = false
		if stored {
			stored = false
			hint = slugHint{next: storedNext, persisted: storedNext}
			if storedNext > next {
				next = storedNext
				rs = ranges(next) // what was read lies below the hint
				continue
			}
		}
		var more []slugRange // what is left of a length read only in part
		done := false
		for i, r := range read {
			end := pow10(rs[i].length - baseLen - 1) // the first number one digit longer
			gap := false
			for _, n := range r.taken {
				if n < next {
					continue
				}
				if n > next {
					gap = true
					break
				}
				next++
			}
			if gap {
				done = true
				break
			}
			if r.rows == slugSuffixRows { // more of this length after the last one read
				more = []slugRange{{length: rs[i].length, from: r.last, after: true}}
				break
			}
			if next < end || rs[i].length-baseLen-1 >= 18 {
				done = true // the least free one of this length, or a suffix too long to count
				break
			}
		}
		if done {
			break
		}
		if more != nil {
			rs = more
		} else {
			rs = ranges(next) // every suffix of the lengths read is taken
		}
	}
	if remember {
		h := slugHint{next: next, persisted: hint.persisted}
		if next-h.persisted >= slugSuffixRows {
			if err := o.storeSlugHint(ctx, row, next); err != nil {
				return "", err
			}
			h.persisted = next
		}
		o.tx.after = append(o.tx.after, func() { o.db.slugHints.set(key, h, epoch) })
	}
	return base + "-" + strconv.FormatInt(next, 10), nil
}

// slugHintRow is the key of a slug_hints row; from is where the ranges
// asked along with it start (slugSuffixes).
type slugHintRow struct {
	base, types string
	parent      int64
	from        int64
}

// storeSlugHint writes to slug_hints that every suffix of the row's base
// below next is taken, unless it already tells of more. Like a lock, the
// statement goes with the next one where the transaction can send them
// together, and is not counted as a statement: it runs once in
// slugSuffixRows creates of a base.
func (o ops) storeSlugHint(ctx context.Context, k slugHintRow, next int64) error {
	a := &Args{}
	q := `INSERT INTO slug_hints (base, types, parent, next) VALUES (` + a.Add(k.base) + `, ` + a.Add(k.types) + `, ` +
		a.Add(k.parent) + `, ` + a.Add(next) + `) ON CONFLICT (base, types, parent) DO UPDATE SET next = excluded.next
		WHERE slug_hints.next < excluded.next`
	if err := execSoon(ctx, o.reader(), Stmt{Query: q, Args: a.vals}); err != nil {
		return o.db.fail("store slug hint", err)
	}
	return nil
}

// pow10 returns 10 to the power n (n < 19).
func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// slugRange is a range of the slugs base-N of one length.
type slugRange struct {
	length int    // in characters
	from   string // the first slug, or the last one read when after
	after  bool
}

// slugRead is what slugSuffixes read of one range: the suffixes in
// increasing order, how many slugs (not every slug of a range is a
// suffix) and the last one.
type slugRead struct {
	taken []int64
	rows  int
	last  string
}

// slugSuffixes reads, for each of ranges, at most slugSuffixRows slugs of
// other visible posts of one of types (under parent when parent >= 0)
// from the index on (type, length(slug), slug, parent, status) (migration
// 0024), with self whether one uses base itself, and with hint the next
// of the slug_hints row hint (0 when there is none), reading no range
// when it is past hint.from: one query. Where the database makes rows
// only as they are read (RowsOnDemand), the first range stops at its
// first suffix past the run of taken ones from next: that one tells the
// least free suffix, and the rest would be read for nothing (a title's
// suffixes are seldom all in a row, as an import's or a seeded site's).
func (o ops) slugSuffixes(ctx context.Context, base string, ranges []slugRange, next int64, self bool, hint *slugHintRow, types []string, parent, exceptID int64) (selfTaken bool, read []slugRead, hintNext int64, err error) {
	a := &Args{}
	var parts []string
	if self {
		sc := o.db.newCond(a)
		sc.add(`slug = ` + a.Add(base))
		slugHolders(sc, a, types, parent, exceptID)
		parts = append(parts, `SELECT -1 AS r, slug FROM posts`+sc.where())
	}
	if hint != nil {
		parts = append(parts, `SELECT -2 AS r, CAST(next AS TEXT) FROM slug_hints WHERE base = `+a.Add(hint.base)+
			` AND types = `+a.Add(hint.types)+` AND parent = `+a.Add(hint.parent))
	}
	for i, r := range ranges {
		c := o.db.newCond(a)
		c.add(`length(slug) = ` + a.Add(r.length))
		if r.after {
			c.add(`slug > ` + a.Add(r.from))
		} else {
			c.add(`slug >= ` + a.Add(r.from))
		}
		c.add(`slug < ` + a.Add(base+"-:"))
		slugHolders(c, a, types, parent, exceptID)
		if hint != nil {
			// Nothing below the hint is read (the next query reads from
			// it); the planner tests this once, before reading the index.
			c.add(`NOT EXISTS (SELECT 1 FROM slug_hints WHERE base = ` + a.Add(hint.base) + ` AND types = ` + a.Add(hint.types) +
				` AND parent = ` + a.Add(hint.parent) + ` AND next > ` + a.Add(hint.from) + `)`)
		}
		parts = append(parts, `SELECT `+strconv.Itoa(i)+` AS r, slug FROM (SELECT slug FROM posts`+c.where()+
			` ORDER BY slug LIMIT `+strconv.Itoa(slugSuffixRows)+`) AS s`+strconv.Itoa(i))
	}
	read = make([]slugRead, len(ranges))
	_, lazy := o.db.d.(RowsOnDemand)
	q := o.reader()
	// Where the planner would plan the query again for each run
	// (GenericPlanner), it is told not to around it, in the transaction:
	// two settings, not counted as statements (like the row locks of the
	// term counts), which cost less than the planning; each goes in the
	// round trip of the statement after it (execSoon).
	var off string
	if gp, ok := o.db.d.(GenericPlanner); ok && o.tx != nil {
		var on string
		on, off = gp.GenericPlans()
		if err := execSoon(ctx, q, Stmt{Query: on}); err != nil {
			return false, nil, 0, o.db.fail("slugs taken", err)
		}
	}
	err = q.query(ctx, func(rs Rows) error {
		var i int
		var s string
		if err := rs.Scan(&i, &s); err != nil {
			return err
		}
		switch i {
		case -1:
			selfTaken = true
			return nil
		case -2:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("slug hint %q: %w", s, err)
			}
			hintNext = n
			return nil
		}
		r := &read[i]
		r.rows++
		r.last = max(r.last, s)
		n, ok := slugSuffix(s, base)
		if !ok {
			return nil
		}
		r.taken = append(r.taken, n)
		if lazy && i == 0 && n >= next {
			if n > next {
				return errStopRows // next is free
			}
			next++
		}
		return nil
	}, strings.Join(parts, ` UNION ALL `), a.vals...)
	if err == nil && off != "" {
		err = execSoon(ctx, q, Stmt{Query: off})
	}
	if err != nil {
		return false, nil, 0, o.db.fail("slugs taken", err)
	}
	for i := range read {
		slices.Sort(read[i].taken)
	}
	return selfTaken, read, hintNext, nil
}

// slugHintKey is the key of base's hint for posts of types under parent.
func slugHintKey(base string, types []string, parent int64) string {
	return base + "\x00" + strings.Join(types, ",") + "\x00" + strconv.FormatInt(parent, 10)
}

// maxSlugHints bounds how many bases slugHints remembers.
const maxSlugHints = 4096

// slugHints remembers, per base, a suffix below which every suffix was
// taken (FreeSlug). epoch moves with every write that can free a slug (an
// update or delete of a post, as it runs and again as its transaction
// ends): a hint counts only when no such write came between the reading
// that found it and now.
type slugHints struct {
	epoch atomic.Int64
	mu    sync.Mutex
	m     map[string]slugHint
	at    int64 // the epoch m holds hints of
}

// slugHint is what slugHints remembers of a base: every suffix below next
// was taken, and slug_hints tells of those below persisted (0: of none).
type slugHint struct{ next, persisted int64 }

// get returns the hint of key, and false when there is none.
func (h *slugHints) get(key string) (slugHint, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.epoch.Load(); h.at != e {
		clear(h.m)
		h.at = e
	}
	v, ok := h.m[key]
	return v, ok
}

// set remembers v for key, found by a reading at epoch.
func (h *slugHints) set(key string, v slugHint, epoch int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.epoch.Load(); e != epoch {
		return // a post was updated or deleted since: v may be too high
	}
	if h.m == nil || h.at != epoch || len(h.m) >= maxSlugHints {
		h.m = map[string]slugHint{}
		h.at = epoch
	}
	old := h.m[key]
	h.m[key] = slugHint{next: max(old.next, v.next), persisted: max(old.persisted, v.persisted)}
}

// freeingSlugs notes a write that can free a slug (an update or delete of
// a post): the hints end now and again as it ends, or, inside a
// transaction, as the transaction commits or rolls back (DB.Tx). Call the
// function it returns when the write returns.
func (o ops) freeingSlugs(ctx context.Context) func() {
	o.db.slugHints.epoch.Add(1)
	t := o.tx
	if t == nil {
		if j := o.db.joined(ctx); j != nil {
			t = j.tx
		}
	}
	if t != nil {
		t.freesSlugs = true
		return func() {}
	}
	return func() { o.db.slugHints.epoch.Add(1) }
}

// slugSuffix returns n when slug is base-n, n >= 2 in decimal without
// leading zeros.
func slugSuffix(slug, base string) (int64, bool) {
	digits, ok := strings.CutPrefix(slug, base+"-")
	if !ok || digits == "" || digits[0] == '0' || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(digits[i]-'0')
	}
	return n, n >= 2
}

// AuthorsWithPublished reports which authors have a published post of
// types (any type when empty), one index probe per author; every asked
// author is in the map.
func (o ops) AuthorsWithPublished(ctx context.Context, authors []int64, types []string) (map[int64]bool, error) {
	out := make(map[int64]bool, len(authors))
	if len(authors) == 0 {
		return out, nil
	}
	for _, a := range authors {
		out[a] = false
	}
	a := &Args{}
	query := `SELECT a.value FROM ` + o.db.d.Values(a, authors, "a") +
		` WHERE EXISTS (SELECT 1 FROM posts WHERE posts.author = a.value AND posts.status = 'publish'`
	if len(types) > 0 {
		query += ` AND ` + inExpr(o.db.d, a, "posts.type", types, false)
	}
	err := o.reader().query(ctx, func(rows Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	}, query+`)`, a.vals...)
	if err != nil {
		return nil, o.db.fail("authors with published posts", err)
	}
	return out, nil
}
