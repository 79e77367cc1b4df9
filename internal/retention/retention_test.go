package retention_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/retention"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// event enqueues an event that happened at at for webhook wid and, when
// delivered, marks its delivery delivered.
func event(t *testing.T, db storetest.Store, wid int64, at time.Time, delivered bool) int64 {
	t.Helper()
	ctx := context.Background()
	ev := &store.WebhookEvent{Name: "post.updated", Kind: "post", ObjectID: 1, OccurredAt: at}
	if err := db.EnqueueEvent(ctx, ev, []int64{wid}); err != nil {
		t.Fatal(err)
	}
	if delivered {
		ds, err := db.ClaimDeliveries(ctx, "w", at, time.Minute, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if err := db.CompleteDelivery(ctx, d.ID, "w", store.DeliveryResult{Status: store.DeliveryDelivered, HTTPStatus: 200, At: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ev.ID
}

func exists(t *testing.T, db storetest.Store, id int64) bool {
	t.Helper()
	_, err := db.GetWebhookEvent(context.Background(), id)
	return err == nil
}

// TestRetentionPrunesOldEventsCountersAndBucketsFromOneNode checks a
// retention pass with an injected clock on two nodes of one database:
// events past their age go with their deliveries, unless one is pending;
// events past the count go, oldest first, in batches; old sign-in
// counters and idle rate buckets go; a second node does nothing while
// the first holds the lease, and takes over once it runs out.
func TestRetentionPrunesOldEventsCountersAndBucketsFromOneNode(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	db := dbs[0]
	ctx := context.Background()
	wh := &store.Webhook{URL: "https://hooks.example/x", Events: []string{"*"}, Active: true}
	if err := db.InsertWebhook(ctx, wh); err != nil {
		t.Fatal(err)
	}
	now := t0
	clock := func() time.Time { return now }
	old := event(t, db, wh.ID, t0.Add(-40*24*time.Hour), true)
	var recent []int64
	for i := range 5 {
		recent = append(recent, event(t, db, wh.ID, t0.Add(-time.Duration(5-i)*time.Hour), true))
	}
	// Enqueued last, so that no claim above delivers it.
	oldPending := event(t, db, wh.ID, t0.Add(-41*24*time.Hour), false)
	if err := db.UpdateLoginCounters(ctx, []string{"stale", "fresh"}, func(cur []store.LoginCounter) []store.LoginCounter {
		return []store.LoginCounter{
			{Key: "stale", Failures: 1, Last: t0.Add(-48 * time.Hour)},
			{Key: "fresh", Failures: 1, Last: t0.Add(-time.Hour)},
		}
	}); err != nil {
		t.Fatal(err)
	}
	for key, at := range map[string]time.Time{"idle": t0.Add(-time.Hour), "busy": t0} {
		if _, err := db.TakeRateToken(ctx, key, at, time.Second, 10); err != nil {
			t.Fatal(err)
		}
	}

	a := &retention.Pruner{Store: dbs[0], Now: clock, Owner: "a", Policy: retention.Policy{WebhookAge: 30 * 24 * time.Hour, WebhookEvents: 3, Batch: 1}}
	b := &retention.Pruner{Store: dbs[1], Now: clock, Owner: "b", Policy: a.Policy}
	r, err := a.Once(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// old (age) and recent[0..2] (count: the newest 3 ids, the pending
	// one among them, are kept), one per batch.
	if !r.Ran || r.WebhookEvents != 4 || r.LoginCounters != 1 || r.Limits != 1 {
		t.Fatalf("first pass: %+v", r)
	}
	if exists(t, db, old) || !exists(t, db, oldPending) || exists(t, db, recent[0]) || exists(t, db, recent[1]) || exists(t, db, recent[2]) || !exists(t, db, recent[3]) || !exists(t, db, recent[4]) {
		t.Fatal("the pass removed the wrong events")
	}
	if ds, err := db.ListDeliveries(ctx, wh.ID, 100); err != nil || len(ds) != 3 {
		t.Fatalf("%d deliveries left (%v), want those of the 3 events kept", len(ds), err)
	}
	if cs, _ := db.LoginCounters(ctx, []string{"stale", "fresh"}); cs[0].Failures != 0 || cs[1].Failures != 1 {
		t.Fatalf("login counters after the pass: %+v", cs)
	}

	// The other node waits for the lease.
	if r, err := b.Once(ctx); err != nil || r.Ran {
		t.Fatalf("second node ran while the first held the lease: %+v %v", r, err)
	}
	now = t0.Add(retention.DefaultInterval + time.Second)
	if r, err := b.Once(ctx); err != nil || !r.Ran {
		t.Fatalf("second node did not take over the lease: %+v %v", r, err)
	}
	if r, err := a.Once(ctx); err != nil || r.Ran {
		t.Fatalf("first node ran while the second held the lease: %+v %v", r, err)
	}
}
