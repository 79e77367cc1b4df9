package store

import "context"

// PostMetaStore keeps post meta: key/value pairs of a post (the post_meta
// table). Only keys an extension registered are ever exposed through the
// interface; the store itself does not know about registration.
//
// It is not part of Store yet: consumers type-assert a Store (or the
// transaction's Store) to PostMetaStore and report registered meta as
// unavailable when the implementation lacks it.
type PostMetaStore interface {
	// PostMeta loads, in one query, the values of the given keys (all keys
	// when keys is empty) of many posts: post id → key → values in
	// insertion order. Posts without such meta are absent.
	PostMeta(ctx context.Context, postIDs []int64, keys []string) (map[int64]map[string][]string, error)
	// SetPostMeta replaces every value of key on a post with values (an
	// empty list deletes the key). Inside a transaction it writes through
	// it.
	SetPostMeta(ctx context.Context, postID int64, key string, values []string) error
	// PostIDsWithMeta returns the ids of the posts having key with value,
	// or having key with any value when value is nil, in ascending order.
	PostIDsWithMeta(ctx context.Context, key string, value *string) ([]int64, error)
}
