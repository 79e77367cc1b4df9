package store

import (
	"context"
	"time"
)

// Media is the file record of an attachment (a post of type attachment):
// where its original file lives and what Folio learned about it on upload.
type Media struct {
	PostID int64
	// File is the original's path relative to the uploads root, e.g.
	// "2024/05/photo.jpg".
	File string
	// AltText is the attachment's alternative text (plain text).
	AltText string
	// Details is the JSON of the attachment's media_details (width,
	// height, sizes, image_meta); "{}" for files without metadata.
	Details string
}

// MediaStore keeps attachment file records and the upload paths they own.
// A path is reserved (owner 0) before its bytes are written, so two uploads
// on any node never pick the same name, and attached to its post when the
// record is stored. A reservation remembers when it was made (its own
// column, reserved_at, since migration 0010; reservations older than the
// column count as made long ago), so that reservations left behind by a
// process that died mid-upload can be swept.
type MediaStore interface {
	// GetMedia loads the file records of many attachments in one query;
	// missing ids are absent from the map.
	GetMedia(ctx context.Context, ids []int64) (map[int64]*Media, error)
	// PutMedia inserts or replaces m.
	PutMedia(ctx context.Context, m *Media) error
	// ReserveMediaPaths records every path with owner 0, all or none:
	// ErrConflict when one of them is taken.
	ReserveMediaPaths(ctx context.Context, paths []string) error
	// AttachMediaPaths makes postID the owner of the given paths.
	AttachMediaPaths(ctx context.Context, postID int64, paths []string) error
	// ReleaseMediaPaths forgets the given paths.
	ReleaseMediaPaths(ctx context.Context, paths []string) error
	// MediaPaths returns every path postID owns.
	MediaPaths(ctx context.Context, postID int64) ([]string, error)
	// MediaPathOwner returns the owner of path (0 while an upload is in
	// flight); ErrNotFound when nobody has it.
	MediaPathOwner(ctx context.Context, path string) (int64, error)
	// MediaPathsKnown reports which of paths are recorded (owned or
	// reserved), in one query.
	MediaPathsKnown(ctx context.Context, paths []string) (map[string]bool, error)
	// StaleMediaReservations returns up to limit paths, sorted, that are
	// still reserved (owner 0) and were reserved before cutoff.
	StaleMediaReservations(ctx context.Context, cutoff time.Time, limit int) ([]string, error)
	// ReleaseMediaReservations forgets those of paths that are still
	// reserved (owner 0); paths attached meanwhile are kept.
	ReleaseMediaReservations(ctx context.Context, paths []string) error
}
