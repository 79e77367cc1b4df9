package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/folio-server/folio/internal/store"
)

var _ store.OutboxStore = ops{}

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

func scanWebhook(sc interface{ Scan(...any) error }) (*store.Webhook, error) {
	var w store.Webhook
	var events string
	var created, modified int64
	if err := sc.Scan(&w.ID, &w.URL, &events, &w.Secret, &w.Active, &w.ConfigKey, &created, &modified); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return nil, fmt.Errorf("sqlite: webhook %d events: %w", w.ID, err)
	}
	w.Created, w.Modified = fromMS(created), fromMS(modified)
	return &w, nil
}

// ListWebhooks returns every webhook in id order.
func (o ops) ListWebhooks(ctx context.Context) ([]*store.Webhook, error) {
	rows, err := o.reader().query(ctx, `SELECT `+webhookCols+` FROM webhooks ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list webhooks: %w", err)
	}
	defer rows.Close()
	var out []*store.Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// GetWebhook loads one webhook.
func (o ops) GetWebhook(ctx context.Context, id int64) (*store.Webhook, error) {
	w, err := scanWebhook(o.reader().queryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: webhook %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get webhook %d: %w", id, err)
	}
	return w, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// InsertWebhook stores w and sets its id.
func (o ops) InsertWebhook(ctx context.Context, w *store.Webhook) error {
	events, err := json.Marshal(nonNil(w.Events))
	if err != nil {
		return fmt.Errorf("sqlite: insert webhook: %w", err)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO webhooks (url, events, secret, active, config_key, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			w.URL, string(events), w.Secret, w.Active, nullable(w.ConfigKey), ms(w.Created), ms(w.Modified))
		if err != nil {
			return false, conflict(err, "insert webhook")
		}
		if w.ID, err = res.LastInsertId(); err != nil {
			return false, fmt.Errorf("sqlite: insert webhook: %w", err)
		}
		return false, nil
	})
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// UpdateWebhook writes a webhook's settings.
func (o ops) UpdateWebhook(ctx context.Context, w *store.Webhook) error {
	events, err := json.Marshal(nonNil(w.Events))
	if err != nil {
		return fmt.Errorf("sqlite: update webhook: %w", err)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE webhooks SET url = ?, events = ?, secret = ?, active = ?, modified = ? WHERE id = ?`,
			w.URL, string(events), w.Secret, w.Active, ms(w.Modified), w.ID)
		if err != nil {
			return false, fmt.Errorf("sqlite: update webhook %d: %w", w.ID, err)
		}
		return affected(res, fmt.Sprintf("webhook %d", w.ID))
	})
}

// DeleteWebhook removes a webhook and its deliveries.
func (o ops) DeleteWebhook(ctx context.Context, id int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete webhook %d: %w", id, err)
		}
		return affected(res, fmt.Sprintf("webhook %d", id))
	})
}

