package content

import (
	"context"
	"errors"

	"github.com/folio-server/folio/internal/store"
)

// PostHooks are the post hook points of the posts, pages, custom types and
// media controllers (the seed's Events table). internal/extension sets them
// to fire its typed hooks; each is optional. request is the interface
// request and response the resource being built.
type PostHooks struct {
	// Insert is rest_insert_<post_type> (rest_insert_attachment for
	// media): it runs after a post was created (creating true) or updated
	// and its extension fields were written.
	Insert func(ctx context.Context, pt *PostType, p *store.Post, request any, creating bool)
	// Delete is rest_delete_<post_type>: it runs after a post was trashed
	// or deleted, with the response data of the post as it was.
	Delete func(ctx context.Context, pt *PostType, p *store.Post, response any, request any)
	// Prepare is rest_prepare_<post_type> (rest_prepare_attachment): it
	// may change the response built for a post.
	Prepare func(ctx context.Context, pt *PostType, p *store.Post, response any, request any)
	// Query is rest_<post_type>_query: it gets the collection query and
	// returns the query to run.
	Query func(ctx context.Context, pt *PostType, q store.PostQuery, request any) store.PostQuery
}

// InsertPostHook fires rest_insert_<post_type>.
func (s *Site) InsertPostHook(ctx context.Context, pt *PostType, p *store.Post, request any, creating bool) {
	if s.PostHooks.Insert != nil {
		s.PostHooks.Insert(ctx, pt, p, request, creating)
	}
}

// DeletePostHook fires rest_delete_<post_type>.
func (s *Site) DeletePostHook(ctx context.Context, pt *PostType, p *store.Post, response, request any) {
	if s.PostHooks.Delete != nil {
		s.PostHooks.Delete(ctx, pt, p, response, request)
	}
}

// PreparePostHook fires rest_prepare_<post_type>.
func (s *Site) PreparePostHook(ctx context.Context, pt *PostType, p *store.Post, response, request any) {
	if s.PostHooks.Prepare != nil {
		s.PostHooks.Prepare(ctx, pt, p, response, request)
	}
}

// PostQueryHook fires rest_<post_type>_query.
func (s *Site) PostQueryHook(ctx context.Context, pt *PostType, q store.PostQuery, request any) store.PostQuery {
	if s.PostHooks.Query != nil {
		return s.PostHooks.Query(ctx, pt, q, request)
	}
	return q
}

// Change describes one write of the domain, reported to Site.Changed
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

// changed reports ch to Site.Changed inside the transaction tx; an error
// rolls the write back.
func (s *Site) changed(ctx context.Context, tx store.Store, ch Change) error {
	if s.Changed == nil {
		return nil
	}
	return s.Changed(ctx, tx, ch)
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
	if pt.Name == "attachment" {
		return "media"
	}
	return "post"
}
