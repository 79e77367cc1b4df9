package config

import (
	"fmt"
	"net/url"
)

// Webhook is an outbound webhook declared in folio.toml:
//
//	[[webhooks]]
//	name   = "rebuild"           # key the webhook is kept under
//	url    = "https://ci.example.com/hooks/folio"
//	events = ["post.published", "post.deleted"]   # or ["*"]
//	secret = "s3cret"            # signs X-Folio-Signature
//	active = true                # default true
//
// At start the server creates or updates the stored webhook with the same
// name, so the file stays the source of truth for these.
type Webhook struct {
	Name   string   `toml:"name"`
	URL    string   `toml:"url"`
	Events []string `toml:"events"`
	Secret string   `toml:"secret"`
	Active *bool    `toml:"active"`
}

// IsActive reports whether the webhook is active (the default).
func (w Webhook) IsActive() bool { return w.Active == nil || *w.Active }

// Check reports what is wrong with the webhook declaration, if anything.
func (w Webhook) Check() error {
	if w.Name == "" {
		return fmt.Errorf("webhook %q: name is required", w.URL)
	}
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook %q: url %q must be an absolute http or https URL", w.Name, w.URL)
	}
	if len(w.Events) == 0 {
		return fmt.Errorf("webhook %q: events is empty (use [\"*\"] for every event)", w.Name)
	}
	return nil
}

// WebhookRetention bounds the webhook events (and their delivery records)
// the database keeps:
//
//	[webhook_retention]
//	days       = 30       # events older than this are removed
//	max_events = 100000   # and those past the newest max_events
//
// Events with a delivery still pending are kept whatever their age.
// Zero values take the defaults (DefaultWebhookRetentionDays,
// DefaultWebhookMaxEvents).
type WebhookRetention struct {
	Days      int `toml:"days"`
	MaxEvents int `toml:"max_events"`
}

// Defaults of WebhookRetention.
const (
	DefaultWebhookRetentionDays = 30
	DefaultWebhookMaxEvents     = 100_000
)

// normalizeRetention fills the retention defaults and checks them.
func (c *Config) normalizeRetention() []error {
	var errs []error
	r := &c.WebhookRetention
	if r.Days == 0 {
		r.Days = DefaultWebhookRetentionDays
	}
	if r.MaxEvents == 0 {
		r.MaxEvents = DefaultWebhookMaxEvents
	}
	if r.Days < 0 {
		errs = append(errs, fmt.Errorf("webhook_retention.days %d: must be positive", r.Days))
	}
	if r.MaxEvents < 0 {
		errs = append(errs, fmt.Errorf("webhook_retention.max_events %d: must be positive", r.MaxEvents))
	}
	return errs
}