// EnqueueEvent stores an event and its deliveries.
func (o ops) EnqueueEvent(ctx context.Context, ev *store.WebhookEvent, webhookIDs []int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO webhook_events (name, kind, object_type, object_id, snapshot, occurred_at) VALUES (?, ?, ?, ?, ?, ?)`,
			ev.Name, ev.Kind, ev.ObjectType, ev.ObjectID, nullBytes(ev.Snapshot), ms(ev.OccurredAt))
		if err != nil {
			return false, fmt.Errorf("sqlite: enqueue event: %w", err)
		}
		if ev.ID, err = res.LastInsertId(); err != nil {
			return false, fmt.Errorf("sqlite: enqueue event: %w", err)
		}
		for _, wid := range webhookIDs {
			id, err := newUUID()
			if err != nil {
				return false, err
			}
			if _, err := q.exec(ctx, `INSERT INTO webhook_deliveries (uuid, webhook_id, event_id, event, next_attempt, created) VALUES (?, ?, ?, ?, ?, ?)`,
				id, wid, ev.ID, ev.Name, ms(ev.OccurredAt), ms(ev.OccurredAt)); err != nil {
				return false, fmt.Errorf("sqlite: enqueue delivery: %w", err)
			}
		}
		return false, nil
	})
}

func newUUID() (string, error) {
	u, err := uuid.NewRandomFromReader(rand.Reader)
	if err != nil {
		return "", fmt.Errorf("sqlite: delivery id: %w", err)
	}
	return u.String(), nil
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// GetWebhookEvent loads one event.
func (o ops) GetWebhookEvent(ctx context.Context, id int64) (*store.WebhookEvent, error) {
	var ev store.WebhookEvent
	var snap sql.NullString
	var at int64
	err := o.reader().queryRow(ctx, `SELECT id, name, kind, object_type, object_id, snapshot, occurred_at FROM webhook_events WHERE id = ?`, id).
		Scan(&ev.ID, &ev.Name, &ev.Kind, &ev.ObjectType, &ev.ObjectID, &snap, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: webhook event %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get webhook event %d: %w", id, err)
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
	err := o.reader().queryRow(ctx, `SELECT MIN(next_attempt) FROM webhook_deliveries WHERE status = 'pending' AND lease_until <= ?`, ms(now)).Scan(&next)
	if err != nil {
		return time.Time{}, fmt.Errorf("sqlite: next delivery: %w", err)
	}
	if !next.Valid {
		return time.Time{}, nil
	}
	return fromMS(next.Int64), nil
}

const deliveryCols = `id, uuid, webhook_id, event_id, event, status, attempts, next_attempt, lease_owner, lease_until, body, last_status, last_error, created, completed_at`

func scanDelivery(sc interface{ Scan(...any) error }) (*store.WebhookDelivery, error) {
	var d store.WebhookDelivery
	var next, lease, created, completed int64
	var body []byte
	if err := sc.Scan(&d.ID, &d.UUID, &d.WebhookID, &d.EventID, &d.Event, &d.Status, &d.Attempts, &next, &d.LeaseOwner, &lease, &body, &d.LastStatus, &d.LastError, &created, &completed); err != nil {
		return nil, err
	}
	d.NextAttempt, d.LeaseUntil, d.Created, d.CompletedAt = fromMS(next), fromMS(lease), fromMS(created), fromMS(completed)
	if body != nil {
		d.Body = body
	}
	return &d, nil
}

// ClaimDeliveries leases due deliveries to owner. The single writer
// connection serialises claims, so no two workers get the same row.
func (o ops) ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]*store.WebhookDelivery, error) {
	var out []*store.WebhookDelivery
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		rows, err := q.query(ctx, `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
			WHERE id IN (SELECT id FROM webhook_deliveries
				WHERE status = 'pending' AND next_attempt <= ? AND lease_until <= ?
				ORDER BY next_attempt, id LIMIT ?)
			RETURNING `+deliveryCols, owner, ms(now.Add(lease)), ms(now), ms(now), limit)
		if err != nil {
			return false, fmt.Errorf("sqlite: claim deliveries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				return false, fmt.Errorf("sqlite: claim deliveries: %w", err)
			}
			out = append(out, d)
		}
		return false, rows.Err()
	})
	return out, err
}

// FreezeDeliveryBody sets the body of a delivery once.
func (o ops) FreezeDeliveryBody(ctx context.Context, id int64, owner string, now time.Time, body []byte) ([]byte, error) {
	var stored []byte
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		var cur []byte
		var leaseOwner string
		var leaseUntil int64
		err := q.queryRow(ctx, `SELECT body, lease_owner, lease_until FROM webhook_deliveries WHERE id = ?`, id).Scan(&cur, &leaseOwner, &leaseUntil)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("sqlite: delivery %d: %w", id, store.ErrNotFound)
		}
		if err != nil {
			return false, fmt.Errorf("sqlite: freeze delivery %d: %w", id, err)
		}
		if leaseOwner != owner || leaseUntil <= ms(now) {
			return false, fmt.Errorf("sqlite: delivery %d: lease lost: %w", id, store.ErrConflict)
		}
		if cur != nil {
			stored = cur
			return false, nil
		}
		if _, err := q.exec(ctx, `UPDATE webhook_deliveries SET body = ? WHERE id = ?`, body, id); err != nil {
			return false, fmt.Errorf("sqlite: freeze delivery %d: %w", id, err)
		}
		stored = body
		return false, nil
	})
	return stored, err
}

// CompleteDelivery records one attempt and releases the lease.
func (o ops) CompleteDelivery(ctx context.Context, id int64, owner string, r store.DeliveryResult) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		completed := int64(0)
		if r.Status != store.DeliveryPending {
			completed = ms(r.At)
		}
		res, err := q.exec(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, next_attempt = ?,
			last_status = ?, last_error = ?, completed_at = ?, lease_owner = '', lease_until = 0
			WHERE id = ? AND lease_owner = ? AND lease_until > ?`,
			r.Status, ms(r.NextAttempt), r.HTTPStatus, r.Error, completed, id, owner, ms(r.At))
		if err != nil {
			return false, fmt.Errorf("sqlite: complete delivery %d: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: complete delivery %d: %w", id, err)
		}
		if n == 0 {
			return false, fmt.Errorf("sqlite: delivery %d: lease lost: %w", id, store.ErrConflict)
		}
		return false, nil
	})
}

// ListDeliveries returns a webhook's delivery log, newest first.
func (o ops) ListDeliveries(ctx context.Context, webhookID int64, limit int) ([]*store.WebhookDelivery, error) {
	rows, err := o.reader().query(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`, webhookID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list deliveries: %w", err)
	}
	defer rows.Close()
	var out []*store.WebhookDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list deliveries: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
