package reqlog

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestSaneIDKeepsTraceIDsAndRefusesTheRest(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"0f8fad5b-d9cb-469f-a165-70867728950e":     true,
		"Root=1-67891233-abcdef012345678912345678": true,
		"a.b_c:d+e/f":            true,
		"":                       false,
		"with space":             false,
		"new\nline":              false,
		"quote\"":                false,
		"é":                      false,
		strings.Repeat("x", 128): true,
		strings.Repeat("x", 129): false,
	} {
		if got := SaneID(id); got != want {
			t.Errorf("SaneID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestNewIDIsUniqueHex(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if len(id) != 32 || !SaneID(id) || seen[id] {
			t.Fatalf("NewID() = %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

func TestHandlerAddsTheRequestIDOfTheContext(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewTextHandler(&buf, nil))).With("component", "test")
	in := &Info{ID: "abc123"}
	ctx := NewContext(context.Background(), in)
	log.InfoContext(ctx, "inside")
	log.Info("outside")
	out := buf.String()
	if !strings.Contains(out, "msg=inside component=test request_id=abc123") {
		t.Errorf("line of the request lacks its id:\n%s", out)
	}
	if strings.Count(out, "request_id") != 1 {
		t.Errorf("a line without request context names an id:\n%s", out)
	}
	SetRoute(ctx, "/r")
	SetUser(ctx, 7)
	if in.Route != "/r" || in.UserID != 7 || RequestID(ctx) != "abc123" {
		t.Errorf("info = %+v", in)
	}
	// Outside a request these do nothing.
	SetRoute(context.Background(), "/r")
	SetUser(context.Background(), 7)
	if h := NewHandler(NewHandler(slog.DiscardHandler)); h.(*Handler).next != slog.DiscardHandler {
		t.Error("NewHandler wrapped a Handler twice")
	}
}
