package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// postCols lists the posts columns in scanPost's order.
const postCols = `id, type, status, author, parent, menu_order, title, content, excerpt, slug,
	password, guid, date, date_gmt, modified, modified_gmt, comment_status, ping_status,
	sticky, format, template, featured_media, mime_type, comment_count, pre_trash_status`

type scanner interface {
	Scan(dest ...any) error
}

func scanPost(s scanner) (*store.Post, error) {
	var p store.Post
	var date, dateGMT, mod, modGMT string
	if err := s.Scan(&p.ID, &p.Type, &p.Status, &p.Author, &p.Parent, &p.MenuOrder, &p.Title,
		&p.Content, &p.Excerpt, &p.Slug, &p.Password, &p.GUID, &date, &dateGMT, &mod, &modGMT,
		&p.CommentStatus, &p.PingStatus, &p.Sticky, &p.Format, &p.Template, &p.FeaturedMedia,
		&p.MimeType, &p.CommentCount, &p.PreTrashStatus); err != nil {
		return nil, err
	}
	var err error
	if p.Date, err = parseTime(date); err != nil {
		return nil, err
	}
	if p.DateGMT, err = parseTime(dateGMT); err != nil {
		return nil, err
	}
	if p.Modified, err = parseTime(mod); err != nil {
		return nil, err
	}
	if p.ModifiedGMT, err = parseTime(modGMT); err != nil {
		return nil, err
	}
	return &p, nil
}

// postArgs returns p's columns after id, in postCols order.
func postArgs(p *store.Post) []any {
	return []any{p.Type, p.Status, p.Author, p.Parent, p.MenuOrder, p.Title, p.Content,
		p.Excerpt, p.Slug, p.Password, p.GUID, fmtTime(p.Date), fmtTime(p.DateGMT),
		fmtTime(p.Modified), fmtTime(p.ModifiedGMT), p.CommentStatus, p.PingStatus, p.Sticky,
		p.Format, p.Template, p.FeaturedMedia, p.MimeType, p.CommentCount, p.PreTrashStatus}
}

// GetPost loads one post; store.ErrNotFound when there is none.
func (o ops) GetPost(ctx context.Context, id int64) (*store.Post, error) {
	row := o.reader().queryRow(ctx, `SELECT `+postCols+` FROM posts WHERE id = ?`, id)
	p, err := scanPost(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: post %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get post %d: %w", id, err)
	}
	return p, nil
}

