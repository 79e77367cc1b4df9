// Package webhooks delivers Folio's change events to outbound webhooks.
//
// Every domain write reports a content.Change inside its transaction; the
// Emitter turns it into event names (post.created, page.published,
// term.deleted, ...) and, for each active webhook subscribed to one of
// them, writes the event and a pending delivery to the outbox in that same
// transaction. A Worker (one per node) claims due deliveries with a lease,
// renders and freezes the body at the first attempt, POSTs it signed with
// HMAC-SHA256 and records the result, retrying with exponential backoff.
// Delivery is at least once; the delivery id is the idempotency key.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// Headers of a delivery.
const (
	HeaderEvent     = "X-Folio-Event"
	HeaderDelivery  = "X-Folio-Delivery"
	HeaderSignature = "X-Folio-Signature"
)

// EventNames returns the event names a change stands for, in order: the
// resource's own name (the post type for posts, pages and custom types;
// media, term, comment or user) with the action, plus <type>.published
// when a post reached the publish status.
func EventNames(ch content.Change) []string {
	switch ch.Kind {
	case "post":
		names := []string{ch.Type + "." + ch.Action}
		if (ch.Action == "created" || ch.Action == "updated") && isPublish(ch.Record) && !isPublish(ch.Old) {
			names = append(names, ch.Type+".published")
		}
		return names
	case "media", "term", "comment", "user":
		action := ch.Action
		if action == "trashed" {
			action = "updated" // these resources have no trashed event
		}
		return []string{ch.Kind + "." + action}
	}
	return nil
}

func isPublish(rec any) bool {
	p, ok := rec.(*store.Post)
	return ok && p != nil && p.Status == "publish"
}

// Matches reports whether a webhook subscribed to events receives name.
func Matches(events []string, name string) bool {
	return slices.Contains(events, "*") || slices.Contains(events, name)
}

var eventRE = regexp.MustCompile(`^[a-z0-9_-]+\.(created|updated|published|trashed|deleted)$`)

// ValidEventName reports whether name is "*" or has the <resource>.<action>
// shape of an event.
func ValidEventName(name string) bool {
	return name == "*" || eventRE.MatchString(name)
}

// Service is the domain of the webhooks resource: it keeps webhooks in the
// store and validates them. The REST controller calls it.
type Service struct {
	Store store.OutboxStore
	Now   func() time.Time
	// Targets decides which URLs a webhook may have (its zero value
	// refuses local and private targets).
	Targets Guard
}

