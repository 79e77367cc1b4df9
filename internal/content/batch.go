package content

import (
	"context"
	"errors"

	"github.com/folio-server/folio/internal/store"
)

// The batch reads below load records by id in one query each, for the
// controllers' prefetching of embedded sub-requests and the per-page
// lookups of a collection. They apply no rule: the controllers check every
// record they load this way as they check one loaded by Get*.

// GetPosts loads the posts with the given ids in one read; ids without a
// post are absent from the map.
func (s *Site) GetPosts(ctx context.Context, ids []int64) (map[int64]*store.Post, error) {
	return s.st.GetPosts(ctx, ids)
}

// GetComments loads the comments with the given ids in one read; ids
// without a comment are absent from the map.
func (s *Site) GetComments(ctx context.Context, ids []int64) (map[int64]*store.Comment, error) {
	return s.st.GetComments(ctx, ids)
}

// GetTerms loads the terms with the given ids in one read; ids without a
// term are absent from the map.
func (s *Site) GetTerms(ctx context.Context, ids []int64) (map[int64]*store.Term, error) {
	return s.st.GetTerms(ctx, ids)
}

// GetUsers loads the users with the given ids in one read; ids without a
// user are absent from the map.
func (s *Site) GetUsers(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
	return s.st.GetUsers(ctx, ids)
}

// CommentsWithReplies reports, in one read, which of the comments ids have
// at least one reply.
func (s *Site) CommentsWithReplies(ctx context.Context, ids []int64) (map[int64]bool, error) {
	return s.st.CommentsWithReplies(ctx, ids)
}

// errNoCommentPager is FirstCommentsOfPosts' error on a store that cannot
// page the comments of many posts at once.
var errNoCommentPager = errors.New("content: the store cannot page the comments of many posts")

// CanPageCommentsOfPosts reports whether FirstCommentsOfPosts works on
// this site's store (store.CommentPager).
func (s *Site) CanPageCommentsOfPosts() bool {
	_, ok := s.st.(store.CommentPager)
	return ok
}

// FirstCommentsOfPosts runs q for each of posts in one read and returns,
// per post, its first q.Limit comments and how many q matches on it (see
// store.CommentPager); it fails when CanPageCommentsOfPosts is false.
func (s *Site) FirstCommentsOfPosts(ctx context.Context, q store.CommentQuery, posts []int64) (map[int64][]*store.Comment, map[int64]int64, error) {
	pager, ok := s.st.(store.CommentPager)
	if !ok {
		return nil, nil, errNoCommentPager
	}
	return pager.FirstCommentsOfPosts(ctx, q, posts)
}

// Storage returns the site's store, for the tools that work below the
// rules on purpose: the importer, the exporter, the command line's account
// commands and the extension API's own storage. Request handlers never
// use it; they go through the Site's methods.
func (s *Site) Storage() store.Store { return s.st }
