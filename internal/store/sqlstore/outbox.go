package sqlstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/folio-server/folio/internal/store"
)

// Outbox times are stored as Unix milliseconds, 0 for the zero time.

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

const webhookCols = `id, url, events, secret, active, COALESCE(config_key, ''), created, modified`

func scanWebhook(sc scanner) (*store.Webhook, error) {
	var w store.Webhook
	var events string
	var created, modified int64
	if err := sc.Scan(&w.ID, &w.URL, &events, &w.Secret, &w.Active, &w.ConfigKey, &created, &modified); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return nil, fmt.Errorf("webhook %d events: %w", w.ID, err)
	}
	w.Created, w.Modified = fromMS(created), fromMS(modified)
	return &w, nil
}

// ListWebhooks returns every webhook in id order.
func (o ops) ListWebhooks(ctx context.Context) ([]*store.Webhook, error) {
	var out []*store.Webhook
	if err := collect(ctx, o.reader(), &out, scanWebhook, `SELECT `+webhookCols+` FROM webhooks ORDER BY id`); err != nil {
		return nil, o.db.fail("list webhooks", err)
	}
	return out, nil
}

// GetWebhook loads one webhook.
func (o ops) GetWebhook(ctx context.Context, id int64) (*store.Webhook, error) {
	w, err := scanWebhook(o.reader().queryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound(fmt.Sprintf("webhook %d", id))
	}
	if err != nil {
		return nil, o.db.fail(fmt.Sprintf("get webhook %d", id), err)
	}
	return w, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func eventsJSON(xs []string) string {
	if xs == nil {
		xs = []string{}
	}
	return JSONList(xs)
}

// InsertWebhook stores w and sets its id.
func (o ops) InsertWebhook(ctx context.Context, w *store.Webhook) error {
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		id, err := q.insert(ctx, "webhooks", `url, events, secret, active, config_key, created, modified`,
			w.URL, eventsJSON(w.Events), w.Secret, w.Active, nullable(w.ConfigKey), ms(w.Created), ms(w.Modified))
		if err != nil {
			return false, o.db.conflict(err, "insert webhook")
		}
		w.ID = id
		return false, nil
	})
}

// UpdateWebhook writes a webhook's settings.
func (o ops) UpdateWebhook(ctx context.Context, w *store.Webhook) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE webhooks SET url = $1, events = $2, secret = $3, active = $4, modified = $5 WHERE id = $6`,
			w.URL, eventsJSON(w.Events), w.Secret, w.Active, ms(w.Modified), w.ID)
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("update webhook %d", w.ID), err)
		}
		_, err = o.db.affected(res, fmt.Sprintf("webhook %d", w.ID))
		return false, err
	})
}

// DeleteWebhook removes a webhook and its deliveries.
func (o ops) DeleteWebhook(ctx context.Context, id int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM webhooks WHERE id = $1`, id)
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("delete webhook %d", id), err)
		}
		_, err = o.db.affected(res, fmt.Sprintf("webhook %d", id))
		return false, err
	})
}

// EnqueueEvent stores an event and its deliveries.
func (o ops) EnqueueEvent(ctx context.Context, ev *store.WebhookEvent, webhookIDs []int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var snapshot any
		if ev.Snapshot != nil {
			snapshot = string(ev.Snapshot)
		}
		id, err := q.insert(ctx, "webhook_events", `name, kind, object_type, object_id, snapshot, occurred_at`,
			ev.Name, ev.Kind, ev.ObjectType, ev.ObjectID, snapshot, ms(ev.OccurredAt))
		if err != nil {
			return false, o.db.fail("enqueue event", err)
		}
		ev.ID = id
		for _, wid := range webhookIDs {
			u, err := uuid.NewRandomFromReader(rand.Reader)
			if err != nil {
				return false, o.db.fail("delivery id", err)
			}
			if _, err := q.insert(ctx, "webhook_deliveries", `uuid, webhook_id, event_id, event, next_attempt, created`,
				u.String(), wid, ev.ID, ev.Name, ms(ev.OccurredAt), ms(ev.OccurredAt)); err != nil {
				return false, o.db.fail("enqueue delivery", err)
			}
		}
		return false, nil
	})
}

// GetWebhookEvent loads one event.
func (o ops) GetWebhookEvent(ctx context.Context, id int64) (*store.WebhookEvent, error) {
	var ev store.WebhookEvent
	var snap sql.NullString
	var at int64
	err := o.reader().queryRow(ctx, `SELECT id, name, kind, object_type, object_id, snapshot, occurred_at
		FROM webhook_events WHERE id = $1`, id).
		Scan(&ev.ID, &ev.Name, &ev.Kind, &ev.ObjectType, &ev.ObjectID, &snap, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound(fmt.Sprintf("webhook event %d", id))
	}
	if err != nil {
		return nil, o.db.fail(fmt.Sprintf("get webhook event %d", id), err)
	}
	if snap.Valid {
		ev.Snapshot = []byte(snap.String)
	}
	ev.OccurredAt = fromMS(at)
	return &ev, nil
}

