package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store/storetest"
)

func TestConfigWebhookToAPrivateTargetStopsStartUp(t *testing.T) {
	cfg := config.Default()
	storetest.Configure(t, cfg)
	cfg.Webhooks = []config.Webhook{{Name: "local", URL: "http://169.254.169.254/latest/meta-data/", Events: []string{"*"}}}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		s.Close()
		t.Fatal("the server started with a webhook to the metadata address")
	}
	if !strings.Contains(err.Error(), `webhook "local"`) || !strings.Contains(err.Error(), "webhook_private_targets") {
		t.Fatalf("err = %v", err)
	}
	cfg.Server.WebhookPrivateTargets = true
	s, err = server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("with webhook_private_targets: %v", err)
	}
	s.Close()
}

func TestRESTWebhooksRefuseInternalTargetsUnlessOptedIn(t *testing.T) {
	f := newUploadsFixture(t)
	for _, u := range []string{"http://169.254.169.254/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/",
		"http://0x7f000001/", "http://localhost:8080/", "http://10.0.0.1/", "http://[::ffff:127.0.0.1]/"} {
		m := f.json(f.req("POST", "/api/svc/v2/webhooks", "administrator", []byte(`{"url":"`+u+`"}`), "Content-Type", "application/json"), 400)
		params, _ := m["data"].(map[string]any)["params"].(map[string]any)
		if m["code"] != "rest_invalid_param" || params["url"] == nil {
			t.Errorf("%s: %v", u, m)
		}
	}
	hook := f.json(f.req("POST", "/api/svc/v2/webhooks", "administrator", []byte(`{"url":"https://93.184.216.34/hook"}`), "Content-Type", "application/json"), 201)
	// An update to an internal target is refused too.
	f.json(f.req("PUT", fmt.Sprintf("/api/svc/v2/webhooks/%v", hook["id"]), "administrator", []byte(`{"url":"http://127.0.0.1:6379/"}`), "Content-Type", "application/json"), 400)

	open := newUploadsFixture(t, func(c *config.Config) { c.Server.WebhookPrivateTargets = true })
	open.json(open.req("POST", "/api/svc/v2/webhooks", "administrator", []byte(`{"url":"http://127.0.0.1:9000/hook"}`), "Content-Type", "application/json"), 201)
}
