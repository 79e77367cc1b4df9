package store

import "context"

// Exporter is implemented by stores that can walk a whole site in id order,
// one bounded batch at a time, whatever the status or visibility of its
// rows, as `folio export` does. Every method pages with a keyset (the last
// id seen), never with an offset, so that walking a million posts costs one
// index range scan per batch. It is kept out of Store: only tools need it.
type Exporter interface {
	// ExportPosts returns up to q.Limit posts with an id greater than
	// q.After, in id order.
	ExportPosts(ctx context.Context, q ExportPostQuery) ([]*Post, error)
	// ExportTerms returns up to limit terms of taxonomy with an id greater
	// than after, in id order.
	ExportTerms(ctx context.Context, taxonomy string, after int64, limit int) ([]*Term, error)
	// ExportUsers returns up to limit users with an id greater than after,
	// in id order.
	ExportUsers(ctx context.Context, after int64, limit int) ([]*User, error)
	// ExportComments returns up to q.Limit comments of q.Posts that come
	// after the cursor (q.AfterPost, q.AfterID), in (post id, id) order.
	ExportComments(ctx context.Context, q ExportCommentQuery) ([]*ExportedComment, error)
	// ExportPostMeta returns up to limit meta rows of posts that come after
	// the cursor (afterPost, afterID), in (post id, row id) order: the
	// order they were written in, per post.
	ExportPostMeta(ctx context.Context, posts []int64, afterPost, afterID int64, limit int) ([]*PostMetaRow, error)
}

// ExportPostQuery selects one batch of posts for an export. Zero values
// mean "no filter".
type ExportPostQuery struct {
	// After is the last id of the previous batch (0 for the first).
	After int64
	Limit int
	// Types keeps posts of these types.
	Types []string
	// SkipStatuses leaves out posts with these statuses.
	SkipStatuses []string
}

// ExportCommentQuery selects one batch of the comments of some posts.
type ExportCommentQuery struct {
	Posts []int64
	// AfterPost and AfterID are the post id and id of the last comment of
	// the previous batch (both 0 for the first).
	AfterPost, AfterID int64
	Limit              int
	// Approved keeps only comments with one of these stored statuses;
	// SkipApproved leaves out those with one of these.
	Approved     []string
	SkipApproved []string
}

// ExportedComment is a comment with what an export needs beyond the
// Comment record: the status the comment had before its post went to the
// trash (set only while it is CommentPostTrashed).
type ExportedComment struct {
	Comment
	PostTrashStatus string
}

// PostMetaRow is one row of the post_meta table.
type PostMetaRow struct {
	ID     int64
	PostID int64
	Key    string
	Value  string
}

// Snapshotter is implemented by stores that can run a function against one
// consistent, read-only snapshot of the database, so that a long read (an
// export) sees no write committed after it began while the site keeps
// serving and writing. It is kept out of Store: only tools need it.
type Snapshotter interface {
	// ReadSnapshot runs fn with a store whose reads all see the database
	// as it was when the snapshot began; writes through it fail. The
	// snapshot never blocks writers.
	ReadSnapshot(ctx context.Context, fn func(Store) error) error
}
