package store

import (
	"context"
	"time"
)

// Webhook is one outbound webhook subscription.
type Webhook struct {
	ID  int64
	URL string
	// Events are the subscribed event names ("post.created", ...); "*"
	// subscribes to every event.
	Events []string
	// Secret signs deliveries (HMAC-SHA256); never shown by the interface.
	Secret string
	Active bool
	// ConfigKey is non-empty for webhooks declared in folio.toml: the key
	// they are kept under, so that each start updates rather than adds them.
	ConfigKey string
	Created   time.Time
	Modified  time.Time
}

// WebhookEvent is one event in the outbox, written in the same transaction
// as the change it reports.
type WebhookEvent struct {
	ID int64
	// Name is the event name, e.g. "post.published" or "term.deleted".
	Name string
	// Kind is the resource kind (post, term, comment, media, user) and
	// ObjectType the post type or taxonomy (empty for the others).
	Kind       string
	ObjectType string
	ObjectID   int64
	// Snapshot is the JSON of the record as it was when the event was
	// written; deliveries of deleted records send it as data.
	Snapshot   []byte
	OccurredAt time.Time
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is the delivery of one event to one webhook, and its log
// entry.
type WebhookDelivery struct {
	ID int64
	// UUID is the delivery id sent as X-Folio-Delivery and "delivery_id":
	// the idempotency key receivers deduplicate on. Retries keep it.
	UUID      string
	WebhookID int64
	EventID   int64
	Event     string // the event name, copied for the log
	// Status is DeliveryPending, DeliveryDelivered or DeliveryFailed.
	Status   string
	Attempts int
	// NextAttempt is when a pending delivery is due.
	NextAttempt time.Time
	// LeaseOwner and LeaseUntil are set while a worker holds the delivery.
	LeaseOwner string
	LeaseUntil time.Time
	// Body is the exact JSON body, frozen at the first attempt so that
	// every retry sends (and signs) the same bytes; nil until then.
	Body []byte
	// LastStatus is the HTTP status of the last attempt (0 when the
	// request failed before a response) and LastError its error.
	LastStatus  int
	LastError   string
	Created     time.Time
	CompletedAt time.Time // zero while pending
}

// DeliveryResult is the outcome of one delivery attempt.
type DeliveryResult struct {
	// Status is the new state: DeliveryDelivered, DeliveryPending (retry
	// at NextAttempt) or DeliveryFailed (gave up).
	Status      string
	NextAttempt time.Time
	HTTPStatus  int
	Error       string
	At          time.Time
}

// OutboxStore keeps webhooks, the event outbox and the deliveries.
//
// The contract every implementation follows (SQLite and PostgreSQL pass the
// same tests):
//
//   - EnqueueEvent is called inside the transaction of the change it
//     reports (through the Store passed to Tx): the event and its
//     deliveries commit or roll back with the change, so no acknowledged
//     change loses its event and no rolled-back change sends one.
//   - ClaimDeliveries hands each due delivery to at most one worker at a
//     time across every process sharing the database: it atomically sets
//     lease_owner = owner and lease_until = now+lease on up to limit rows
//     with status pending, next_attempt <= now and no live lease
//     (lease_until null or <= now), oldest next_attempt first, and returns
//     them. On PostgreSQL this is one statement
//     UPDATE ... WHERE id IN (SELECT id ... FOR UPDATE SKIP LOCKED LIMIT n)
//     RETURNING ..., so concurrent workers skip each other's rows instead
//     of waiting; on SQLite the single writer serialises claims. A lease
//     that runs out (the worker crashed or hung) makes the delivery
//     claimable again: delivery is at least once, and the delivery UUID is
//     the idempotency key receivers use to drop repeats.
//   - FreezeDeliveryBody and CompleteDelivery only act while owner still
//     holds the lease (lease_owner = owner and lease_until > now); otherwise
//     they return ErrConflict and change nothing (a fenced-off worker must
//     not overwrite the result of the one that took over).
//   - None of these writes bumps the store Version (they are not content).
type OutboxStore interface {
	ListWebhooks(ctx context.Context) ([]*Webhook, error)
	// GetWebhook returns ErrNotFound when there is none.
	GetWebhook(ctx context.Context, id int64) (*Webhook, error)
	// InsertWebhook stores w (ID 0) and sets w.ID; ErrConflict when its
	// ConfigKey is taken.
	InsertWebhook(ctx context.Context, w *Webhook) error
	// UpdateWebhook writes URL, Events, Secret, Active and Modified;
	// ErrNotFound when w is missing.
	UpdateWebhook(ctx context.Context, w *Webhook) error
	// DeleteWebhook removes a webhook and its deliveries; ErrNotFound when
	// there is none.
	DeleteWebhook(ctx context.Context, id int64) error

	// EnqueueEvent stores ev (sets ev.ID) and one pending delivery, due at
	// ev.OccurredAt, for each of the given webhooks, each with a fresh
	// UUID.
	EnqueueEvent(ctx context.Context, ev *WebhookEvent, webhookIDs []int64) error
	// GetWebhookEvent loads one event; ErrNotFound when there is none.
	GetWebhookEvent(ctx context.Context, id int64) (*WebhookEvent, error)
	// NextDeliveryDue returns the earliest NextAttempt of the claimable
	// deliveries (pending, no live lease at now), or the zero time when
	// there are none. It only reads.
	NextDeliveryDue(ctx context.Context, now time.Time) (time.Time, error)
	// ClaimDeliveries leases up to limit due deliveries to owner (see the
	// contract above).
	ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]*WebhookDelivery, error)
	// FreezeDeliveryBody sets the body of a delivery whose body is still
	// nil and returns the body now stored (the existing one when it was
	// set before).
	FreezeDeliveryBody(ctx context.Context, id int64, owner string, now time.Time, body []byte) ([]byte, error)
	// CompleteDelivery records an attempt: Attempts+1, the result, and
	// releases the lease.
	CompleteDelivery(ctx context.Context, id int64, owner string, res DeliveryResult) error
	// ListDeliveries returns the deliveries of a webhook, newest first,
	// at most limit (the delivery log).
	ListDeliveries(ctx context.Context, webhookID int64, limit int) ([]*WebhookDelivery, error)
}
