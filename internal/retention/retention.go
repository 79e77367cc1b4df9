// Package retention keeps the database from growing for ever: it removes
// webhook events (and their delivery records) past their age or count,
// sign-in throttling counters that have leaked empty, and idle rate-limit
// buckets. It works in small batches, each its own short transaction, so
// that it never holds writers up for long, and from one node at a time:
// a pass runs only on the node that holds the store's lease.
package retention

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// Defaults of Policy.
const (
	// DefaultWebhookAge is how long webhook events are kept: 30 days.
	DefaultWebhookAge = 30 * 24 * time.Hour
	// DefaultWebhookEvents is how many webhook events are kept at most.
	DefaultWebhookEvents = 100_000
	// DefaultBatch is how many rows one statement removes.
	DefaultBatch = 500
	// DefaultInterval is how often a node tries a pass.
	DefaultInterval = 10 * time.Minute
	// LoginCounterAge is how long an unchanged sign-in counter is kept:
	// by then every counter has leaked empty.
	LoginCounterAge = 24 * time.Hour
)

// leaseName is the lease a pass holds.
const leaseName = "retention"

// Store is what a Pruner needs of the store.
type Store interface {
	store.RetentionStore
	store.RateLimitStore
}

// Policy says what is kept.
type Policy struct {
	// WebhookAge and WebhookEvents bound the webhook events kept (and
	// their deliveries): older ones, and those past the newest
	// WebhookEvents, are removed, unless a delivery of theirs is still
	// pending. Zero values take the defaults.
	WebhookAge    time.Duration
	WebhookEvents int
	// Batch is how many rows one statement removes; 0 means
	// DefaultBatch.
	Batch int
}

// Report says what one pass removed.
type Report struct {
	// Ran is false when another node held the lease.
	Ran                                  bool
	WebhookEvents, LoginCounters, Limits int64
}

// Pruner runs retention passes on one node.
type Pruner struct {
	Store  Store
	Policy Policy
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Owner names this node in the lease; empty means a random name.
	Owner string
	// Logger receives failures and what a pass removed.
	Logger *slog.Logger
	// Pause is the wait between two batches, so that other writers get
	// their turn; 0 means none.
	Pause time.Duration
}

func (p *Pruner) now() time.Time {
	if p.Now != nil {
		return p.Now().UTC()
	}
	return time.Now().UTC()
}

func (p *Pruner) owner() string {
	if p.Owner == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		p.Owner = "node-" + hex.EncodeToString(b[:])
	}
	return p.Owner
}

// Once runs one pass when this node gets the lease (held for
// DefaultInterval, or until the next pass of the same node takes it
// again): it removes batches until none is full or ctx ends.
func (p *Pruner) Once(ctx context.Context) (Report, error) {
	var r Report
	now := p.now()
	ok, err := p.Store.TakeLease(ctx, leaseName, p.owner(), now, now.Add(DefaultInterval))
	if err != nil || !ok {
		return r, err
	}
	r.Ran = true
	pol := p.Policy
	if pol.WebhookAge <= 0 {
		pol.WebhookAge = DefaultWebhookAge
	}
	if pol.WebhookEvents <= 0 {
		pol.WebhookEvents = DefaultWebhookEvents
	}
	batch := pol.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	for _, job := range []struct {
		what  string
		count *int64
		run   func() (int64, error)
	}{
		{"webhook events", &r.WebhookEvents, func() (int64, error) {
			return p.Store.PruneWebhookEvents(ctx, now.Add(-pol.WebhookAge), pol.WebhookEvents, batch)
		}},
		{"sign-in counters", &r.LoginCounters, func() (int64, error) {
			return p.Store.PruneLoginCounters(ctx, now.Add(-LoginCounterAge), batch)
		}},
		{"rate-limit buckets", &r.Limits, func() (int64, error) {
			return p.Store.DeleteRateBuckets(ctx, now, batch)
		}},
	} {
		for {
			n, err := job.run()
			*job.count += n
			if err != nil {
				return r, fmt.Errorf("retention: %s: %w", job.what, err)
			}
			if n < int64(batch) || ctx.Err() != nil {
				break
			}
			if p.Pause > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(p.Pause):
				}
			}
		}
	}
	return r, ctx.Err()
}

// Run runs a pass at once and then every interval (DefaultInterval when
// 0) until ctx ends, logging what each removed.
func (p *Pruner) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		r, err := p.Once(ctx)
		if err != nil && ctx.Err() == nil && p.Logger != nil {
			p.Logger.Warn("retention pass failed", "err", err)
		} else if r.WebhookEvents+r.LoginCounters+r.Limits > 0 && p.Logger != nil {
			p.Logger.Info("retention pass", "webhook_events", r.WebhookEvents, "login_counters", r.LoginCounters, "rate_buckets", r.Limits)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
