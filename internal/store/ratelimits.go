package store

import (
	"context"
	"time"
)

// RateLimitStore keeps the token buckets of the API's rate limits in the
// database, so that every node sharing it takes from the same buckets.
//
// A bucket is kept as its theoretical arrival time (the generic cell rate
// algorithm): the time at which it would be full again. Taking a token
// moves it on by one interval; a token may be taken while it lies at most
// burst intervals ahead of now. A bucket whose time has passed is full and
// may be removed without changing anything.
type RateLimitStore interface {
	// TakeRateToken takes one token from the bucket key at now, where one
	// token comes back every interval and the bucket holds burst of them.
	// It returns 0 when the token was taken, else how long until one
	// will be (nothing is taken then). Concurrent calls, from any node,
	// are applied one after the other.
	TakeRateToken(ctx context.Context, key string, now time.Time, interval time.Duration, burst int) (time.Duration, error)
	// DeleteRateBuckets removes up to limit buckets that are full at t
	// (idle ones) and returns how many it removed.
	DeleteRateBuckets(ctx context.Context, t time.Time, limit int) (int64, error)
}
