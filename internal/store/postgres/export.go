package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

var (
	_ store.Exporter    = (*DB)(nil)
	_ store.Exporter    = (*txStore)(nil)
	_ store.Snapshotter = (*DB)(nil)
)

// ReadSnapshot runs fn in one REPEATABLE READ, READ ONLY transaction: every
// read sees the snapshot taken by the transaction's first statement (made
// before fn runs), and writes fail. It takes no lock, so writers on every
// node go on; while it is open, VACUUM cannot remove row versions the
// snapshot may still see.
func (db *DB) ReadSnapshot(ctx context.Context, fn func(store.Store) error) error {
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fail("begin snapshot", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // nothing to commit
	t := &txStore{}
	t.ops = ops{db: db, tx: &txState{tx: tx}}
	if _, err := t.version(ctx); err != nil {
		return fail("begin snapshot", err)
	}
	return fn(t)
}

// ExportPosts returns one batch of posts in id order.
func (o ops) ExportPosts(ctx context.Context, q store.ExportPostQuery) ([]*store.Post, error) {
	a := &args{}
	c := newCond(a)
	c.add(`id > ` + a.add(q.After))
	if len(q.Types) > 0 {
		inList(c, `type`, q.Types, false)
	}
	if len(q.SkipStatuses) > 0 {
		inList(c, `status`, q.SkipStatuses, true)
	}
	query := `SELECT ` + postCols + ` FROM posts` + c.where() + ` ORDER BY id` + limitClause(q.Limit, 0, a)
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
		return nil, fail("export posts", err)
	}
	return out, nil
}

// ExportTerms returns one batch of the terms of a taxonomy in id order.
func (o ops) ExportTerms(ctx context.Context, taxonomy string, after int64, limit int) ([]*store.Term, error) {
	a := &args{}
	query := `SELECT ` + termCols + ` FROM terms WHERE taxonomy = ` + a.add(taxonomy) +
		` AND id > ` + a.add(after) + ` ORDER BY id` + limitClause(limit, 0, a)
	terms, err := o.collectTerms(ctx, query, a.vals...)
	if err != nil {
		return nil, fail("export terms", err)
	}
	return terms, nil
}

// ExportUsers returns one batch of users in id order.
func (o ops) ExportUsers(ctx context.Context, after int64, limit int) ([]*store.User, error) {
	a := &args{}
	query := userSelect + ` WHERE u.id > ` + a.add(after) + ` ORDER BY u.id` + limitClause(limit, 0, a)
	users, err := o.collectUsers(ctx, query, a.vals...)
	if err != nil {
		return nil, fail("export users", err)
	}
	return users, nil
}

// extraScanner scans a row of known columns followed by one more column
// into extra.
type extraScanner struct {
	s     pgx.Row
	extra any
}

func (e extraScanner) Scan(dest ...any) error {
	return e.s.Scan(append(dest, e.extra)...)
}

// ExportComments returns one batch of the comments of some posts in
// (post id, id) order.
func (o ops) ExportComments(ctx context.Context, q store.ExportCommentQuery) ([]*store.ExportedComment, error) {
	if len(q.Posts) == 0 {
		return nil, nil
	}
	a := &args{}
	c := newCond(a)
	inList(c, `post_id`, q.Posts, false)
	c.add(`(post_id, id) > (` + a.add(q.AfterPost) + `, ` + a.add(q.AfterID) + `)`)
	if len(q.Approved) > 0 {
		inList(c, `approved`, q.Approved, false)
	}
	if len(q.SkipApproved) > 0 {
		inList(c, `approved`, q.SkipApproved, true)
	}
	query := `SELECT ` + commentCols + `, post_trash_status FROM comments` + c.where() +
		` ORDER BY post_id, id` + limitClause(q.Limit, 0, a)
	var out []*store.ExportedComment
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var pts string
		cm, err := scanComment(extraScanner{s: rows, extra: &pts})
		if err != nil {
			return err
		}
		out = append(out, &store.ExportedComment{Comment: *cm, PostTrashStatus: pts})
		return nil
	}, query, a.vals...)
	if err != nil {
		return nil, fail("export comments", err)
	}
	return out, nil
}

// ExportPostMeta returns one batch of the meta rows of some posts in
// (post id, row id) order.
func (o ops) ExportPostMeta(ctx context.Context, posts []int64, afterPost, afterID int64, limit int) ([]*store.PostMetaRow, error) {
	if len(posts) == 0 {
		return nil, nil
	}
	a := &args{}
	c := newCond(a)
	inList(c, `post_id`, posts, false)
	c.add(`(post_id, id) > (` + a.add(afterPost) + `, ` + a.add(afterID) + `)`)
	query := `SELECT id, post_id, key, value FROM post_meta` + c.where() + ` ORDER BY post_id, id` + limitClause(limit, 0, a)
	var out []*store.PostMetaRow
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var m store.PostMetaRow
		if err := rows.Scan(&m.ID, &m.PostID, &m.Key, &m.Value); err != nil {
			return err
		}
		out = append(out, &m)
		return nil
	}, query, a.vals...)
	if err != nil {
		return nil, fail("export post meta", err)
	}
	return out, nil
}
