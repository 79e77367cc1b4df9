// Package events holds Folio's typed hooks: the event of each hook point
// in the seed's Events table and the registries (Hooks) that extensions
// bind handlers to and the domain (package content) fires directly, with
// typed values, from the one place each event happens.
package events

import (
	"context"
	"log/slog"

	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// The event types of the hooks in the seed's Events table. Filters carry
// the value being filtered in an exported field that handlers change
// before calling e.Next(); actions only look. Request is nil when the
// domain fires a hook outside an API request (e.g. the scheduler).

// InsertPostEvent is rest_insert_<post_type> (an action): a post was
// created or updated through the interface, its extension fields written.
type InsertPostEvent struct {
	hooks.Event
	Context  context.Context
	PostType string
	Post     *store.Post
	// Media is the file record of an attachment (nil for other types).
	Media    *store.Media
	Request  *rest.Request
	Creating bool
}

// HookKey returns the post type.
func (e *InsertPostEvent) HookKey() string { return e.PostType }

// HookArgs returns post, request, creating flag.
func (e *InsertPostEvent) HookArgs() []any { return []any{e.Post, e.Request, e.Creating} }

// DeletePostEvent is rest_delete_<post_type> (an action): a post was
// trashed or deleted; Response is the response data, the post as it was.
type DeletePostEvent struct {
	hooks.Event
	Context  context.Context
	PostType string
	Post     *store.Post
	Response *rest.Resource
	Request  *rest.Request
}

// HookKey returns the post type.
func (e *DeletePostEvent) HookKey() string { return e.PostType }

// HookArgs returns post, response data, request.
func (e *DeletePostEvent) HookArgs() []any { return []any{e.Post, e.Response, e.Request} }

// PostTrashableEvent is rest_<post_type>_trashable (a filter, the seed's
// rest_post_trashable for posts): Trashable is whether DELETE without
// force may trash Post.
type PostTrashableEvent struct {
	hooks.Event
	PostType  string
	Trashable bool
	Post      *store.Post
}

// HookKey returns the post type.
func (e *PostTrashableEvent) HookKey() string { return e.PostType }

// HookArgs returns the trash support flag and the post.
func (e *PostTrashableEvent) HookArgs() []any { return []any{e.Trashable, e.Post} }

// PreparePostEvent is rest_prepare_<post_type> (a filter): Response is
// the resource built for Post; handlers may change it (Set, Unset,
// AddLink).
type PreparePostEvent struct {
	hooks.Event
	Context  context.Context
	PostType string
	Response *rest.Resource
	Post     *store.Post
	Request  *rest.Request
}

// HookKey returns the post type.
func (e *PreparePostEvent) HookKey() string { return e.PostType }

// HookArgs returns response, post, request.
func (e *PreparePostEvent) HookArgs() []any { return []any{e.Response, e.Post, e.Request} }

// PostQueryEvent is rest_<post_type>_query (a filter): Query is the
// collection query about to run.
type PostQueryEvent struct {
	hooks.Event
	Context  context.Context
	PostType string
	Query    *store.PostQuery
	Request  *rest.Request
}

// HookKey returns the post type.
func (e *PostQueryEvent) HookKey() string { return e.PostType }

// HookArgs returns the query arguments and the request.
func (e *PostQueryEvent) HookArgs() []any { return []any{e.Query, e.Request} }

// InsertTermEvent is rest_insert_<taxonomy> (an action): a term was
// created or updated. For an API write it fires inside the write's
// transaction, before the extension fields' updaters (reference §11):
// Tx is then that transaction's store, the only store a handler may write
// through until it returns (a write through Site().Store would wait for
// the transaction). Tx is nil when the hook fires after the commit (a
// term written outside an API request).
type InsertTermEvent struct {
	hooks.Event
	Context  context.Context
	Taxonomy string
	Term     *store.Term
	Request  *rest.Request
	Creating bool
	Tx       store.Store
}

// HookKey returns the taxonomy.
func (e *InsertTermEvent) HookKey() string { return e.Taxonomy }

// HookArgs returns term, request, creating flag.
func (e *InsertTermEvent) HookArgs() []any { return []any{e.Term, e.Request, e.Creating} }

// DeleteTermEvent is rest_delete_<taxonomy> (an action): a term was
// deleted; Response is the term as it was.
type DeleteTermEvent struct {
	hooks.Event
	Context  context.Context
	Taxonomy string
	Term     *store.Term
	Response *rest.Resource
	Request  *rest.Request
}

// HookKey returns the taxonomy.
func (e *DeleteTermEvent) HookKey() string { return e.Taxonomy }

// HookArgs returns term, response, request.
func (e *DeleteTermEvent) HookArgs() []any { return []any{e.Term, e.Response, e.Request} }

// PreInsertTermEvent is rest_pre_insert_<taxonomy> (a filter): Term is the
// prepared term about to be written on create and update; handlers may
// change it, and an error stops the write and is returned to the caller.
type PreInsertTermEvent struct {
	hooks.Event
	Context  context.Context
	Taxonomy string
	Term     *store.Term
	Request  *rest.Request
}

// HookKey returns the taxonomy.
func (e *PreInsertTermEvent) HookKey() string { return e.Taxonomy }

// HookArgs returns the prepared term and the request.
func (e *PreInsertTermEvent) HookArgs() []any { return []any{e.Term, e.Request} }

// PrepareTermEvent is rest_prepare_<taxonomy> (rest_prepare_post_tag,
// rest_prepare_category; a filter) on the resource built for a term.
type PrepareTermEvent struct {
	hooks.Event
	Context  context.Context
	Taxonomy string
	Response *rest.Resource
	Term     *store.Term
	Request  *rest.Request
}

// HookKey returns the taxonomy.
func (e *PrepareTermEvent) HookKey() string { return e.Taxonomy }

// HookArgs returns response, term, request.
func (e *PrepareTermEvent) HookArgs() []any { return []any{e.Response, e.Term, e.Request} }

// PreInsertCommentEvent is rest_pre_insert_comment (a filter): Comment is
// the prepared comment about to be stored on create.
type PreInsertCommentEvent struct {
	hooks.Event
	Context context.Context
	Comment *store.Comment
	Request *rest.Request
}

// HookArgs returns the prepared comment data and the request.
func (e *PreInsertCommentEvent) HookArgs() []any { return []any{e.Comment, e.Request} }

// InsertCommentEvent is rest_insert_comment (an action).
type InsertCommentEvent struct {
	hooks.Event
	Context  context.Context
	Comment  *store.Comment
	Request  *rest.Request
	Creating bool
}

// HookArgs returns comment data, request, creating flag.
func (e *InsertCommentEvent) HookArgs() []any { return []any{e.Comment, e.Request, e.Creating} }

// DeleteCommentEvent is rest_delete_comment (an action): Response is the
// comment as it was.
type DeleteCommentEvent struct {
	hooks.Event
	Context  context.Context
	Comment  *store.Comment
	Response *rest.Resource
	Request  *rest.Request
}

// HookArgs returns comment, response data, request.
func (e *DeleteCommentEvent) HookArgs() []any { return []any{e.Comment, e.Response, e.Request} }

// CommentQueryEvent is rest_comment_query (a filter).
type CommentQueryEvent struct {
	hooks.Event
	Context context.Context
	Query   *store.CommentQuery
	Request *rest.Request
}

// HookArgs returns the query arguments and the request.
func (e *CommentQueryEvent) HookArgs() []any { return []any{e.Query, e.Request} }

// CommentTrashableEvent is rest_comment_type_trashable (a filter).
type CommentTrashableEvent struct {
	hooks.Event
	Trashable bool
	Comment   *store.Comment
}

// HookArgs returns the trash support flag and the comment.
func (e *CommentTrashableEvent) HookArgs() []any { return []any{e.Trashable, e.Comment} }

// InsertUserEvent is rest_insert_user (an action).
type InsertUserEvent struct {
	hooks.Event
	Context  context.Context
	User     *store.User
	Request  *rest.Request
	Creating bool
}

// HookArgs returns user data, request, creating flag.
func (e *InsertUserEvent) HookArgs() []any { return []any{e.User, e.Request, e.Creating} }

// PreInsertUserEvent is rest_pre_insert_user (a filter): User is the
// prepared user about to be written on create and update; handlers may
// change it, and an error stops the write and is returned to the caller.
type PreInsertUserEvent struct {
	hooks.Event
	Context context.Context
	User    *store.User
	Request *rest.Request
}

// HookArgs returns the prepared user and the request.
func (e *PreInsertUserEvent) HookArgs() []any { return []any{e.User, e.Request} }

// PrepareUserEvent is rest_prepare_user (a filter) on the resource built
// for a user; handlers may change it (Set, Unset, AddLink).
type PrepareUserEvent struct {
	hooks.Event
	Context  context.Context
	Response *rest.Resource
	User     *store.User
	Request  *rest.Request
}

// HookArgs returns response, user, request.
func (e *PrepareUserEvent) HookArgs() []any { return []any{e.Response, e.User, e.Request} }

// DeleteUserEvent is rest_delete_user (an action): a user was deleted;
// Response is the response data, the user as it was.
type DeleteUserEvent struct {
	hooks.Event
	Context  context.Context
	User     *store.User
	Response *rest.Resource
	Request  *rest.Request
}

// HookArgs returns user, response data, request.
func (e *DeleteUserEvent) HookArgs() []any { return []any{e.User, e.Response, e.Request} }

// AvatarSizesEvent is rest_avatar_sizes (a filter): the avatar pixel
// sizes, 24, 48, 96 by default.
type AvatarSizesEvent struct {
	hooks.Event
	Sizes []int
}

// HookArgs returns the list of sizes.
func (e *AvatarSizesEvent) HookArgs() []any { return []any{e.Sizes} }

// APIInitEvent is rest_api_init (an action): the server is built and its
// routes are registered; handlers may register more routes.
type APIInitEvent struct {
	hooks.Event
	Server *rest.Server
}

// HookArgs returns the server.
func (e *APIInitEvent) HookArgs() []any { return []any{e.Server} }

// Change describes one write of the domain, reported to the Changed hook
// inside the write's transaction.
type Change struct {
	// Kind is post (posts, pages and custom types), media, term, comment
	// or user.
	Kind string
	// Type is the post type or taxonomy name (empty for the other kinds).
	Type string
	// Action is created, updated, trashed or deleted.
	Action string
	ID     int64
	// Record is the record as written (*store.Post, *store.Term,
	// *store.Comment, *store.User), or as it was for deletes.
	Record any
	// Old is the record before an update (nil otherwise).
	Old any
}

// ChangeEvent is folio_changed (an action that can fail): a domain write
// is about to commit. Tx is the write's transaction; an error rolls the
// write back. Extension field updaters and the webhook outbox run here.
type ChangeEvent struct {
	hooks.Event
	Context context.Context
	Tx      store.Store
	Change  Change
	// Title is the schema title of the changed resource (post, page,
	// attachment, tag, category, comment, user, ...).
	Title string
}

// HookKey returns the schema title.
func (e *ChangeEvent) HookKey() string { return e.Title }

// HookArgs returns the change.
func (e *ChangeEvent) HookArgs() []any { return []any{e.Change} }

// Hooks holds every typed hook. Dynamic hooks ({} in the name) are keyed
// by post type or taxonomy: bind with BindFor([]string{"page"}, fn) for
// one type, BindFunc for all.
type Hooks struct {
	InsertPost    *hooks.Hook[*InsertPostEvent]    // rest_insert_<post_type>
	DeletePost    *hooks.Hook[*DeletePostEvent]    // rest_delete_<post_type>
	PostTrashable *hooks.Hook[*PostTrashableEvent] // rest_<post_type>_trashable
	PreparePost   *hooks.Hook[*PreparePostEvent]   // rest_prepare_<post_type>
	PostQuery     *hooks.Hook[*PostQueryEvent]     // rest_<post_type>_query

	InsertTerm    *hooks.Hook[*InsertTermEvent]    // rest_insert_<taxonomy>
	DeleteTerm    *hooks.Hook[*DeleteTermEvent]    // rest_delete_<taxonomy>
	PreInsertTerm *hooks.Hook[*PreInsertTermEvent] // rest_pre_insert_<taxonomy>
	PrepareTerm   *hooks.Hook[*PrepareTermEvent]   // rest_prepare_<taxonomy>

	PreInsertComment *hooks.Hook[*PreInsertCommentEvent] // rest_pre_insert_comment
	InsertComment    *hooks.Hook[*InsertCommentEvent]    // rest_insert_comment
	DeleteComment    *hooks.Hook[*DeleteCommentEvent]    // rest_delete_comment
	CommentQuery     *hooks.Hook[*CommentQueryEvent]     // rest_comment_query
	CommentTrashable *hooks.Hook[*CommentTrashableEvent] // rest_comment_type_trashable

	InsertUser  *hooks.Hook[*InsertUserEvent]  // rest_insert_user
	AvatarSizes *hooks.Hook[*AvatarSizesEvent] // rest_avatar_sizes

	PreInsertUser *hooks.Hook[*PreInsertUserEvent] // rest_pre_insert_user
	PrepareUser   *hooks.Hook[*PrepareUserEvent]   // rest_prepare_user
	DeleteUser    *hooks.Hook[*DeleteUserEvent]    // rest_delete_user

	APIInit *hooks.Hook[*APIInitEvent] // rest_api_init
	Changed *hooks.Hook[*ChangeEvent]  // folio_changed

	log *slog.Logger
}

// NewHooks returns the hooks with no handlers.
func NewHooks() *Hooks {
	return &Hooks{
		InsertPost:       hooks.New[*InsertPostEvent]("rest_insert_{}"),
		DeletePost:       hooks.New[*DeletePostEvent]("rest_delete_{}"),
		PostTrashable:    hooks.New[*PostTrashableEvent]("rest_{}_trashable"),
		PreparePost:      hooks.New[*PreparePostEvent]("rest_prepare_{}"),
		PostQuery:        hooks.New[*PostQueryEvent]("rest_{}_query"),
		InsertTerm:       hooks.New[*InsertTermEvent]("rest_insert_{}"),
		DeleteTerm:       hooks.New[*DeleteTermEvent]("rest_delete_{}"),
		PreInsertTerm:    hooks.New[*PreInsertTermEvent]("rest_pre_insert_{}"),
		PrepareTerm:      hooks.New[*PrepareTermEvent]("rest_prepare_{}"),
		PreInsertComment: hooks.New[*PreInsertCommentEvent]("rest_pre_insert_comment"),
		InsertComment:    hooks.New[*InsertCommentEvent]("rest_insert_comment"),
		DeleteComment:    hooks.New[*DeleteCommentEvent]("rest_delete_comment"),
		CommentQuery:     hooks.New[*CommentQueryEvent]("rest_comment_query"),
		CommentTrashable: hooks.New[*CommentTrashableEvent]("rest_comment_type_trashable"),
		InsertUser:       hooks.New[*InsertUserEvent]("rest_insert_user"),
		AvatarSizes:      hooks.New[*AvatarSizesEvent]("rest_avatar_sizes"),
		PreInsertUser:    hooks.New[*PreInsertUserEvent]("rest_pre_insert_user"),
		PrepareUser:      hooks.New[*PrepareUserEvent]("rest_prepare_user"),
		DeleteUser:       hooks.New[*DeleteUserEvent]("rest_delete_user"),
		APIInit:          hooks.New[*APIInitEvent]("rest_api_init"),
		Changed:          hooks.New[*ChangeEvent]("folio_changed"),
		log:              slog.New(slog.DiscardHandler),
	}
}

// SetLogger sets where failing actions are logged.
func (h *Hooks) SetLogger(l *slog.Logger) {
	if l != nil {
		h.log = l
	}
}

// Action logs a failed action handler of the hook named name; actions
// never fail the write they observe.
func (h *Hooks) Action(name string, err error) {
	if err != nil {
		h.log.Error("extension: action failed", "hook", name, "err", err)
	}
}

// Filter runs a filter whose handlers may fail: on an error it is logged
// and the caller keeps the unfiltered value (ok false).
func (h *Hooks) Filter(name string, err error) (ok bool) {
	h.Action(name, err)
	return err == nil
}

// Record makes every hook report to rec (nil stops it); tests assert on
// it.
func (h *Hooks) Record(rec *hooks.Recorder) {
	h.InsertPost.Record(rec)
	h.DeletePost.Record(rec)
	h.PostTrashable.Record(rec)
	h.PreparePost.Record(rec)
	h.PostQuery.Record(rec)
	h.InsertTerm.Record(rec)
	h.DeleteTerm.Record(rec)
	h.PreInsertTerm.Record(rec)
	h.PrepareTerm.Record(rec)
	h.PreInsertComment.Record(rec)
	h.InsertComment.Record(rec)
	h.DeleteComment.Record(rec)
	h.CommentQuery.Record(rec)
	h.CommentTrashable.Record(rec)
	h.InsertUser.Record(rec)
	h.AvatarSizes.Record(rec)
	h.PreInsertUser.Record(rec)
	h.PrepareUser.Record(rec)
	h.DeleteUser.Record(rec)
	h.APIInit.Record(rec)
	h.Changed.Record(rec)
}

// termInsertedKey marks, in a request's cache, a term whose
// rest_insert_<taxonomy> already fired inside the write's transaction.
type termInsertedKey struct {
	taxonomy string
	id       int64
}

// The ids of the Changed handlers the server binds itself: the one that
// writes the webhooks' outbox rows and the one that runs the extension
// fields' updaters. Neither changes what the write wrote, except through
// an updater (MarkFieldsUpdated).
const (
	WebhooksOutboxHandler  = "webhooks_outbox"
	ExtensionFieldsHandler = "extension_fields"
)

// fieldsUpdatedKey marks a resource whose extension fields' updaters ran
// in the request's write.
type fieldsUpdatedKey struct {
	title string
	id    int64
}

// MarkFieldsUpdated records that updaters of extension fields ran for the
// resource (schema title, id) in the request's write transaction: they
// may have changed more than their fields.
func MarkFieldsUpdated(r *rest.Request, title string, id int64) {
	if r != nil {
		r.Cache()[fieldsUpdatedKey{title, id}] = true
	}
}

// FieldsUpdated reports whether MarkFieldsUpdated was called for the
// resource during r.
func FieldsUpdated(r *rest.Request, title string, id int64) bool {
	return r != nil && r.Cache()[fieldsUpdatedKey{title, id}] != nil
}

// MarkTermInserted records that rest_insert_<taxonomy> fired for the term
// inside the request's write transaction (before the extension fields'
// updaters, reference §11), so that it does not fire again after the
// commit.
func MarkTermInserted(r *rest.Request, taxonomy string, id int64) {
	if r != nil {
		r.Cache()[termInsertedKey{taxonomy, id}] = true
	}
}

// TakeTermInserted reports whether MarkTermInserted was called for the
// term during r, and forgets it.
func TakeTermInserted(r *rest.Request, taxonomy string, id int64) bool {
	if r == nil {
		return false
	}
	k := termInsertedKey{taxonomy, id}
	if r.Cache()[k] == nil {
		return false
	}
	delete(r.Cache(), k)
	return true
}
