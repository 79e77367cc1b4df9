package storetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

func health(t *testing.T, s store.Store) store.Health {
	t.Helper()
	h, ok := s.(store.Health)
	if !ok {
		t.Fatalf("%T does not implement store.Health", s)
	}
	return h
}

// TestHealthPingSchemaPoolsAndOutboxDepth: the readiness check and the
// metrics read the same answers on both stores.
func TestHealthPingSchemaPoolsAndOutboxDepth(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	h := health(t, db)
	ctx := context.Background()
	if err := h.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	cur, latest, err := h.SchemaVersion(ctx)
	if err != nil || cur != latest || latest == 0 {
		t.Errorf("SchemaVersion = %d, %d, %v; want a migrated database", cur, latest, err)
	}
	pools := h.PoolStats()
	if len(pools) == 0 {
		t.Fatal("no pools")
	}
	for _, p := range pools {
		if p.Pool == "" || p.MaxOpen <= 0 || p.Open < p.InUse || p.Open != p.InUse+p.Idle {
			t.Errorf("pool stats %+v", p)
		}
	}

	ob := outbox(t, db)
	if n, err := h.PendingDeliveries(ctx); err != nil || n != 0 {
		t.Fatalf("PendingDeliveries on an empty outbox = %d, %v", n, err)
	}
	w := &store.Webhook{URL: "http://example.test/hook", Events: []string{"*"}, Active: true}
	if err := ob.InsertWebhook(ctx, w); err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(time.Now().UnixMilli()).UTC()
	for i := range 3 {
		ev := &store.WebhookEvent{Name: "post.created", Kind: "post", ObjectID: int64(i), OccurredAt: now.Add(-time.Minute), Snapshot: []byte(`{}`)}
		if err := ob.EnqueueEvent(ctx, ev, []int64{w.ID}); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := ob.ClaimDeliveries(ctx, "w1", now, time.Minute, 1)
	if err != nil || len(ds) != 1 {
		t.Fatalf("claim = %d, %v", len(ds), err)
	}
	if n, err := h.PendingDeliveries(ctx); err != nil || n != 3 {
		t.Errorf("PendingDeliveries with one claimed = %d, %v; want 3 (a claimed one is still pending)", n, err)
	}
	if err := ob.CompleteDelivery(ctx, ds[0].ID, "w1", store.DeliveryResult{Status: store.DeliveryDelivered, HTTPStatus: 200, At: now}); err != nil {
		t.Fatal(err)
	}
	if n, err := h.PendingDeliveries(ctx); err != nil || n != 2 {
		t.Errorf("PendingDeliveries after one delivered = %d, %v; want 2", n, err)
	}
}
