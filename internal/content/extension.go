package content

import (
	"context"
	"errors"

	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// The hook points of the seed's Events table. Each fires its typed hook
// (package events) from the one place its event happens; request is the
// interface request (nil outside one, e.g. the scheduler) and response
// the resource being built or the data of a deleted record. Failing
// actions are logged and never fail the write they observe; a failing
// filter keeps the unfiltered value.

// Change describes one write of the domain, reported to the Changed hook
// inside the write's transaction.
type Change = events.Change

// act fires an action hook; a handler's error is logged under the hook's
// name (key fills a dynamic hook's name) and never fails the caller.
func act[T hooks.Resolver](s *Site, h *hooks.Hook[T], key string, e T) {
	s.hooks.Action(h.Name(key), h.Trigger(e))
}

// InsertPostHook fires rest_insert_<post_type>: a post was created
// (creating true) or updated and its extension fields written.
func (s *Site) InsertPostHook(ctx context.Context, pt *PostType, p *store.Post, request *rest.Request, creating bool) {
	act(s, s.hooks.InsertPost, pt.Name, &events.InsertPostEvent{
		Context: ctx, PostType: pt.Name, Post: p, Request: request, Creating: creating})
}

// PostWriteHooked reports whether a handler that may change what a write
// of a post of type pt wrote is bound: one of rest_insert_<post_type>, or
// one of the Changed hook besides the server's own (whose extension field
// updaters the request marks when they run: events.FieldsUpdated).
func (s *Site) PostWriteHooked(pt *PostType) bool {
	return s.hooks.InsertPost.Bound(pt.Name) ||
		s.hooks.Changed.Bound(pt.Name, events.WebhooksOutboxHandler, events.ExtensionFieldsHandler)
}

// DeletePostHook fires rest_delete_<post_type>: a post was trashed or
// deleted; response is its data as it was.
func (s *Site) DeletePostHook(ctx context.Context, pt *PostType, p *store.Post, response *rest.Resource, request *rest.Request) {
	act(s, s.hooks.DeletePost, pt.Name, &events.DeletePostEvent{
		Context: ctx, PostType: pt.Name, Post: p, Response: response, Request: request})
}

// PreparePostHook fires rest_prepare_<post_type>, which may change the
// response built for a post.
func (s *Site) PreparePostHook(ctx context.Context, pt *PostType, p *store.Post, response *rest.Resource, request *rest.Request) {
	s.preparePost(ctx, pt.Name, p, response, request)
}

// preparePost fires rest_prepare_<typ> with the request's extra fields
// visible to the handlers.
func (s *Site) preparePost(ctx context.Context, typ string, p *store.Post, response *rest.Resource, request *rest.Request) {
	request.WithFields(response, func() {
		act(s, s.hooks.PreparePost, typ, &events.PreparePostEvent{
			Context: ctx, PostType: typ, Response: response, Post: p, Request: request})
	})
}

// PostQueryHook fires rest_<post_type>_query with a collection's query and
// returns the query to run.
func (s *Site) PostQueryHook(ctx context.Context, pt *PostType, q store.PostQuery, request *rest.Request) store.PostQuery {
	h := s.hooks
	e := &events.PostQueryEvent{Context: ctx, PostType: pt.Name, Query: &q, Request: request}
	h.Filter(h.PostQuery.Name(pt.Name), h.PostQuery.Trigger(e))
	return *e.Query
}

// InsertAttachmentHook fires rest_insert_attachment: an attachment was
// created (creating true, after its response was built) or updated.
func (s *Site) InsertAttachmentHook(ctx context.Context, p *store.Post, m *store.Media, request *rest.Request, creating bool) {
	act(s, s.hooks.InsertPost, AttachmentType, &events.InsertPostEvent{
		Context: ctx, PostType: AttachmentType, Post: p, Media: m, Request: request, Creating: creating})
}

// PrepareAttachmentHook fires rest_prepare_attachment.
func (s *Site) PrepareAttachmentHook(ctx context.Context, p *store.Post, response *rest.Resource, request *rest.Request) {
	s.preparePost(ctx, AttachmentType, p, response, request)
}

// preInsertTermHook fires rest_pre_insert_<taxonomy> on the term about to
// be written; an error stops the write and is returned to the caller.
func (s *Site) preInsertTermHook(ctx context.Context, tax *Taxonomy, t *store.Term, request *rest.Request) error {
	return s.hooks.PreInsertTerm.Trigger(&events.PreInsertTermEvent{Context: ctx, Taxonomy: tax.Name, Term: t, Request: request})
}

// insertTermHook fires rest_insert_<taxonomy> after a term was written,
// unless it already fired inside the write's transaction
// (events.MarkTermInserted).
func (s *Site) insertTermHook(ctx context.Context, tax *Taxonomy, t *store.Term, request *rest.Request, creating bool) {
	if events.TakeTermInserted(request, tax.Name, t.ID) {
		return
	}
	act(s, s.hooks.InsertTerm, tax.Name, &events.InsertTermEvent{
		Context: ctx, Taxonomy: tax.Name, Term: t, Request: request, Creating: creating})
}

// DeleteTermHook fires rest_delete_<taxonomy>; response is the term as it
// was.
func (s *Site) DeleteTermHook(ctx context.Context, tax *Taxonomy, t *store.Term, response *rest.Resource, request *rest.Request) {
	act(s, s.hooks.DeleteTerm, tax.Name, &events.DeleteTermEvent{
		Context: ctx, Taxonomy: tax.Name, Term: t, Response: response, Request: request})
}

// PrepareTermHook fires rest_prepare_<taxonomy> (rest_prepare_category,
// rest_prepare_post_tag, ...).
func (s *Site) PrepareTermHook(ctx context.Context, tax *Taxonomy, t *store.Term, response *rest.Resource, request *rest.Request) {
	request.WithFields(response, func() {
		act(s, s.hooks.PrepareTerm, tax.Name, &events.PrepareTermEvent{
			Context: ctx, Taxonomy: tax.Name, Response: response, Term: t, Request: request})
	})
}

// PreInsertCommentHook fires rest_pre_insert_comment on the comment about
// to be stored on create and returns the comment to store.
func (s *Site) PreInsertCommentHook(ctx context.Context, c *store.Comment, request *rest.Request) *store.Comment {
	h := s.hooks
	e := &events.PreInsertCommentEvent{Context: ctx, Comment: c, Request: request}
	if !h.Filter(h.PreInsertComment.Name(""), h.PreInsertComment.Trigger(e)) || e.Comment == nil {
		return c
	}
	return e.Comment
}

// InsertCommentHook fires rest_insert_comment: a comment was created
// (creating true) or updated.
func (s *Site) InsertCommentHook(ctx context.Context, c *store.Comment, request *rest.Request, creating bool) {
	act(s, s.hooks.InsertComment, "", &events.InsertCommentEvent{
		Context: ctx, Comment: c, Request: request, Creating: creating})
}

// DeleteCommentHook fires rest_delete_comment: a comment was trashed or
// deleted; response is its data as it was.
func (s *Site) DeleteCommentHook(ctx context.Context, c *store.Comment, response *rest.Resource, request *rest.Request) {
	act(s, s.hooks.DeleteComment, "", &events.DeleteCommentEvent{
		Context: ctx, Comment: c, Response: response, Request: request})
}

// CommentQueryHook fires rest_comment_query with a collection's query and
// returns the query to run.
func (s *Site) CommentQueryHook(ctx context.Context, q store.CommentQuery, request *rest.Request) store.CommentQuery {
	h := s.hooks
	e := &events.CommentQueryEvent{Context: ctx, Query: &q, Request: request}
	h.Filter(h.CommentQuery.Name(""), h.CommentQuery.Trigger(e))
	return *e.Query
}

// InsertUserHook fires rest_insert_user: a user was created (creating
// true) or updated through the interface.
func (s *Site) InsertUserHook(ctx context.Context, u *store.User, request *rest.Request, creating bool) {
	act(s, s.hooks.InsertUser, "", &events.InsertUserEvent{
		Context: ctx, User: u, Request: request, Creating: creating})
}

// PrepareUserHook fires rest_prepare_user on the response built for u.
func (s *Site) PrepareUserHook(ctx context.Context, u *store.User, response *rest.Resource, request *rest.Request) {
	act(s, s.hooks.PrepareUser, "", &events.PrepareUserEvent{
		Context: ctx, Response: response, User: u, Request: request})
}

// DeleteUserHook fires rest_delete_user; response is the user as it was.
func (s *Site) DeleteUserHook(ctx context.Context, u *store.User, response *rest.Resource, request *rest.Request) {
	act(s, s.hooks.DeleteUser, "", &events.DeleteUserEvent{
		Context: ctx, User: u, Response: response, Request: request})
}

// preInsertUser fires rest_pre_insert_user on the user about to be
// written; an error stops the write and is returned to the caller.
func (s *Site) preInsertUser(ctx context.Context, u *store.User, request *rest.Request) error {
	return s.hooks.PreInsertUser.Trigger(&events.PreInsertUserEvent{Context: ctx, User: u, Request: request})
}

// changed fires folio_changed inside the transaction tx; an error rolls
// the write back.
func (s *Site) changed(ctx context.Context, tx store.Store, ch Change) error {
	return s.hooks.Changed.Trigger(&events.ChangeEvent{Context: ctx, Tx: tx, Change: ch, Title: s.SchemaTitleOf(ch)})
}

// SchemaTitleOf returns the schema title of the resource a change is
// about (post, page, attachment, category, tag, comment, user, ...).
func (s *Site) SchemaTitleOf(ch Change) string {
	switch ch.Kind {
	case "post":
		return ch.Type
	case "media":
		return AttachmentType
	case "term":
		if tx, ok := s.taxonomies.Get(ch.Type); ok {
			return tx.SchemaTitle()
		}
		return ch.Type
	default:
		return ch.Kind
	}
}

// isAPIError reports whether err carries an error meant for the client (a
// *Error, or an error with an HTTP status such as the API error an
// extension field updater returns from Changed): such a failed write
// reports it rather than a generic failure.
func isAPIError(err error) bool {
	var ce *Error
	var se interface{ HTTPStatus() int }
	return errors.As(err, &ce) || errors.As(err, &se)
}

// postKind returns the Change kind of a post type.
func postKind(pt *PostType) string {
	if pt.Name == AttachmentType {
		return "media"
	}
	return "post"
}
