package sqlstore

import (
	"context"

	"github.com/folio-server/folio/internal/store"
)

// ExportPosts returns one batch of posts in id order.
func (o ops) ExportPosts(ctx context.Context, q store.ExportPostQuery) ([]*store.Post, error) {
	a := &Args{}
	c := o.db.newCond(a)
	c.add(`id > ` + a.Add(q.After))
	if len(q.Types) > 0 {
		inList(c, `type`, q.Types, false)
	}
	if len(q.SkipStatuses) > 0 {
		inList(c, `status`, q.SkipStatuses, true)
	}
	query := `SELECT ` + postCols + ` FROM posts` + c.where() + ` ORDER BY id` + o.db.limitClause(q.Limit, 0, a)
	var out []*store.Post
	if err := collect(ctx, o.reader(), &out, scanPost, query, a.vals...); err != nil {
		return nil, o.db.fail("export posts", err)
	}
	return out, nil
}

// ExportTerms returns one batch of the terms of a taxonomy in id order.
func (o ops) ExportTerms(ctx context.Context, taxonomy string, after int64, limit int) ([]*store.Term, error) {
	a := &Args{vals: []any{taxonomy, after}}
	query := `SELECT ` + o.db.termCols + ` FROM terms WHERE taxonomy = $1 AND id > $2 ORDER BY id` + o.db.limitClause(limit, 0, a)
	var out []*store.Term
	if err := collect(ctx, o.reader(), &out, scanTerm, query, a.vals...); err != nil {
		return nil, o.db.fail("export terms", err)
	}
	return out, nil
}

// ExportUsers returns one batch of users in id order.
func (o ops) ExportUsers(ctx context.Context, after int64, limit int) ([]*store.User, error) {
	a := &Args{vals: []any{after}}
	query := o.db.userSelect() + ` WHERE u.id > $1 ORDER BY u.id` + o.db.limitClause(limit, 0, a)
	var out []*store.User
	if err := collect(ctx, o.reader(), &out, scanUser, query, a.vals...); err != nil {
		return nil, o.db.fail("export users", err)
	}
	return out, nil
}

// ExportComments returns one batch of the comments of some posts in
// (post id, id) order.
func (o ops) ExportComments(ctx context.Context, q store.ExportCommentQuery) ([]*store.ExportedComment, error) {
	if len(q.Posts) == 0 {
		return nil, nil
	}
	a := &Args{}
	c := o.db.newCond(a)
	inList(c, `post_id`, q.Posts, false)
	c.add(`(post_id, id) > (` + a.Add(q.AfterPost) + `, ` + a.Add(q.AfterID) + `)`)
	if len(q.Approved) > 0 {
		inList(c, `approved`, q.Approved, false)
	}
	if len(q.SkipApproved) > 0 {
		inList(c, `approved`, q.SkipApproved, true)
	}
	query := `SELECT ` + commentCols + `, post_trash_status FROM comments` + c.where() +
		` ORDER BY post_id, id` + o.db.limitClause(q.Limit, 0, a)
	var out []*store.ExportedComment
	err := collect(ctx, o.reader(), &out, func(s scanner) (*store.ExportedComment, error) {
		var pts string
		cm, err := scanComment(withExtra{s, []any{&pts}})
		if err != nil {
			return nil, err
		}
		return &store.ExportedComment{Comment: *cm, PostTrashStatus: pts}, nil
	}, query, a.vals...)
	if err != nil {
		return nil, o.db.fail("export comments", err)
	}
	return out, nil
}

// ExportPostMeta returns one batch of the meta rows of some posts in
// (post id, row id) order.
func (o ops) ExportPostMeta(ctx context.Context, posts []int64, afterPost, afterID int64, limit int) ([]*store.PostMetaRow, error) {
	if len(posts) == 0 {
		return nil, nil
	}
	a := &Args{}
	c := o.db.newCond(a)
	inList(c, `post_id`, posts, false)
	c.add(`(post_id, id) > (` + a.Add(afterPost) + `, ` + a.Add(afterID) + `)`)
	query := `SELECT id, post_id, key, value FROM post_meta` + c.where() + ` ORDER BY post_id, id` + o.db.limitClause(limit, 0, a)
	var out []*store.PostMetaRow
	err := collect(ctx, o.reader(), &out, func(s scanner) (*store.PostMetaRow, error) {
		var m store.PostMetaRow
		err := s.Scan(&m.ID, &m.PostID, &m.Key, &m.Value)
		return &m, err
	}, query, a.vals...)
	if err != nil {
		return nil, o.db.fail("export post meta", err)
	}
	return out, nil
}
