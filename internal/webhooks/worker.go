package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// Emitter writes the outbox rows of a change inside its transaction.
type Emitter struct {
	// Now stamps the events (default time.Now).
	Now func() time.Time
	// Notify, when set, is called once the transaction that enqueued
	// events has committed (the local worker wakes up and finds them).
	Notify func()

	// kept is the last list of webhooks read at a site generation,
	// shared by the changes that read it and never changed.
	kept store.KeptAt[[]*store.Webhook]
}

// Emit enqueues the events ch stands for, with one delivery per active
// subscribed webhook, through tx (the change's transaction).
func (em *Emitter) Emit(ctx context.Context, tx store.Store, ch content.Change) error {
	names := EventNames(ch)
	if len(names) == 0 {
		return nil
	}
	var ob store.OutboxStore = tx
	hooks, err := em.webhooks(ctx, ob)
	if err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	var snap []byte
	enqueued := false
	for _, name := range names {
		var ids []int64
		for _, w := range hooks {
			if w.Active && Matches(w.Events, name) {
				ids = append(ids, w.ID)
			}
		}
		if len(ids) == 0 {
			continue
		}
		if snap == nil {
			if snap, err = Snapshot(ch.Record); err != nil {
				return fmt.Errorf("webhooks: snapshot: %w", err)
			}
		}
		now := time.Now
		if em.Now != nil {
			now = em.Now
		}
		ev := &store.WebhookEvent{Name: name, Kind: ch.Kind, ObjectType: ch.Type, ObjectID: ch.ID, Snapshot: snap, OccurredAt: now().UTC()}
		if err := ob.EnqueueEvent(ctx, ev, ids); err != nil {
			return fmt.Errorf("webhooks: %w", err)
		}
		enqueued = true
	}
	if enqueued && em.Notify != nil {
		store.AfterCommit(tx, em.Notify)
	}
	return nil
}

// webhooks returns the site's webhooks, read through ob (the change's
// transaction) unless the request read the site generation with its
// sign-in (store.ContextSiteGeneration) and the webhooks of that
// generation are kept: every webhook added, changed or removed moves it
// on, on any node, so a change sees those that were there when its
// request began, or later ones. (A change's transaction never writes
// webhooks itself.)
func (em *Emitter) webhooks(ctx context.Context, ob store.OutboxStore) ([]*store.Webhook, error) {
	g, ok := store.ContextSiteGeneration(ctx)
	if !ok {
		return ob.ListWebhooks(ctx)
	}
	if hooks, ok := em.kept.Get(g); ok {
		return hooks, nil
	}
	hooks, err := ob.ListWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	em.kept.Keep(g, hooks)
	return hooks, nil
}

// Renderer returns the "data" of an event's body: the resource as the
// edit context shows it, or the event's snapshot when the resource is gone
// (always for deletes).
type Renderer func(ctx context.Context, ev *store.WebhookEvent) (json.RawMessage, error)

// Worker delivers due deliveries. Several workers (on one node or many)
// can share a database: the store's lease makes each delivery go to one
// worker at a time.
type Worker struct {
	Store  store.OutboxStore
	Render Renderer
	// Owner names the worker in leases; it must be unique per process.
	Owner string
	// Targets decides which addresses deliveries may connect to (its zero
	// value refuses local and private targets).
	Targets Guard
	// Timeout bounds each delivery request (default 10 s).
	Timeout time.Duration
	// Lease is how long a claim lasts (default 2 minutes): longer than a
	// request can take, so that no live worker loses its delivery.
	Lease time.Duration
	// Poll is how often the worker looks for due deliveries when nothing
	// woke it (default 1 s). A change committed on this node wakes the
	// worker at once (Emitter.Notify after the commit); the poll finds the
	// deliveries other nodes enqueued and the retries that came due.
	Poll time.Duration
	// Batch is the number of deliveries claimed at once (default 10).
	Batch int
	// MaxAttempts is how many attempts a delivery gets before it is
	// marked failed (default 8).
	MaxAttempts int
	// Backoff returns the wait before attempt n+1 after n failed attempts
	// (default 10 s × 2^(n-1), at most 1 h).
	Backoff func(attempts int) time.Duration
	Now     func() time.Time
	Logger  *slog.Logger
	// Observe, when set, is told the outcome of every recorded attempt:
	// "delivered", "retry" (failed, to be tried again) or "failed" (given
	// up), for the metrics.
	Observe func(outcome string)

	wake   chan struct{}
	client *http.Client
}

