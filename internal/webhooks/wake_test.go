package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/webhooks"
)

// passCounter reports each pass of a worker (each look for due
// deliveries) on passes.
type passCounter struct {
	store.OutboxStore
	passes chan struct{}
}

func (p *passCounter) NextDeliveryDue(ctx context.Context, now time.Time) (time.Time, error) {
	t, err := p.OutboxStore.NextDeliveryDue(ctx, now)
	p.passes <- struct{}{}
	return t, err
}

// TestWorkerIsWokenAfterCommit checks that the emitter wakes the worker
// once the change's transaction has committed (not before, not on
// rollback), so that the worker delivers at once without polling: its poll
// here is an hour, and the test waits for passes, never for time.
func TestWorkerIsWokenAfterCommit(t *testing.T) {
	db := storetest.Open(t)
	rc := newReceiver(t, nil)
	addHook(t, db, rc.srv.URL, "post.published")
	pc := &passCounter{OutboxStore: db, passes: make(chan struct{}, 16)}
	w := &webhooks.Worker{Targets: local, Store: pc, Poll: time.Hour,
		Render: func(context.Context, *store.WebhookEvent) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }}
	w.Init()
	notified := 0
	em := &webhooks.Emitter{Notify: func() { notified++; w.Wake() }}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	pass := func() {
		t.Helper()
		select {
		case <-pc.passes:
		case <-time.After(10 * time.Second):
			t.Fatal("the worker did not look for deliveries")
		}
	}
	pass() // the first pass, on start: nothing due

	// A rolled-back change wakes nobody.
	err := db.Tx(ctx, func(tx store.Store) error {
		if err := em.Emit(ctx, tx, publishedPost(1)); err != nil {
			return err
		}
		return errors.New("rolled back")
	})
	if err == nil || notified != 0 {
		t.Fatalf("rollback: err %v, notified %d times", err, notified)
	}

	err = db.Tx(ctx, func(tx store.Store) error {
		if err := em.Emit(ctx, tx, publishedPost(2)); err != nil {
			return err
		}
		if notified != 0 {
			t.Error("notified before the commit")
		}
		return nil
	})
	if err != nil || notified != 1 {
		t.Fatalf("commit: err %v, notified %d times, want once", err, notified)
	}
	pass() // woken: finds the delivery and delivers it
	pass() // looks again after delivering: nothing more
	if rc.count() != 1 {
		t.Fatalf("receiver got %d calls, want 1", rc.count())
	}
}
