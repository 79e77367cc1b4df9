package store

import (
	"context"
	"time"
)

// RetentionStore removes what the site no longer needs, in small batches
// so that no statement holds writers up for long, and lets one process at
// a time do it.
type RetentionStore interface {
	// TakeLease gives the lease name to owner until until, when nobody
	// else holds it at now (or owner already does), and reports whether
	// owner has it.
	TakeLease(ctx context.Context, name, owner string, now, until time.Time) (bool, error)
	// PruneWebhookEvents removes up to limit webhook events, oldest
	// first, that happened before cutoff or are not among the newest
	// keep, with their deliveries; events with a pending delivery stay.
	// It returns how many events it removed.
	PruneWebhookEvents(ctx context.Context, cutoff time.Time, keep, limit int) (int64, error)
	// PruneLoginCounters removes up to limit sign-in throttling counters
	// last changed before cutoff.
	PruneLoginCounters(ctx context.Context, cutoff time.Time, limit int) (int64, error)
}
