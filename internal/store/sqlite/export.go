package sqlite

import (
	"context"
	"fmt"

	"github.com/folio-server/folio/internal/store"
)

var (
	_ store.Exporter    = (*DB)(nil)
	_ store.Exporter    = (*txStore)(nil)
	_ store.Snapshotter = (*DB)(nil)
)

// ReadSnapshot runs fn in one read transaction on a reader connection. In
// WAL mode the transaction reads one snapshot of the file, taken by its
// first read (made before fn runs), and never blocks the writer; while it
// is open, checkpoints cannot recycle the WAL past that snapshot, so the
// WAL file grows with what is written meanwhile. Writes through fn's store
// fail: reader connections are query-only.
func (db *DB) ReadSnapshot(ctx context.Context, fn func(store.Store) error) error {
	sqlTx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin snapshot: %w", err)
	}
	defer func() { _ = sqlTx.Rollback() }() // a read transaction has nothing to commit
	t := &txStore{}
	t.ops = ops{db: db, tx: &txState{tx: sqlTx}}
	// The snapshot starts at the first read, so take it now.
	if _, err := t.version(ctx); err != nil {
		return fmt.Errorf("sqlite: begin snapshot: %w", err)
	}
	return fn(t)
}

// ExportPosts returns one batch of posts in id order.
func (o ops) ExportPosts(ctx context.Context, q store.ExportPostQuery) ([]*store.Post, error) {
	c := &cond{}
	c.add(`id > ?`, q.After)
	if len(q.Types) > 0 {
		inList(c, `type`, q.Types, false)
	}
	if len(q.SkipStatuses) > 0 {
		inList(c, `status`, q.SkipStatuses, true)
	}
	args := c.args
	query := `SELECT ` + postCols + ` FROM posts` + c.where() + ` ORDER BY id` + limitClause(q.Limit, 0, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: export posts: %w", err)
	}
	defer rows.Close()
	var out []*store.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: export posts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: export posts: %w", err)
	}
	return out, nil
}

// ExportTerms returns one batch of the terms of a taxonomy in id order.
func (o ops) ExportTerms(ctx context.Context, taxonomy string, after int64, limit int) ([]*store.Term, error) {
	args := []any{taxonomy, after}
	query := `SELECT ` + termCols + ` FROM terms WHERE taxonomy = ? AND id > ? ORDER BY id` + limitClause(limit, 0, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: export terms: %w", err)
	}
	defer rows.Close()
	var out []*store.Term
	for rows.Next() {
		t, err := scanTerm(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: export terms: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: export terms: %w", err)
	}
	return out, nil
}

// ExportUsers returns one batch of users in id order.
func (o ops) ExportUsers(ctx context.Context, after int64, limit int) ([]*store.User, error) {
	args := []any{after}
	query := userSelect + ` WHERE u.id > ? ORDER BY u.id` + limitClause(limit, 0, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: export users: %w", err)
	}
	users, err := collectUsers(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: export users: %w", err)
	}
	return users, nil
}

// extraScanner scans a row of known columns followed by one more column
// into extra.
type extraScanner struct {
	s     scanner
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
	c := &cond{}
	inList(c, `post_id`, q.Posts, false)
	c.add(`(post_id, id) > (?, ?)`, q.AfterPost, q.AfterID)
	if len(q.Approved) > 0 {
		inList(c, `approved`, q.Approved, false)
	}
	if len(q.SkipApproved) > 0 {
		inList(c, `approved`, q.SkipApproved, true)
	}
	args := c.args
	query := `SELECT ` + commentCols + `, post_trash_status FROM comments` + c.where() +
		` ORDER BY post_id, id` + limitClause(q.Limit, 0, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: export comments: %w", err)
	}
	defer rows.Close()
	var out []*store.ExportedComment
	for rows.Next() {
		var pts string
		cm, err := scanComment(extraScanner{s: rows, extra: &pts})
		if err != nil {
			return nil, fmt.Errorf("sqlite: export comments: %w", err)
		}
		out = append(out, &store.ExportedComment{Comment: *cm, PostTrashStatus: pts})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: export comments: %w", err)
	}
	return out, nil
}

// ExportPostMeta returns one batch of the meta rows of some posts in
// (post id, row id) order.
func (o ops) ExportPostMeta(ctx context.Context, posts []int64, afterPost, afterID int64, limit int) ([]*store.PostMetaRow, error) {
	if len(posts) == 0 {
		return nil, nil
	}
	c := &cond{}
	inList(c, `post_id`, posts, false)
	c.add(`(post_id, id) > (?, ?)`, afterPost, afterID)
	args := c.args
	query := `SELECT id, post_id, key, value FROM post_meta` + c.where() + ` ORDER BY post_id, id` + limitClause(limit, 0, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: export post meta: %w", err)
	}
	defer rows.Close()
	var out []*store.PostMetaRow
	for rows.Next() {
		var m store.PostMetaRow
		if err := rows.Scan(&m.ID, &m.PostID, &m.Key, &m.Value); err != nil {
			return nil, fmt.Errorf("sqlite: export post meta: %w", err)
		}
		out = append(out, &m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: export post meta: %w", err)
	}
	return out, nil
}
