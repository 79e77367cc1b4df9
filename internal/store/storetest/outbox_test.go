package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

func outbox(t *testing.T, s store.Store) store.OutboxStore {
	t.Helper()
	o, ok := s.(store.OutboxStore)
	if !ok {
		t.Fatalf("%T does not implement store.OutboxStore", s)
	}
	return o
}

// TestClaimDeliveriesHandsEachToOneWorker claims from several workers on
// two handles (two nodes) at once: every delivery is leased exactly once.
func TestClaimDeliveriesHandsEachToOneWorker(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	ctx := context.Background()
	ob := outbox(t, dbs[0])
	w := &store.Webhook{URL: "http://example.test/hook", Events: []string{"*"}, Active: true}
	if err := ob.InsertWebhook(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := ob.InsertWebhook(ctx, &store.Webhook{URL: "http://x", ConfigKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := ob.InsertWebhook(ctx, &store.Webhook{URL: "http://y", ConfigKey: "k"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate config key: %v", err)
	}
	now := time.UnixMilli(time.Now().UnixMilli()).UTC()
	const events = 30
	for i := 0; i < events; i++ {
		ev := &store.WebhookEvent{Name: "post.created", Kind: "post", ObjectID: int64(i), OccurredAt: now.Add(-time.Minute), Snapshot: []byte(`{"i":1}`)}
		if err := ob.EnqueueEvent(ctx, ev, []int64{w.ID}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ob.GetWebhookEvent(ctx, 1)
	if err != nil || string(got.Snapshot) != `{"i":1}` || !got.OccurredAt.Equal(now.Add(-time.Minute)) {
		t.Fatalf("event 1 = %+v, %v", got, err)
	}
	var mu sync.Mutex
	claimed := map[int64]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o := outbox(t, dbs[i%2])
			owner := fmt.Sprintf("worker-%d", i)
			for {
				ds, err := o.ClaimDeliveries(ctx, owner, now, time.Minute, 4)
				if err != nil {
					errs <- err
					return
				}
				if len(ds) == 0 {
					return
				}
				mu.Lock()
				for _, d := range ds {
					if prev, ok := claimed[d.ID]; ok {
						errs <- fmt.Errorf("delivery %d claimed by %s and %s", d.ID, prev, owner)
					}
					claimed[d.ID] = owner
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(claimed) != events {
		t.Fatalf("%d deliveries claimed, want %d", len(claimed), events)
	}
	// Only the lease holder may complete; completion releases the lease.
	var id int64
	var owner string
	for id, owner = range claimed {
		break
	}
	body, err := ob.FreezeDeliveryBody(ctx, id, owner, now, []byte("first"))
	if err != nil || string(body) != "first" {
		t.Fatalf("freeze = %q, %v", body, err)
	}
	if body, err = ob.FreezeDeliveryBody(ctx, id, owner, now, []byte("second")); err != nil || string(body) != "first" {
		t.Fatalf("second freeze = %q, %v; want the first body kept", body, err)
	}
	res := store.DeliveryResult{Status: store.DeliveryDelivered, HTTPStatus: 200, At: now}
	if err := ob.CompleteDelivery(ctx, id, "someone-else", res); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("complete by a stranger: %v", err)
	}
	if err := ob.CompleteDelivery(ctx, id, owner, res); err != nil {
		t.Fatal(err)
	}
	log, err := ob.ListDeliveries(ctx, w.ID, 100)
	if err != nil || len(log) != events || log[0].ID < log[len(log)-1].ID {
		t.Fatalf("delivery log: %d entries (%v), want %d newest first", len(log), err, events)
	}
	for _, d := range log {
		if d.ID == id && (d.Status != store.DeliveryDelivered || d.Attempts != 1 || d.LastStatus != 200 || string(d.Body) != "first" || d.LeaseOwner != "") {
			t.Fatalf("completed delivery = %+v", d)
		}
	}
}

func TestPostMetaRoundTrip(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	pm, ok := store.Store(db).(store.PostMetaStore)
	if !ok {
		t.Fatalf("%T does not implement store.PostMetaStore", db)
	}
	for i := 0; i < 2; i++ {
		if err := db.InsertPost(ctx, &store.Post{Type: "post"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := pm.SetPostMeta(ctx, 1, "color", []string{"red", "blue"}); err != nil {
		t.Fatal(err)
	}
	if err := pm.SetPostMeta(ctx, 2, "color", []string{"red"}); err != nil {
		t.Fatal(err)
	}
	got, err := pm.PostMeta(ctx, []int64{1, 2, 3}, nil)
	want := map[int64]map[string][]string{1: {"color": {"red", "blue"}}, 2: {"color": {"red"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("PostMeta = %v, %v", got, err)
	}
	red := "red"
	ids, err := pm.PostIDsWithMeta(ctx, "color", &red)
	if err != nil || !reflect.DeepEqual(ids, []int64{1, 2}) {
		t.Fatalf("PostIDsWithMeta = %v, %v", ids, err)
	}
	if err := pm.SetPostMeta(ctx, 1, "color", nil); err != nil {
		t.Fatal(err)
	}
	if ids, err := pm.PostIDsWithMeta(ctx, "color", nil); err != nil || !reflect.DeepEqual(ids, []int64{2}) {
		t.Fatalf("after delete: %v, %v", ids, err)
	}
}
