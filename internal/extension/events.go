package extension

import "github.com/folio-server/folio/internal/events"

// The event types and hook registries live in package events, where the
// domain fires them; these names keep the extension API in one place.
type (
	InsertPostEvent       = events.InsertPostEvent
	DeletePostEvent       = events.DeletePostEvent
	PostTrashableEvent    = events.PostTrashableEvent
	PreparePostEvent      = events.PreparePostEvent
	PostQueryEvent        = events.PostQueryEvent
	InsertTermEvent       = events.InsertTermEvent
	DeleteTermEvent       = events.DeleteTermEvent
	PreInsertTermEvent    = events.PreInsertTermEvent
	PrepareTermEvent      = events.PrepareTermEvent
	PreInsertCommentEvent = events.PreInsertCommentEvent
	InsertCommentEvent    = events.InsertCommentEvent
	DeleteCommentEvent    = events.DeleteCommentEvent
	CommentQueryEvent     = events.CommentQueryEvent
	CommentTrashableEvent = events.CommentTrashableEvent
	InsertUserEvent       = events.InsertUserEvent
	PreInsertUserEvent    = events.PreInsertUserEvent
	PrepareUserEvent      = events.PrepareUserEvent
	DeleteUserEvent       = events.DeleteUserEvent
	AvatarSizesEvent      = events.AvatarSizesEvent
	APIInitEvent          = events.APIInitEvent
	ChangeEvent           = events.ChangeEvent

	// Hooks holds every typed hook (events.Hooks).
	Hooks = events.Hooks
)

// NewHooks returns the hooks with no handlers.
func NewHooks() *Hooks { return events.NewHooks() }