// GetPosts loads the posts with the given ids in one query.
func (o ops) GetPosts(ctx context.Context, ids []int64) (map[int64]*store.Post, error) {
	out := make(map[int64]*store.Post, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := o.reader().query(ctx,
		`SELECT `+postCols+` FROM posts WHERE id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: get posts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: get posts: %w", err)
		}
		out[p.ID] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: get posts: %w", err)
	}
	return out, nil
}

// cond collects the WHERE conditions and arguments of one query.
type cond struct {
	parts []string
	args  []any
}

func (c *cond) add(sql string, args ...any) {
	c.parts = append(c.parts, sql)
	c.args = append(c.args, args...)
}

// inExpr returns "col IN list" (or NOT IN when not is true) and its one
// argument; a single element compares with = or <> so the planner sees a
// plain equality.
func inExpr[T int64 | string](col string, xs []T, not bool) (string, any) {
	switch {
	case len(xs) == 1 && !not:
		return col + ` = ?`, xs[0]
	case len(xs) == 1:
		return col + ` <> ?`, xs[0]
	case not:
		return col + ` NOT IN (SELECT value FROM json_each(?))`, jsonList(xs)
	default:
		return col + ` IN (SELECT value FROM json_each(?))`, jsonList(xs)
	}
}

// inList adds inExpr's condition to c.
func inList[T int64 | string](c *cond, col string, xs []T, not bool) {
	expr, arg := inExpr(col, xs, not)
	c.add(expr, arg)
}

func (c *cond) where() string {
	if len(c.parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(c.parts, " AND ")
}

// postWhere turns q's filters into a WHERE clause.
func postWhere(q *store.PostQuery) *cond {
	c := &cond{}
	if len(q.Types) > 0 {
		inList(c, "type", q.Types, false)
	}
	if len(q.Statuses) > 0 {
		inList(c, "status", q.Statuses, false)
	}
	if v := q.Visibility; v != nil {
		var args []any
		c.add(visibilityExpr(v, "", &args), args...)
	}
	if words := strings.Fields(q.Search); len(words) > 0 {
		// The text of a protected post is searched only for callers who
		// may read it (store.PostQuery.Search).
		open := `password = ''`
		var openArgs []any
		if q.SearchPassword != "" {
			open += ` OR password = ?`
			openArgs = append(openArgs, q.SearchPassword)
		}
		if q.SearchProtected != nil {
			open += ` OR ` + visibilityExpr(q.SearchProtected, "", &openArgs)
		}
		for _, w := range words {
			var args []any
			title := likeAny(w, []string{"title"}, &args)
			args = append(args, openArgs...)
			text := likeAny(w, []string{"excerpt", "content"}, &args)
			c.add(`(`+title+` OR ((`+open+`) AND `+text+`))`, args...)
		}
	}
	if q.After != nil {
		c.add(`date > ?`, fmtTime(*q.After))
	}
	if q.Before != nil {
		c.add(`date < ?`, fmtTime(*q.Before))
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
			c.add(`0`)
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
		c.add(`menu_order = ?`, *q.MenuOrder)
	}
	if len(q.MimeTypes) > 0 {
		inList(c, "mime_type", q.MimeTypes, false)
	}
	if len(q.MimePrefixes) > 0 {
		var alts []string
		var args []any
		for _, p := range q.MimePrefixes {
			alts = append(alts, `mime_type LIKE ? ESCAPE '\'`)
			args = append(args, likeEscape(p)+"%")
		}
		c.add("("+strings.Join(alts, " OR ")+")", args...)
	}
	if q.Year > 0 {
		from := time.Date(q.Year, 1, 1, 0, 0, 0, 0, time.UTC)
		c.add(`date >= ? AND date < ?`, fmtTime(from), fmtTime(from.AddDate(1, 0, 0)))
	}
	if q.Month > 0 {
		c.add(`substr(date, 6, 2) = ?`, twoDigits(q.Month))
	}
	if q.Day > 0 {
		c.add(`substr(date, 9, 2) = ?`, twoDigits(q.Day))
	}
	for _, f := range q.Terms {
		termFilterCond(c, f)
	}
	parentVisibilityCond(c, q)
	return c
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// postOrder returns the ORDER BY clause for q; ties break on id in the
// same direction.
func postOrder(q *store.PostQuery, args *[]any) string {
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
		by = `(SELECT MIN(key) FROM json_each(?) WHERE value = posts.id), id ASC`
		*args = append(*args, jsonList(q.Include))
	case "title":
		by = "title COLLATE NOCASE " + dir + ", id " + dir
	case "slug":
		by = "slug " + dir + ", id " + dir
	case "menu_order":
		by = "menu_order " + dir + ", id " + dir
	case "modified":
		by = "modified " + dir + ", id " + dir
	case "parent":
		by = "parent " + dir + ", id " + dir
	case "author":
		by = "author " + dir + ", id " + dir
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
	c := postWhere(&q)
	args := c.args
	query := `SELECT ` + postCols + ` FROM posts` + c.where() + postOrder(&q, &args) + limitClause(q.Limit, q.Offset, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list posts: %w", err)
	}
	defer rows.Close()
	var out []*store.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list posts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list posts: %w", err)
	}
	return out, nil
}

