package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// slowOutbox makes the webhook worker's look at the outbox slow once asked
// to, and records when the slow look finished.
type slowOutbox struct {
	store.Store
	slow     atomic.Bool
	inFlight atomic.Bool
	finished atomic.Int64 // unix nanoseconds
}

func (s *slowOutbox) NextDeliveryDue(ctx context.Context, now time.Time) (time.Time, error) {
	if s.slow.Load() && s.inFlight.CompareAndSwap(false, true) {
		time.Sleep(300 * time.Millisecond) // a query in flight at shutdown
		t, err := s.Store.NextDeliveryDue(context.Background(), now)
		s.finished.Store(time.Now().UnixNano())
		return t, err
	}
	return s.Store.NextDeliveryDue(ctx, now)
}

// TestServeStopsBackgroundWorkBeforeReturning: when Serve returns, the
// scheduler, the webhook worker and the store's upkeep have stopped (work
// in flight finished), so the caller may close the store at once.
func TestServeStopsBackgroundWorkBeforeReturning(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	st := &slowOutbox{Store: storetest.Open(t)}
	s, err := build(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), st, mustNames(t, cfg.Compat))
	if err != nil {
		t.Fatal(err)
	}
	s.Webhooks().Poll = 5 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	st.slow.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for !st.inFlight.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !st.inFlight.Load() {
		t.Fatal("the webhook worker never looked at the outbox")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	returned := time.Now().UnixNano()
	if f := st.finished.Load(); f == 0 || f > returned {
		t.Errorf("Serve returned while the webhook worker was still using the store")
	}
}

func mustNames(t *testing.T, compat string) rest.Names {
	t.Helper()
	n, err := NamesFor(compat)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
