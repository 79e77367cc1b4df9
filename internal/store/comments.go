package store

import (
	"context"
	"time"
)

// Comment is one row of the comments table: a comment, pingback or
// trackback on a post (or on no post when PostID is 0).
//
// Dates follow the posts' model: Date is the site-local wall clock, DateGMT
// the same instant in UTC.
type Comment struct {
	ID              int64
	PostID          int64
	Parent          int64
	AuthorID        int64 // 0 for guests
	AuthorName      string
	AuthorEmail     string
	AuthorURL       string
	AuthorIP        string
	AuthorUserAgent string
	Date            time.Time
	DateGMT         time.Time
	Content         string
	Karma           int64
	// Approved is the stored status: "1" approved, "0" held for
	// moderation, "spam", "trash", or "post-trashed".
	Approved string
	// Type is "comment" for ordinary comments, "pingback" or "trackback".
	Type string
	// PreTrashStatus holds Approved as it was before the comment was
	// trashed or marked as spam, so that untrash and unspam can restore it.
	PreTrashStatus string
}

// Stored comment approval values.
const (
	CommentApproved    = "1"
	CommentHeld        = "0"
	CommentSpam        = "spam"
	CommentTrash       = "trash"
	CommentPostTrashed = "post-trashed"
)

// CommentQuery selects comments for a collection. Zero values mean "no
// filter".
type CommentQuery struct {
	// Search keeps comments whose author name, URL or content contains
	// the string, and also author email or IP when SearchPrivate is set
	// (callers who may moderate comments).
	Search        string
	SearchPrivate bool
	After         *time.Time // exclusive, on the local date
	Before        *time.Time // exclusive, on the local date
	// Authors and AuthorExclude filter on the author's user id.
	Authors       []int64
	AuthorExclude []int64
	// AuthorEmail keeps comments with this author email (compared without
	// case).
	AuthorEmail string
	Include     []int64
	Exclude     []int64
	Karma       *int64
	// Posts keeps comments on these posts; 0 selects comments without a
	// post.
	Posts []int64
	// Parents keeps replies to these comments; 0 selects top-level
	// comments.
	Parents       []int64
	ParentExclude []int64
	// Approved keeps comments with one of these stored statuses.
	Approved []string
	// Types keeps comments of one of these types; "comment" also matches
	// an empty stored type.
	Types []string
	// Access, when set, keeps only the comments one caller may read.
	Access *CommentAccess

	// OrderBy is one of date, date_gmt (default), id, include, post,
	// parent, type. Order is "asc" (default) or "desc". Ties break on id.
	OrderBy string
	Order   string
	Offset  int
	Limit   int // 0 means no limit
}

// CommentAccess restricts a comment query to what one caller may read, so
// that collection totals equal what can be listed:
//
//   - the comment's post must be readable (or the comment has no post):
//     a post of type T is readable when it passes Types[T].Read and, if it
//     has a password, also passes Types[T].Edit or is in UnlockedPosts;
//     comments on posts of types not listed, or on missing posts, are
//     dropped;
//   - and the comment must be approved, or (when UserID is not 0) written
//     by UserID, or on a post that passes Types[T].Edit, or without a
//     post when EditNoPost is true. Unapproved comments without a post
//     need ModerateNoPost as well.
type CommentAccess struct {
	UserID        int64
	Types         []CommentTypeAccess
	UnlockedPosts []int64
	// EditNoPost is whether the caller may edit comments without a post
	// (edit_posts); ModerateNoPost whether it may read the unapproved ones
	// (moderate_comments).
	EditNoPost     bool
	ModerateNoPost bool
}

// CommentTypeAccess is which posts of one type a caller may read and edit,
// in the shape of a post query's Visibility.
type CommentTypeAccess struct {
	Type string
	Read Visibility
	Edit Visibility
}

// CommentStore keeps comments. Every write keeps posts.comment_count (the
// number of approved comments of a post) right inside the writing
// transaction, for the old and the new post of the comment.
type CommentStore interface {
	// GetComment loads one comment; ErrNotFound when there is none.
	GetComment(ctx context.Context, id int64) (*Comment, error)
	// GetComments loads many comments by id in one query; missing ids are
	// absent from the map.
	GetComments(ctx context.Context, ids []int64) (map[int64]*Comment, error)
	ListComments(ctx context.Context, q CommentQuery) ([]*Comment, error)
	CountComments(ctx context.Context, q CommentQuery) (int64, error)
	// InsertComment stores c (c.ID must be 0) and sets c.ID.
	InsertComment(ctx context.Context, c *Comment) error
	// UpdateComment writes every column of c; ErrNotFound when c.ID does
	// not exist.
	UpdateComment(ctx context.Context, c *Comment) error
	// DeleteComment removes a comment and moves its replies to its parent;
	// ErrNotFound when it does not exist.
	DeleteComment(ctx context.Context, id int64) error
	// DeletePostComments removes every comment of a post.
	DeletePostComments(ctx context.Context, postID int64) error
	// TrashPostComments marks every comment of a post that is not already
	// post-trashed as CommentPostTrashed, remembering each one's status
	// apart from PreTrashStatus (the trash_post_comments step of trashing
	// a post).
	TrashPostComments(ctx context.Context, postID int64) error
	// UntrashPostComments gives every post-trashed comment of a post back
	// the status TrashPostComments remembered (held when none was) and
	// forgets the remembered statuses of the post's comments.
	UntrashPostComments(ctx context.Context, postID int64) error
	// CommentsWithReplies reports, in one query, which of ids have at
	// least one reply that is approved or held.
	CommentsWithReplies(ctx context.Context, ids []int64) (map[int64]bool, error)
	// DuplicateComment reports whether a comment that is not in the trash
	// has c's post, parent and content and c's author name or (non-empty)
	// email.
	DuplicateComment(ctx context.Context, c *Comment) (bool, error)
	// HasApprovedComment reports whether an approved comment by this
	// author name and email exists.
	HasApprovedComment(ctx context.Context, name, email string) (bool, error)
}

// CommentPager is implemented by stores that can page the comments of many
// posts in one query. The comments endpoint uses it, when the store has
// it, to serve the embedded `replies` links of a page of posts without a
// query per post.
type CommentPager interface {
	// FirstCommentsOfPosts runs q once for each of posts (q.Posts is
	// replaced by that post; q.Offset is ignored) in one query and
	// returns, per post, its first q.Limit comments (all when 0) in q's
	// order and the number of comments q matches on it. Posts without
	// matches are absent from both maps.
	FirstCommentsOfPosts(ctx context.Context, q CommentQuery, posts []int64) (map[int64][]*Comment, map[int64]int64, error)
}