// CountPosts counts the posts q selects, ignoring its order and page.
func (o ops) CountPosts(ctx context.Context, q store.PostQuery) (int64, error) {
	c := postWhere(&q)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM posts`+c.where(), c.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count posts: %w", err)
	}
	return n, nil
}

// InsertPost stores p and sets p.ID.
func (o ops) InsertPost(ctx context.Context, p *store.Post) error {
	if p.ID != 0 {
		return fmt.Errorf("sqlite: insert post: id is %d, want 0", p.ID)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO posts (type, status, author, parent, menu_order, title,
			content, excerpt, slug, password, guid, date, date_gmt, modified, modified_gmt,
			comment_status, ping_status, sticky, format, template, featured_media, mime_type,
			comment_count, pre_trash_status)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, postArgs(p)...)
		if err != nil {
			return false, conflict(err, "insert post")
		}
		id, err := res.LastInsertId()
		if err != nil {
			return false, fmt.Errorf("sqlite: insert post: %w", err)
		}
		p.ID = id
		return true, nil
	})
}

// UpdatePost writes every column of p (keeping the counts of its terms
// right); store.ErrNotFound when p.ID does not exist.
func (o ops) UpdatePost(ctx context.Context, p *store.Post) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if err := countPostStatusChange(ctx, q, p.ID, p.Status); err != nil {
			return false, err
		}
		res, err := q.exec(ctx, `UPDATE posts SET type = ?, status = ?, author = ?, parent = ?,
			menu_order = ?, title = ?, content = ?, excerpt = ?, slug = ?, password = ?, guid = ?,
			date = ?, date_gmt = ?, modified = ?, modified_gmt = ?, comment_status = ?,
			ping_status = ?, sticky = ?, format = ?, template = ?, featured_media = ?,
			mime_type = ?, pre_trash_status = ?
			WHERE id = ?`, postUpdateArgs(p)...)
		if err != nil {
			return false, conflict(err, "update post")
		}
		return affected(res, fmt.Sprintf("post %d", p.ID))
	})
}

// DeletePost removes a post (its term relationships and meta go with it,
// and its terms' counts are kept right); store.ErrNotFound when it does not
// exist.
func (o ops) DeletePost(ctx context.Context, id int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if err := countPostDelete(ctx, q, id); err != nil {
			return false, err
		}
		res, err := q.exec(ctx, `DELETE FROM posts WHERE id = ?`, id)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete post %d: %w", id, err)
		}
		return affected(res, fmt.Sprintf("post %d", id))
	})
}

// affected reports a change when res touched a row and store.ErrNotFound
// when it touched none.
func affected(res sql.Result, what string) (bool, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if n == 0 {
		return false, fmt.Errorf("sqlite: %s: %w", what, store.ErrNotFound)
	}
	return true, nil
}

// SlugTaken reports whether another visible post of one of types (any type
// when empty) under parent (any parent when parent < 0) uses slug.
func (o ops) SlugTaken(ctx context.Context, slug string, types []string, parent int64, exceptID int64) (bool, error) {
	c := &cond{}
	c.add(`slug = ?`, slug)
	c.add(`id <> ?`, exceptID)
	c.add(`status NOT IN ('draft', 'pending', 'auto-draft')`)
	if len(types) > 0 {
		inList(c, "type", types, false)
	}
	if parent >= 0 {
		c.add(`parent = ?`, parent)
	}
	var taken bool
	if err := o.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM posts`+c.where()+`)`, c.args...).Scan(&taken); err != nil {
		return false, fmt.Errorf("sqlite: slug taken: %w", err)
	}
	return taken, nil
}

// AuthorsWithPublished reports which authors have a published post of
// types (any type when empty), one index seek per author; every asked
// author is in the map.
func (o ops) AuthorsWithPublished(ctx context.Context, authors []int64, types []string) (map[int64]bool, error) {
	out := make(map[int64]bool, len(authors))
	if len(authors) == 0 {
		return out, nil
	}
	for _, a := range authors {
		out[a] = false
	}
	query := `SELECT a.value FROM json_each(?) AS a WHERE EXISTS (SELECT 1 FROM posts WHERE posts.author = a.value AND posts.status = 'publish'`
	args := []any{jsonList(authors)}
	if len(types) > 0 {
		query += ` AND posts.type IN (SELECT value FROM json_each(?))`
		args = append(args, jsonList(types))
	}
	rows, err := o.reader().query(ctx, query+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: authors with published posts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a int64
		if err := rows.Scan(&a); err != nil {
			return nil, fmt.Errorf("sqlite: authors with published posts: %w", err)
		}
		out[a] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: authors with published posts: %w", err)
	}
	return out, nil
}
