package store

import (
	"context"
	"time"
)

// Inspector reports on a store's health and size, for folio doctor.
type Inspector interface {
	Inspect(ctx context.Context) (*Inspection, error)
}

// Inspection is what Inspect reports.
type Inspection struct {
	// Tables lists the site's tables and their row counts, by name.
	Tables []TableSize
	// PendingDeliveries counts webhook deliveries not yet delivered or
	// given up (the outbox backlog); OldestPending is when the oldest of
	// them was created (zero when there is none).
	PendingDeliveries int64
	OldestPending     time.Time
	// OldestEvent is when the oldest webhook event still kept happened
	// (zero when there is none).
	OldestEvent time.Time
}

// TableSize is the row count of one table.
type TableSize struct {
	Name string
	Rows int64
}
