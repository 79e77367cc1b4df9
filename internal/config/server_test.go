package config

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServerTrustedProxiesParseIPsAndPrefixes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "folio.toml")
	body := "[server]\ntrusted_proxies = [\"10.0.0.0/8\", \"192.0.2.7\", \"::1\"]\nwebhook_private_targets = true\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Server.WebhookPrivateTargets {
		t.Error("webhook_private_targets not read")
	}
	for addr, want := range map[string]bool{
		"10.1.2.3":         true,
		"::ffff:10.1.2.3":  true,
		"192.0.2.7":        true,
		"192.0.2.8":        false,
		"::1":              true,
		"127.0.0.1":        false,
		"2001:db8::1":      false,
		"11.0.0.1":         false,
		"::ffff:192.0.2.7": true,
	} {
		if got := c.Server.TrustedProxy(netip.MustParseAddr(addr)); got != want {
			t.Errorf("TrustedProxy(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestServerTrustedProxiesRejectGarbage(t *testing.T) {
	c := Default()
	c.Server.TrustedProxies = []string{"not-an-ip"}
	if err := c.Normalize(); err == nil {
		t.Fatal("Normalize accepted a trusted proxy that is not an address")
	}
}

func TestServerTrustsNoProxyByDefault(t *testing.T) {
	c := Default()
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	if c.Server.TrustedProxy(netip.MustParseAddr("127.0.0.1")) {
		t.Error("loopback trusted without configuration")
	}
}

func TestRedactURLHidesPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://folio:s3cret@db:5432/folio":                 "postgres://folio:xxxxx@db:5432/folio",
		"postgres://folio@db/folio?password=s3cret&sslmode=off": "postgres://folio@db/folio?password=xxxxx&sslmode=off",
		"postgres://db/folio":                                   "postgres://db/folio",
		"/var/lib/folio/folio.db":                               "/var/lib/folio/folio.db",
		"postgres://u:p@[::1:bad":                               "(unparsable database URL)",
	} {
		got := RedactURL(in)
		if got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("RedactURL(%q) keeps the password", in)
		}
	}
}