// Error is a validation error of the service; Code and Message are the
// API's.
type Error struct {
	Code, Message string
	Param         string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Input holds the writable fields of a request; nil means "not sent".
type Input struct {
	URL    *string
	Events []string
	Secret *string
	Active *bool
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func checkEvents(events []string) error {
	if len(events) == 0 {
		return &Error{Code: "rest_invalid_param", Message: `events must name at least one event (or "*").`, Param: "events"}
	}
	for _, e := range events {
		if !ValidEventName(e) {
			return &Error{Code: "rest_invalid_param", Message: fmt.Sprintf("%q is not an event name (<resource>.<action> or *).", e), Param: "events"}
		}
	}
	return nil
}

// NewSecret returns a random signing secret.
func NewSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Create validates in and stores a new webhook; a missing secret is
// generated.
func (s *Service) Create(ctx context.Context, in Input) (*store.Webhook, error) {
	w := &store.Webhook{Active: true}
	if in.URL == nil {
		return nil, &Error{Code: "rest_missing_callback_param", Message: "Missing parameter(s): url", Param: "url"}
	}
	if in.Events == nil {
		in.Events = []string{"*"}
	}
	if err := s.apply(ctx, w, in); err != nil {
		return nil, err
	}
	if w.Secret == "" {
		w.Secret = NewSecret()
	}
	w.Created, w.Modified = s.now(), s.now()
	if err := s.Store.InsertWebhook(ctx, w); err != nil {
		return nil, fmt.Errorf("create webhook: %w", err)
	}
	return w, nil
}

func (s *Service) apply(ctx context.Context, w *store.Webhook, in Input) error {
	if in.URL != nil {
		if err := s.Targets.CheckURL(ctx, *in.URL); err != nil {
			return err
		}
		w.URL = *in.URL
	}
	if in.Events != nil {
		if err := checkEvents(in.Events); err != nil {
			return err
		}
		w.Events = in.Events
	}
	if in.Secret != nil {
		w.Secret = *in.Secret
	}
	if in.Active != nil {
		w.Active = *in.Active
	}
	return nil
}

// Update applies in to the webhook old.
func (s *Service) Update(ctx context.Context, old *store.Webhook, in Input) (*store.Webhook, error) {
	w := *old
	if err := s.apply(ctx, &w, in); err != nil {
		return nil, err
	}
	if w.Secret == "" {
		w.Secret = NewSecret()
	}
	w.Modified = s.now()
	if err := s.Store.UpdateWebhook(ctx, &w); err != nil {
		return nil, fmt.Errorf("update webhook %d: %w", w.ID, err)
	}
	return &w, nil
}

// Get loads a webhook; ok is false when there is none.
func (s *Service) Get(ctx context.Context, id int64) (*store.Webhook, bool, error) {
	w, err := s.Store.GetWebhook(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return w, true, nil
}

// List returns every webhook.
func (s *Service) List(ctx context.Context) ([]*store.Webhook, error) {
	return s.Store.ListWebhooks(ctx)
}

// Delete removes a webhook and its delivery log.
func (s *Service) Delete(ctx context.Context, id int64) error {
	return s.Store.DeleteWebhook(ctx, id)
}

// Deliveries returns the delivery log of a webhook, newest first.
func (s *Service) Deliveries(ctx context.Context, id int64, limit int) ([]*store.WebhookDelivery, error) {
	return s.Store.ListDeliveries(ctx, id, limit)
}

// SyncConfig creates or updates the webhooks declared in the config file,
// keyed by name. A hook whose URL Targets refuses (a loopback, private or
// metadata target without [server] webhook_private_targets) is an error,
// so that the server does not start with a webhook that could never
// deliver.
func (s *Service) SyncConfig(ctx context.Context, hooks []config.Webhook) error {
	if len(hooks) == 0 {
		return nil
	}
	all, err := s.Store.ListWebhooks(ctx)
	if err != nil {
		return err
	}
	for _, h := range hooks {
		if err := h.Check(); err != nil {
			return err
		}
		if err := checkEvents(h.Events); err != nil {
			return fmt.Errorf("webhook %q: %w", h.Name, err)
		}
		if err := s.Targets.CheckURL(ctx, h.URL); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return fmt.Errorf("webhook %q: %s", h.Name, e.Message)
			}
			return fmt.Errorf("webhook %q: %w", h.Name, err)
		}
		var cur *store.Webhook
		for _, w := range all {
			if w.ConfigKey == h.Name {
				cur = w
			}
		}
		secret := h.Secret
		if secret == "" && cur != nil {
			secret = cur.Secret
		}
		if secret == "" {
			secret = NewSecret()
		}
		if cur == nil {
			w := &store.Webhook{URL: h.URL, Events: h.Events, Secret: secret, Active: h.IsActive(), ConfigKey: h.Name, Created: s.now(), Modified: s.now()}
			if err := s.Store.InsertWebhook(ctx, w); err != nil && !errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("webhook %q: %w", h.Name, err)
			}
			continue
		}
		w := *cur
		w.URL, w.Events, w.Secret, w.Active, w.Modified = h.URL, h.Events, secret, h.IsActive(), s.now()
		if err := s.Store.UpdateWebhook(ctx, &w); err != nil {
			return fmt.Errorf("webhook %q: %w", h.Name, err)
		}
	}
	return nil
}

// Snapshot returns the JSON of a record with snake_case keys and without
// secrets (password hashes), as sent for deleted records.
func Snapshot(rec any) ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return b, nil // not an object: send it as it is
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		sk := snake(k)
		if sk == "pass_hash" || sk == "hash" {
			continue
		}
		out[sk] = v
	}
	return json.Marshal(out)
}

func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		upper := r >= 'A' && r <= 'Z'
		if upper {
			if i > 0 && (rs[i-1] < 'A' || rs[i-1] > 'Z' || (i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z')) {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
