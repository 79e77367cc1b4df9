package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestStartupHintNeverShowsTheDatabasePassword: the "no administrator"
// hint names the database without its password, in the URL's user
// information or in a password parameter.
func TestStartupHintNeverShowsTheDatabasePassword(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"postgres://folio:Sup3r-Secret@db.internal:5432/folio",
		"postgres://folio@db.internal/folio?password=Sup3r-Secret",
	} {
		cfg := config.Default()
		cfg.DatabaseURL = raw
		hint := AdminHint(cfg, "folio")
		if strings.Contains(hint, "Sup3r-Secret") {
			t.Errorf("hint shows the password: %s", hint)
		}
		if !strings.Contains(hint, "db.internal") {
			t.Errorf("hint does not name the database: %s", hint)
		}
	}
}

// TestStartupLogNeverShowsTheDatabasePassword starts a server on
// PostgreSQL with a password in its URL (the test server trusts local
// connections, so any password works) and reads every log line.
func TestStartupLogNeverShowsTheDatabasePassword(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	user := "postgres"
	if u.User != nil && u.User.Username() != "" {
		user = u.User.Username()
	}
	u.User = url.UserPassword(user, "Sup3r-Secret")
	cfg := config.Default()
	cfg.DatabaseURL = u.String()
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	var mu sync.Mutex
	s, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)))
	if err != nil {
		if strings.Contains(err.Error(), "Sup3r-Secret") {
			t.Fatalf("error shows the password: %v", err)
		}
		t.Fatal(err)
	}
	g := greeting(s, "folio")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(g, "no administrator") || strings.Contains(g, "Sup3r-Secret") {
		t.Errorf("greeting lacks the hint or shows the password: %s", g)
	}
	if strings.Contains(logs.String(), "Sup3r-Secret") {
		t.Errorf("log shows the password: %s", logs.String())
	}
}
