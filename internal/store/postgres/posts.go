package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/folio-server/folio/internal/store"
)

// postCols lists the posts columns in scanPost's order.
const postCols = `id, type, status, author, parent, menu_order, title, content, excerpt, slug,
	password, guid, date, date_gmt, modified, modified_gmt, comment_status, ping_status,
	sticky, format, template, featured_media, mime_type, comment_count, pre_trash_status`

func scanPost(s pgx.Row) (*store.Post, error) {
	var p store.Post
	if err := s.Scan(&p.ID, &p.Type, &p.Status, &p.Author, &p.Parent, &p.MenuOrder, &p.Title,
		&p.Content, &p.Excerpt, &p.Slug, &p.Password, &p.GUID, &p.Date, &p.DateGMT, &p.Modified,
		&p.ModifiedGMT, &p.CommentStatus, &p.PingStatus, &p.Sticky, &p.Format, &p.Template,
		&p.FeaturedMedia, &p.MimeType, &p.CommentCount, &p.PreTrashStatus); err != nil {
		return nil, err
	}
	p.Date = readTime(p.Date)
	p.DateGMT = readTime(p.DateGMT)
	p.Modified = readTime(p.Modified)
	p.ModifiedGMT = readTime(p.ModifiedGMT)
	return &p, nil
}

// postArgs returns p's columns after id, in postCols order.
func postArgs(p *store.Post) []any {
	return []any{p.Type, p.Status, p.Author, p.Parent, p.MenuOrder, p.Title, p.Content,
		p.Excerpt, p.Slug, p.Password, p.GUID, pgTime(p.Date), pgTime(p.DateGMT),
		pgTime(p.Modified), pgTime(p.ModifiedGMT), p.CommentStatus, p.PingStatus, p.Sticky,
		p.Format, p.Template, p.FeaturedMedia, p.MimeType, p.CommentCount, p.PreTrashStatus}
}

// GetPost loads one post; store.ErrNotFound when there is none.
func (o ops) GetPost(ctx context.Context, id int64) (*store.Post, error) {
	p, err := scanPost(o.reader().queryRow(ctx, `SELECT `+postCols+` FROM posts WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: post %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fail(fmt.Sprintf("get post %d", id), err)
	}
	return p, nil
}

// GetPosts loads the posts with the given ids in one query.
func (o ops) GetPosts(ctx context.Context, ids []int64) (map[int64]*store.Post, error) {
	out := make(map[int64]*store.Post, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		p, err := scanPost(rows)
		if err != nil {
			return err
		}
		out[p.ID] = p
		return nil
	}, `SELECT `+postCols+` FROM posts WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fail("get posts", err)
	}
	return out, nil
}

// postWhere turns q's filters into a WHERE clause.
func postWhere(q *store.PostQuery, a *args) *cond {
	c := newCond(a)
	if len(q.Types) > 0 {
		inList(c, "type", q.Types, false)
	}
	if len(q.Statuses) > 0 {
		inList(c, "status", q.Statuses, false)
	}
	if v := q.Visibility; v != nil {
		c.add(visibilityExpr(v, "", a))
	}
	if words := strings.Fields(q.Search); len(words) > 0 {
		// The text of a protected post is searched only for callers who
		// may read it (store.PostQuery.Search).
		open := `password = ''`
		if q.SearchPassword != "" {
			open += ` OR password = ` + a.add(q.SearchPassword)
		}
		if q.SearchProtected != nil {
			open += ` OR ` + visibilityExpr(q.SearchProtected, "", a)
		}
		for _, w := range words {
			title := likeAny(w, []string{"title"}, a)
			text := likeAny(w, []string{"excerpt", "content"}, a)
			c.add(`(` + title + ` OR ((` + open + `) AND ` + text + `))`)
		}
	}
	if q.After != nil {
		c.add(`date > ` + a.add(pgTime(*q.After)))
	}
	if q.Before != nil {
		c.add(`date < ` + a.add(pgTime(*q.Before)))
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
		c.add(`menu_order = ` + a.add(*q.MenuOrder))
	}
	if len(q.MimeTypes) > 0 {
		inList(c, "mime_type", q.MimeTypes, false)
	}
	if len(q.MimePrefixes) > 0 {
		var alts []string
		for _, p := range q.MimePrefixes {
			alts = append(alts, `mime_type LIKE `+a.add(likeEscape(p)+"%")+` ESCAPE '\'`)
		}
		c.add("(" + strings.Join(alts, " OR ") + ")")
	}
	// The zero date never matches a year, month or day, as SQLite's
	// '0000-00-00 00:00:00' does not.
	if q.Year > 0 {
		from := time.Date(q.Year, 1, 1, 0, 0, 0, 0, time.UTC)
		c.add(`date >= ` + a.add(from) + ` AND date < ` + a.add(from.AddDate(1, 0, 0)) + ` AND date <> ` + zeroTS)
	}
	if q.Month > 0 {
		c.add(`date <> ` + zeroTS + ` AND EXTRACT(MONTH FROM date) = ` + a.add(int64(q.Month)))
	}
	if q.Day > 0 {
		c.add(`date <> ` + zeroTS + ` AND EXTRACT(DAY FROM date) = ` + a.add(int64(q.Day)))
	}
	for _, f := range q.Terms {
		termFilterCond(c, f)
	}
	parentVisibilityCond(c, q)
	return c
}

// postOrder returns the ORDER BY clause for q; ties break on id in the
// same direction.
func postOrder(q *store.PostQuery, a *args) string {
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
		by = `array_position(` + a.add(q.Include) + `::bigint[], posts.id), id ASC`
	case "title":
		by = `folio_nocase(title) COLLATE "C" ` + dir + ", id " + dir
	case "slug":
		by = `slug COLLATE "C" ` + dir + ", id " + dir
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
	a := &args{}
	c := postWhere(&q, a)
	query := `SELECT ` + postCols + ` FROM posts` + c.where() + postOrder(&q, a) + limitClause(q.Limit, q.Offset, a)
	var out []*store.Post
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		p, err := scanPost(rows)
		if err != nil {
			return err
		}
		out = append(out, p)
		return nil
	}, query, a.vals...)
	if err != nil {
		return nil, fail("list posts", err)
	}
	return out, nil
}