// DefaultBackoff is exponential: 10 s, 20 s, 40 s, ... capped at an hour.
func DefaultBackoff(attempts int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

func (w *Worker) defaults() {
	if w.Timeout <= 0 {
		w.Timeout = 10 * time.Second
	}
	if w.client == nil {
		w.client = w.Targets.Client(w.Timeout)
	}
	if w.Lease <= 0 {
		w.Lease = 2 * time.Minute
	}
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	if w.Batch <= 0 {
		w.Batch = 10
	}
	if w.MaxAttempts <= 0 {
		w.MaxAttempts = 8
	}
	if w.Backoff == nil {
		w.Backoff = DefaultBackoff
	}
	if w.Now == nil {
		w.Now = time.Now
	}
	if w.Logger == nil {
		w.Logger = slog.New(slog.DiscardHandler)
	}
	if w.Owner == "" {
		w.Owner = "worker-" + NewSecret()[:12]
	}
	if w.wake == nil {
		w.wake = make(chan struct{}, 1)
	}
}

// Wake makes a running worker look for deliveries now.
func (w *Worker) Wake() {
	if w.wake == nil {
		return
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Init applies the defaults; call it before Wake is used concurrently with
// Run.
func (w *Worker) Init() { w.defaults() }

// Run delivers until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	w.defaults()
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		for {
			n, err := w.RunOnce(ctx)
			if err != nil && ctx.Err() == nil {
				w.Logger.Warn("webhooks: delivering", "err", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake: // a change committed on this node
		}
	}
}

// RunOnce claims one batch of due deliveries and attempts each; it
// returns how many it claimed.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	w.defaults()
	now := w.Now().UTC()
	next, err := w.Store.NextDeliveryDue(ctx, now)
	if err != nil || next.IsZero() || next.After(now) {
		return 0, err
	}
	ds, err := w.Store.ClaimDeliveries(ctx, w.Owner, now, w.Lease, w.Batch)
	if err != nil {
		return 0, err
	}
	for _, d := range ds {
		if err := w.attempt(ctx, d); err != nil {
			if ctx.Err() != nil {
				return len(ds), ctx.Err()
			}
			w.Logger.Warn("webhooks: delivery", "delivery", d.UUID, "err", err)
		}
	}
	return len(ds), nil
}

// body is the JSON body of a delivery.
type body struct {
	Event      string          `json:"event"`
	DeliveryID string          `json:"delivery_id"`
	OccurredAt string          `json:"occurred_at"`
	Data       json.RawMessage `json:"data"`
}

// Sign returns the X-Folio-Signature value of body for secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// attempt sends one delivery and records its outcome. The delivery log
// gets only a short error class (see ErrorClass; http_<status> for an
// answer outside 2xx), never the text of whatever answered.
func (w *Worker) attempt(ctx context.Context, d *store.WebhookDelivery) error {
	hook, err := w.Store.GetWebhook(ctx, d.WebhookID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted with its deliveries meanwhile
	}
	if err != nil {
		return err
	}
	if !hook.Active {
		return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryFailed, Error: "inactive"})
	}
	target, err := url.Parse(hook.URL)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryFailed, Error: "invalid_url"})
	}
	if err := w.Targets.checkHost(target.Hostname()); err != nil {
		w.Logger.Warn("webhooks: delivery refused: the target is a local, private or metadata address (see [server] webhook_private_targets)",
			"webhook", hook.ID, "host", target.Hostname(), "delivery", d.UUID)
		return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryFailed, Error: "blocked_target"})
	}
	payload := d.Body
	if payload == nil {
		ev, err := w.Store.GetWebhookEvent(ctx, d.EventID)
		if err != nil {
			return err
		}
		data := json.RawMessage(ev.Snapshot)
		if ev.Snapshot == nil {
			data = json.RawMessage("null")
		}
		if w.Render != nil && !strings.HasSuffix(ev.Name, ".deleted") {
			if got, err := w.Render(ctx, ev); err != nil {
				w.Logger.Warn("webhooks: rendering a delivery", "delivery", d.UUID, "err", err)
				return w.retry(ctx, d, 0, "render")
			} else if got != nil {
				data = got
			}
		}
		b, err := json.Marshal(body{Event: ev.Name, DeliveryID: d.UUID, OccurredAt: ev.OccurredAt.Format(time.RFC3339), Data: data})
		if err != nil {
			return err
		}
		if payload, err = w.Store.FreezeDeliveryBody(ctx, d.ID, w.Owner, w.Now().UTC(), b); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(payload))
	if err != nil {
		return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryFailed, Error: "invalid_url"})
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Folio-Webhooks/1")
	req.Header.Set(HeaderEvent, d.Event)
	req.Header.Set(HeaderDelivery, d.UUID)
	req.Header.Set(HeaderSignature, Sign(hook.Secret, payload))
	resp, err := w.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // shutting down: the lease runs out, another attempt follows
		}
		class := ErrorClass(err)
		if class == "blocked_target" {
			// The name resolved to a refused address (it may have
			// changed since the webhook was saved): no retry.
			w.Logger.Warn("webhooks: delivery refused: the target resolved to a local, private or metadata address (see [server] webhook_private_targets)",
				"webhook", hook.ID, "host", target.Hostname(), "delivery", d.UUID)
			return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryFailed, Error: class})
		}
		return w.retry(ctx, d, 0, class)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryDelivered, HTTPStatus: resp.StatusCode})
	}
	return w.retry(ctx, d, resp.StatusCode, httpClass(resp.StatusCode))
}

func (w *Worker) retry(ctx context.Context, d *store.WebhookDelivery, status int, msg string) error {
	if d.Attempts+1 >= w.MaxAttempts {
		return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryFailed, HTTPStatus: status, Error: msg})
	}
	return w.complete(ctx, d, store.DeliveryResult{Status: store.DeliveryPending, HTTPStatus: status, Error: msg,
		NextAttempt: w.Now().UTC().Add(w.Backoff(d.Attempts + 1))})
}

func (w *Worker) complete(ctx context.Context, d *store.WebhookDelivery, res store.DeliveryResult) error {
	res.At = w.Now().UTC()
	if res.Status != store.DeliveryPending {
		res.NextAttempt = d.NextAttempt
	}
	if err := w.Store.CompleteDelivery(ctx, d.ID, w.Owner, res); err != nil {
		return err
	}
	if w.Observe != nil {
		switch res.Status {
		case store.DeliveryDelivered:
			w.Observe("delivered")
		case store.DeliveryPending:
			w.Observe("retry")
		default:
			w.Observe("failed")
		}
	}
	return nil
}
