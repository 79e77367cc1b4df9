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