// CountPosts counts the posts q selects, ignoring its order and page.
func (o ops) CountPosts(ctx context.Context, q store.PostQuery) (int64, error) {
	a := &args{}
	c := postWhere(&q, a)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM posts`+c.where(), a.vals...).Scan(&n); err != nil {
		return 0, fail("count posts", err)
	}
	return n, nil
}

// nextID is the expression that takes the next id of table inside the
// inserting statement (see id_counters in the schema).
func nextID(table string) string {
	return `(UPDATE id_counters SET last = last + 1 WHERE name = '` + table + `' RETURNING last)`
}

// InsertPost stores p and sets p.ID.
func (o ops) InsertPost(ctx context.Context, p *store.Post) error {
	if p.ID != 0 {
		return fmt.Errorf("postgres: insert post: id is %d, want 0", p.ID)
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var id int64
		err := q.queryRow(ctx, `WITH n AS `+nextID("posts")+`
			INSERT INTO posts (id, type, status, author, parent, menu_order, title,
			content, excerpt, slug, password, guid, date, date_gmt, modified, modified_gmt,
			comment_status, ping_status, sticky, format, template, featured_media, mime_type,
			comment_count, pre_trash_status)
			VALUES ((SELECT last FROM n), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
			$14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24) RETURNING id`, postArgs(p)...).Scan(&id)
		if err != nil {
			return false, conflict(err, "insert post")
		}
		p.ID = id
		return true, nil
	})
}

// UpdatePost writes every column of p but comment_count, which only the
// comment writes change (keeping the counts of its terms right);
// store.ErrNotFound when p.ID does not exist.
func (o ops) UpdatePost(ctx context.Context, p *store.Post) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if err := countPostStatusChange(ctx, q, p.ID, p.Status); err != nil {
			return false, err
		}
		tag, err := q.exec(ctx, `UPDATE posts SET type = $1, status = $2, author = $3, parent = $4,
			menu_order = $5, title = $6, content = $7, excerpt = $8, slug = $9, password = $10,
			guid = $11, date = $12, date_gmt = $13, modified = $14, modified_gmt = $15,
			comment_status = $16, ping_status = $17, sticky = $18, format = $19, template = $20,
			featured_media = $21, mime_type = $22, pre_trash_status = $23
			WHERE id = $24`, postUpdateArgs(p)...)
		if err != nil {
			return false, conflict(err, "update post")
		}
		return affected(tag, fmt.Sprintf("post %d", p.ID))
	})
}

// DeletePost removes a post (its term relationships and meta go with it,
// and its terms' counts are kept right); store.ErrNotFound when it does not
// exist.
func (o ops) DeletePost(ctx context.Context, id int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if err := countPostDelete(ctx, q, id); err != nil {
			return false, err
		}
		tag, err := q.exec(ctx, `DELETE FROM posts WHERE id = $1`, id)
		if err != nil {
			return false, fail(fmt.Sprintf("delete post %d", id), err)
		}
		return affected(tag, fmt.Sprintf("post %d", id))
	})
}

// affected reports a change when tag touched a row and store.ErrNotFound
// when it touched none.
func affected(tag pgconn.CommandTag, what string) (bool, error) {
	if tag.RowsAffected() == 0 {
		return false, fmt.Errorf("postgres: %s: %w", what, store.ErrNotFound)
	}
	return true, nil
}

// SlugTaken reports whether another visible post of one of types (any type
// when empty) under parent (any parent when parent < 0) uses slug.
func (o ops) SlugTaken(ctx context.Context, slug string, types []string, parent int64, exceptID int64) (bool, error) {
	a := &args{}
	c := newCond(a)
	c.add(`slug = ` + a.add(slug))
	c.add(`id <> ` + a.add(exceptID))
	c.add(`status NOT IN ('draft', 'pending', 'auto-draft')`)
	if len(types) > 0 {
		inList(c, "type", types, false)
	}
	if parent >= 0 {
		c.add(`parent = ` + a.add(parent))
	}
	var taken bool
	if err := o.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM posts`+c.where()+`)`, a.vals...).Scan(&taken); err != nil {
		return false, fail("slug taken", err)
	}
	return taken, nil
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
	query := `SELECT a FROM unnest($1::bigint[]) AS a WHERE EXISTS (SELECT 1 FROM posts WHERE posts.author = a AND posts.status = 'publish'`
	vals := []any{authors}
	if len(types) > 0 {
		query += ` AND posts.type = ANY($2::text[])`
		vals = append(vals, types)
	}
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	}, query+`)`, vals...)
	if err != nil {
		return nil, fail("authors with published posts", err)
	}
	return out, nil
}
