package server

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
)

func TestConfigWebhookToAPrivateTargetStopsStartUp(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Webhooks = []config.Webhook{{Name: "local", URL: "http://169.254.169.254/latest/meta-data/", Events: []string{"*"}}}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		s.Close()
		t.Fatal("the server started with a webhook to the metadata address")
	}
	if !strings.Contains(err.Error(), `webhook "local"`) || !strings.Contains(err.Error(), "webhook_private_targets") {
		t.Fatalf("err = %v", err)
	}
	cfg.Server.WebhookPrivateTargets = true
	s, err = New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("with webhook_private_targets: %v", err)
	}
	s.Close()
}

// adminFixture is an uploadsFixture with an administrator.
func adminFixture(t *testing.T, mod ...func(*config.Config)) *uploadsFixture {
	f := newUploadsFixture(t, mod...)
	ctx := context.Background()
	u := &store.User{Login: "admin", Email: "admin@example.com", Nicename: "admin", Registered: time.Now().UTC(), Roles: []string{"administrator"}}
	if err := f.s.Store().InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.Store().InsertAppPassword(ctx, &store.AppPassword{UUID: "u-admin", UserID: u.ID, Name: "t", Hash: hash, Created: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	f.pass["admin"] = plain
	return f
}

func TestRESTWebhooksRefuseInternalTargetsUnlessOptedIn(t *testing.T) {
	f := adminFixture(t)
	for _, u := range []string{"http://169.254.169.254/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/",
		"http://0x7f000001/", "http://localhost:8080/", "http://10.0.0.1/", "http://[::ffff:127.0.0.1]/"} {
		m := f.json(f.req("POST", "/api/svc/v2/webhooks", "admin", []byte(`{"url":"`+u+`"}`), "Content-Type", "application/json"), 400)
		params, _ := m["data"].(map[string]any)["params"].(map[string]any)
		if m["code"] != "rest_invalid_param" || params["url"] == nil {
			t.Errorf("%s: %v", u, m)
		}
	}
	hook := f.json(f.req("POST", "/api/svc/v2/webhooks", "admin", []byte(`{"url":"https://93.184.216.34/hook"}`), "Content-Type", "application/json"), 201)
	// An update to an internal target is refused too.
	f.json(f.req("PUT", fmt.Sprintf("/api/svc/v2/webhooks/%v", hook["id"]), "admin", []byte(`{"url":"http://127.0.0.1:6379/"}`), "Content-Type", "application/json"), 400)

	open := adminFixture(t, func(c *config.Config) { c.Server.WebhookPrivateTargets = true })
	open.json(open.req("POST", "/api/svc/v2/webhooks", "admin", []byte(`{"url":"http://127.0.0.1:9000/hook"}`), "Content-Type", "application/json"), 201)
}
