package extension

import (
	"context"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// bridge points every hook point of site at the typed hooks, so that each
// hook fires from the one call site the domain and the controllers have.
func (a *API) bridge(site *content.Site) {
	h := a.Hooks
	site.PostTrashable = func(pt *content.PostType, p *store.Post, supported bool) bool {
		e := &PostTrashableEvent{PostType: pt.Name, Trashable: supported, Post: p}
		if err := h.PostTrashable.Trigger(e); err != nil {
			a.logAction(h.PostTrashable.Name(pt.Name), err)
			return supported
		}
		return e.Trashable
	}
	site.PostHooks = content.PostHooks{
		Insert: func(ctx context.Context, pt *content.PostType, p *store.Post, request any, creating bool) {
			a.logAction(h.InsertPost.Name(pt.Name), h.InsertPost.Trigger(&InsertPostEvent{
				Context: ctx, PostType: pt.Name, Post: p, Request: requestOf(request), Creating: creating}))
		},
		Delete: func(ctx context.Context, pt *content.PostType, p *store.Post, response, request any) {
			a.logAction(h.DeletePost.Name(pt.Name), h.DeletePost.Trigger(&DeletePostEvent{
				Context: ctx, PostType: pt.Name, Post: p, Response: resourceOf(response), Request: requestOf(request)}))
		},
		Prepare: func(ctx context.Context, pt *content.PostType, p *store.Post, response, request any) {
			r, res := requestOf(request), resourceOf(response)
			r.WithFields(res, func() {
				a.logAction(h.PreparePost.Name(pt.Name), h.PreparePost.Trigger(&PreparePostEvent{
					Context: ctx, PostType: pt.Name, Response: res, Post: p, Request: r}))
			})
		},
		Query: func(ctx context.Context, pt *content.PostType, q store.PostQuery, request any) store.PostQuery {
			e := &PostQueryEvent{Context: ctx, PostType: pt.Name, Query: &q, Request: requestOf(request)}
			if err := h.PostQuery.Trigger(e); err != nil {
				a.logAction(h.PostQuery.Name(pt.Name), err)
			}
			return *e.Query
		},
	}
	site.MediaHooks = content.MediaHooks{
		Insert: func(ctx context.Context, p *store.Post, m *store.Media, request any, creating bool) {
			a.logAction(h.InsertPost.Name("attachment"), h.InsertPost.Trigger(&InsertPostEvent{
				Context: ctx, PostType: "attachment", Post: p, Media: m, Request: requestOf(request), Creating: creating}))
		},
		Prepare: func(ctx context.Context, p *store.Post, response, request any) {
			r, res := requestOf(request), resourceOf(response)
			r.WithFields(res, func() {
				a.logAction(h.PreparePost.Name("attachment"), h.PreparePost.Trigger(&PreparePostEvent{
					Context: ctx, PostType: "attachment", Response: res, Post: p, Request: r}))
			})
		},
	}
	site.TermHooks = content.TermHooks{
		PreInsert: func(ctx context.Context, tax *content.Taxonomy, t *store.Term, request any) error {
			return h.PreInsertTerm.Trigger(&PreInsertTermEvent{Context: ctx, Taxonomy: tax.Name, Term: t, Request: requestOf(request)})
		},
		Insert: func(ctx context.Context, tax *content.Taxonomy, t *store.Term, request any, creating bool) {
			if r := requestOf(request); r != nil && r.Cache()[termInsertedKey{tax.Name, t.ID}] != nil {
				delete(r.Cache(), termInsertedKey{tax.Name, t.ID})
				return // fired inside the transaction, before the field updates
			}
			a.logAction(h.InsertTerm.Name(tax.Name), h.InsertTerm.Trigger(&InsertTermEvent{
				Context: ctx, Taxonomy: tax.Name, Term: t, Request: requestOf(request), Creating: creating}))
		},
		Delete: func(ctx context.Context, tax *content.Taxonomy, t *store.Term, response, request any) {
			a.logAction(h.DeleteTerm.Name(tax.Name), h.DeleteTerm.Trigger(&DeleteTermEvent{
				Context: ctx, Taxonomy: tax.Name, Term: t, Response: resourceOf(response), Request: requestOf(request)}))
		},
		Prepare: func(ctx context.Context, tax *content.Taxonomy, t *store.Term, response, request any) {
			r, res := requestOf(request), resourceOf(response)
			r.WithFields(res, func() {
				a.logAction(h.PrepareTerm.Name(tax.Name), h.PrepareTerm.Trigger(&PrepareTermEvent{
					Context: ctx, Taxonomy: tax.Name, Response: res, Term: t, Request: r}))
			})
		},
	}
	site.CommentHooks = content.CommentHooks{
		PreInsert: func(ctx context.Context, c *store.Comment, request any) *store.Comment {
			e := &PreInsertCommentEvent{Context: ctx, Comment: c, Request: requestOf(request)}
			if err := h.PreInsertComment.Trigger(e); err != nil {
				a.logAction(h.PreInsertComment.Name(""), err)
				return c
			}
			return e.Comment
		},
		Insert: func(ctx context.Context, c *store.Comment, request any, creating bool) {
			a.logAction(h.InsertComment.Name(""), h.InsertComment.Trigger(&InsertCommentEvent{
				Context: ctx, Comment: c, Request: requestOf(request), Creating: creating}))
		},
		Delete: func(ctx context.Context, c *store.Comment, response, request any) {
			a.logAction(h.DeleteComment.Name(""), h.DeleteComment.Trigger(&DeleteCommentEvent{
				Context: ctx, Comment: c, Response: resourceOf(response), Request: requestOf(request)}))
		},
		Query: func(ctx context.Context, q store.CommentQuery, request any) store.CommentQuery {
			e := &CommentQueryEvent{Context: ctx, Query: &q, Request: requestOf(request)}
			if err := h.CommentQuery.Trigger(e); err != nil {
				a.logAction(h.CommentQuery.Name(""), err)
			}
			return *e.Query
		},
		Trashable: func(c *store.Comment, supported bool) bool {
			e := &CommentTrashableEvent{Trashable: supported, Comment: c}
			if err := h.CommentTrashable.Trigger(e); err != nil {
				a.logAction(h.CommentTrashable.Name(""), err)
				return supported
			}
			return e.Trashable
		},
	}
	site.UserHooks = content.UserHooks{
		InsertUser: func(ctx context.Context, u *store.User, request any, creating bool) {
			a.logAction(h.InsertUser.Name(""), h.InsertUser.Trigger(&InsertUserEvent{
				Context: ctx, User: u, Request: requestOf(request), Creating: creating}))
		},
		PreInsertUser: func(ctx context.Context, u *store.User, request any) error {
			return h.PreInsertUser.Trigger(&PreInsertUserEvent{Context: ctx, User: u, Request: requestOf(request)})
		},
		PrepareUser: func(ctx context.Context, u *store.User, response, request any) {
			a.logAction(h.PrepareUser.Name(""), h.PrepareUser.Trigger(&PrepareUserEvent{
				Context: ctx, Response: resourceOf(response), User: u, Request: requestOf(request)}))
		},
		DeleteUser: func(ctx context.Context, u *store.User, response, request any) {
			a.logAction(h.DeleteUser.Name(""), h.DeleteUser.Trigger(&DeleteUserEvent{
				Context: ctx, User: u, Response: resourceOf(response), Request: requestOf(request)}))
		},
		AvatarSizes: func(sizes []int) []int {
			e := &AvatarSizesEvent{Sizes: sizes}
			if err := h.AvatarSizes.Trigger(e); err != nil {
				a.logAction(h.AvatarSizes.Name(""), err)
				return sizes
			}
			return e.Sizes
		},
	}
	site.Changed = func(ctx context.Context, tx store.Store, ch content.Change) error {
		return h.Changed.Trigger(&ChangeEvent{Context: ctx, Tx: tx, Change: ch, Title: TitleOf(site, ch)})
	}
}
