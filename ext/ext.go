// Package ext is Folio's public extension API. An extension is a Go
// package with a type that implements Extension; in Register it adds post
// types, taxonomies, typed hooks, extra fields, registered post meta and
// routes. A custom main imports the extensions, hands them to Use and
// calls Main, and `go build` makes a custom folio binary:
//
//	package main
//
//	import (
//		"github.com/folio-server/folio/examples/readingtime"
//		"github.com/folio-server/folio/ext"
//	)
//
//	func main() {
//		ext.Use(readingtime.New())
//		ext.Main()
//	}
//
// See docs/extending.md.
package ext

import (
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// The extension host.
type (
	// Extension is implemented by every extension.
	Extension = extension.Extension
	// API is what Register gets: Hooks, RegisterField, RegisterMeta,
	// RegisterPostType, RegisterTaxonomy, RegisterRoute, Site, Logger.
	API = extension.API
	// Field is an extra field on a resource type.
	Field = extension.Field
	// FieldUpdate is what a field's Update gets.
	FieldUpdate = extension.FieldUpdate
	// Meta registers a post meta key.
	Meta = extension.Meta
	// Hooks holds every typed hook.
	Hooks = extension.Hooks
	// PostType and Taxonomy declare custom types and taxonomies, as the
	// config file does.
	PostType = config.PostType
	Taxonomy = config.Taxonomy
)

// Typed hooks.
type (
	// Handler is a hook handler with an id, a priority and optional keys.
	Handler[T hooks.Resolver] = hooks.Handler[T]
	// Recorder records fired hooks (tests).
	Recorder = hooks.Recorder

	InsertPostEvent       = extension.InsertPostEvent
	DeletePostEvent       = extension.DeletePostEvent
	PostTrashableEvent    = extension.PostTrashableEvent
	PreparePostEvent      = extension.PreparePostEvent
	PostQueryEvent        = extension.PostQueryEvent
	InsertTermEvent       = extension.InsertTermEvent
	DeleteTermEvent       = extension.DeleteTermEvent
	PreInsertTermEvent    = extension.PreInsertTermEvent
	PrepareTermEvent      = extension.PrepareTermEvent
	PreInsertCommentEvent = extension.PreInsertCommentEvent
	InsertCommentEvent    = extension.InsertCommentEvent
	DeleteCommentEvent    = extension.DeleteCommentEvent
	CommentQueryEvent     = extension.CommentQueryEvent
	CommentTrashableEvent = extension.CommentTrashableEvent
	InsertUserEvent       = extension.InsertUserEvent
	AvatarSizesEvent      = extension.AvatarSizesEvent
	APIInitEvent          = extension.APIInitEvent
	ChangeEvent           = extension.ChangeEvent
)

// REST building blocks.
type (
	Request   = rest.Request
	Response  = rest.Response
	Resource  = rest.Resource
	Route     = rest.Route
	Endpoint  = rest.Endpoint
	Arg       = rest.Arg
	Error     = rest.Error
	Property  = schema.Property
	Object    = schema.Object
	Context   = schema.Context
	Post      = store.Post
	PostQuery = store.PostQuery
	Term      = store.Term
	Comment   = store.Comment
	User      = store.User
	Store     = store.Store
)

// Contexts of a field.
const (
	View  = schema.View
	Edit  = schema.Edit
	Embed = schema.Embed
)

// Method groups of endpoints.
const (
	Readable  = rest.Readable
	Creatable = rest.Creatable
	Editable  = rest.Editable
	Deletable = rest.Deletable
)

// NewResponse returns a response with the given status and data.
func NewResponse(status int, data any) *Response { return rest.NewResponse(status, data) }

// NewError returns an API error.
func NewError(code string, status int, message string) *Error {
	return rest.NewError(code, status, message)
}

// Use adds extensions to the site Main (and server.New) builds.
func Use(exts ...Extension) { extension.Use(exts...) }