// NextDeliveryDue returns the earliest due time of the claimable
// deliveries.
func (o ops) NextDeliveryDue(ctx context.Context, now time.Time) (time.Time, error) {
	var next sql.NullInt64
	err := o.reader().queryRow(ctx, `SELECT MIN(next_attempt) FROM webhook_deliveries
		WHERE status = 'pending' AND lease_until <= $1`, ms(now)).Scan(&next)
	if err != nil {
		return time.Time{}, o.db.fail("next delivery", err)
	}
	if !next.Valid {
		return time.Time{}, nil
	}
	return fromMS(next.Int64), nil
}

const deliveryCols = `id, uuid, webhook_id, event_id, event, status, attempts, next_attempt, lease_owner, lease_until, body, last_status, last_error, created, completed_at`

func scanDelivery(sc scanner) (*store.WebhookDelivery, error) {
	var d store.WebhookDelivery
	var next, lease, created, completed, attempts, lastStatus int64
	var body []byte
	if err := sc.Scan(&d.ID, &d.UUID, &d.WebhookID, &d.EventID, &d.Event, &d.Status, &attempts, &next,
		&d.LeaseOwner, &lease, &body, &lastStatus, &d.LastError, &created, &completed); err != nil {
		return nil, err
	}
	d.Attempts, d.LastStatus = int(attempts), int(lastStatus)
	d.NextAttempt, d.LeaseUntil, d.Created, d.CompletedAt = fromMS(next), fromMS(lease), fromMS(created), fromMS(completed)
	if body != nil {
		d.Body = body
	}
	return &d, nil
}

// ClaimDeliveries leases due deliveries to owner in one statement. Where
// rows are locked, rows other workers are claiming at the same moment are
// skipped, not waited for (FOR UPDATE SKIP LOCKED); where the write
// transaction holds the whole database, claims run one at a time. Either
// way no two workers on any node get the same delivery.
func (o ops) ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]*store.WebhookDelivery, error) {
	var out []*store.WebhookDelivery
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		err := collect(ctx, q, &out, scanDelivery, `UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2
			WHERE id IN (SELECT id FROM webhook_deliveries
				WHERE status = 'pending' AND next_attempt <= $3 AND lease_until <= $3
				ORDER BY next_attempt, id LIMIT $4`+o.db.d.Lock(true)+`)
			RETURNING `+deliveryCols, owner, ms(now.Add(lease)), ms(now), int64(limit))
		if err != nil {
			return false, o.db.fail("claim deliveries", err)
		}
		return false, nil
	})
	// RETURNING gives no order.
	slices.SortFunc(out, func(a, b *store.WebhookDelivery) int {
		if c := a.NextAttempt.Compare(b.NextAttempt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, err
}

// FreezeDeliveryBody sets the body of a delivery once.
func (o ops) FreezeDeliveryBody(ctx context.Context, id int64, owner string, now time.Time, body []byte) ([]byte, error) {
	var stored []byte
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		var cur []byte
		var leaseOwner string
		var leaseUntil int64
		err := q.queryRow(ctx, `SELECT body, lease_owner, lease_until FROM webhook_deliveries WHERE id = $1`+o.db.d.Lock(false), id).
			Scan(&cur, &leaseOwner, &leaseUntil)
		if errors.Is(err, sql.ErrNoRows) {
			return false, o.db.notFound(fmt.Sprintf("delivery %d", id))
		}
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("freeze delivery %d", id), err)
		}
		if leaseOwner != owner || leaseUntil <= ms(now) {
			return false, o.db.errorf("delivery %d: lease lost: %w", id, store.ErrConflict)
		}
		if cur != nil {
			stored = cur
			return false, nil
		}
		if _, err := q.exec(ctx, `UPDATE webhook_deliveries SET body = $1 WHERE id = $2`, body, id); err != nil {
			return false, o.db.fail(fmt.Sprintf("freeze delivery %d", id), err)
		}
		stored = body
		return false, nil
	})
	return stored, err
}

// CompleteDelivery records one attempt and releases the lease.
func (o ops) CompleteDelivery(ctx context.Context, id int64, owner string, r store.DeliveryResult) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		completed := int64(0)
		if r.Status != store.DeliveryPending {
			completed = ms(r.At)
		}
		res, err := q.exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, status = $1, next_attempt = $2,
			last_status = $3, last_error = $4, completed_at = $5, lease_owner = '', lease_until = 0
			WHERE id = $6 AND lease_owner = $7 AND lease_until > $8`,
			r.Status, ms(r.NextAttempt), int64(r.HTTPStatus), r.Error, completed, id, owner, ms(r.At))
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("complete delivery %d", id), err)
		}
		n, err := o.db.rowsAffected(res, fmt.Sprintf("complete delivery %d", id))
		if err != nil {
			return false, err
		}
		if n == 0 {
			return false, o.db.errorf("delivery %d: lease lost: %w", id, store.ErrConflict)
		}
		return false, nil
	})
}

// ListDeliveries returns a webhook's delivery log, newest first.
func (o ops) ListDeliveries(ctx context.Context, webhookID int64, limit int) ([]*store.WebhookDelivery, error) {
	var out []*store.WebhookDelivery
	if err := collect(ctx, o.reader(), &out, scanDelivery, `SELECT `+deliveryCols+` FROM webhook_deliveries
		WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2`, webhookID, int64(limit)); err != nil {
		return nil, o.db.fail("list deliveries", err)
	}
	return out, nil
}
