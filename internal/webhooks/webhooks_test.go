package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/webhooks"
)

// local lets the tests' receivers (on 127.0.0.1) be delivered to.
var local = webhooks.Guard{AllowPrivate: true}

// receiver records deliveries; fail decides the status of each call.
type receiver struct {
	mu     sync.Mutex
	calls  []http.Header
	bodies [][]byte
	byID   map[string]int
	status func(n int) int
	block  chan struct{}
	srv    *httptest.Server
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	rc := &receiver{byID: map[string]int{}, status: status}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.calls)
		rc.calls = append(rc.calls, r.Header.Clone())
		rc.bodies = append(rc.bodies, b)
		block := rc.block
		rc.mu.Unlock()
		if block != nil && n == 0 {
			select {
			case <-block:
			case <-r.Context().Done():
			}
			return
		}
		code := 200
		if rc.status != nil {
			code = rc.status(n)
		}
		if code < 300 {
			rc.mu.Lock()
			rc.byID[r.Header.Get(webhooks.HeaderDelivery)]++
			rc.mu.Unlock()
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.calls)
}

func addHook(t *testing.T, db store.OutboxStore, url string, events ...string) *store.Webhook {
	t.Helper()
	w := &store.Webhook{URL: url, Events: events, Secret: "s3cret", Active: true}
	if err := db.InsertWebhook(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	return w
}

// emit writes the events of a post change in a transaction, as the
// content layer does.
func emit(t *testing.T, db store.Store, ch content.Change) {
	t.Helper()
	em := &webhooks.Emitter{}
	if err := db.Tx(context.Background(), func(tx store.Store) error { return em.Emit(context.Background(), tx, ch) }); err != nil {
		t.Fatal(err)
	}
}

func publishedPost(id int64) content.Change {
	return content.Change{Kind: "post", Type: "post", Action: "created", ID: id,
		Record: &store.Post{ID: id, Type: "post", Status: "publish", Title: "Hello"}}
}

func deliveries(t *testing.T, db store.OutboxStore, hookID int64) []*store.WebhookDelivery {
	t.Helper()
	ds, err := db.ListDeliveries(context.Background(), hookID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestEventNames(t *testing.T) {
	draft := &store.Post{Status: "draft"}
	pub := &store.Post{Status: "publish"}
	cases := []struct {
		ch   content.Change
		want []string
	}{
		{content.Change{Kind: "post", Type: "post", Action: "created", Record: draft}, []string{"post.created"}},
		{content.Change{Kind: "post", Type: "page", Action: "created", Record: pub}, []string{"page.created", "page.published"}},
		{content.Change{Kind: "post", Type: "book", Action: "updated", Record: pub, Old: draft}, []string{"book.updated", "book.published"}},
		{content.Change{Kind: "post", Type: "post", Action: "updated", Record: pub, Old: pub}, []string{"post.updated"}},
		{content.Change{Kind: "post", Type: "post", Action: "trashed", Record: pub}, []string{"post.trashed"}},
		{content.Change{Kind: "post", Type: "post", Action: "deleted", Record: pub}, []string{"post.deleted"}},
		{content.Change{Kind: "term", Type: "category", Action: "updated"}, []string{"term.updated"}},
		{content.Change{Kind: "comment", Action: "trashed"}, []string{"comment.updated"}},
		{content.Change{Kind: "media", Action: "deleted"}, []string{"media.deleted"}},
		{content.Change{Kind: "user", Action: "created"}, []string{"user.created"}},
	}
	for _, c := range cases {
		got := webhooks.EventNames(c.ch)
		if len(got) != len(c.want) {
			t.Fatalf("%+v: %v, want %v", c.ch, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%+v: %v, want %v", c.ch, got, c.want)
			}
		}
	}
}

func TestDeliveryIsSignedAndCarriesTheIdempotencyKey(t *testing.T) {
	db := storetest.Open(t)
	defer db.Close()
	rc := newReceiver(t, nil)
	h := addHook(t, db, rc.srv.URL, "post.published")
	other := addHook(t, db, rc.srv.URL, "page.created")
	emit(t, db, publishedPost(7))
	w := &webhooks.Worker{Targets: local, Store: db, Render: func(ctx context.Context, ev *store.WebhookEvent) (json.RawMessage, error) {
		return json.RawMessage(`{"id":7,"rendered":true}`), nil
	}}
	if _, err := w.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rc.count() != 1 {
		t.Fatalf("receiver got %d calls, want 1 (post.published only)", rc.count())
	}
	hdr, body := rc.calls[0], rc.bodies[0]
	if hdr.Get(webhooks.HeaderEvent) != "post.published" || hdr.Get(webhooks.HeaderSignature) != webhooks.Sign("s3cret", body) {
		t.Fatalf("headers = %v", hdr)
	}
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if b["event"] != "post.published" || b["delivery_id"] != hdr.Get(webhooks.HeaderDelivery) || b["occurred_at"] == "" {
		t.Fatalf("body = %s", body)
	}
	if d := b["data"].(map[string]any); d["rendered"] != true {
		t.Fatalf("data = %v", b["data"])
	}
	ds := deliveries(t, db, h.ID)
	if len(ds) != 1 || ds[0].Status != store.DeliveryDelivered || ds[0].Attempts != 1 || ds[0].LastStatus != 200 {
		t.Fatalf("log = %+v", ds[0])
	}
	if len(deliveries(t, db, other.ID)) != 0 {
		t.Fatal("a webhook not subscribed to the event got a delivery")
	}
}

func TestDeletedRecordIsSentAsItsSnapshotWithoutSecrets(t *testing.T) {
	db := storetest.Open(t)
	defer db.Close()
	rc := newReceiver(t, nil)
	addHook(t, db, rc.srv.URL, "*")
	emit(t, db, content.Change{Kind: "user", Action: "deleted", ID: 3, Record: &store.User{ID: 3, Login: "bob", PassHash: "$2a$secret"}})
	w := &webhooks.Worker{Targets: local, Store: db, Render: func(ctx context.Context, ev *store.WebhookEvent) (json.RawMessage, error) {
		t.Error("a deleted record must not be rendered")
		return nil, nil
	}}
	if _, err := w.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	_ = json.Unmarshal(rc.bodies[0], &b)
	d := b["data"].(map[string]any)
	if d["login"] != "bob" || d["id"] != float64(3) {
		t.Fatalf("data = %v", d)
	}
	if _, ok := d["pass_hash"]; ok {
		t.Fatalf("password hash sent: %v", d)
	}
}

func TestRetryWithBackoffAfterReceiverFailure(t *testing.T) {
	db := storetest.Open(t)
	defer db.Close()
	rc := newReceiver(t, func(n int) int {
		if n < 2 {
			return 503
		}
		return 204
	})
	h := addHook(t, db, rc.srv.URL, "post.published")
	emit(t, db, publishedPost(1))
	now := time.Now()
	var waits []time.Duration
	w := &webhooks.Worker{Targets: local, Store: db, Now: func() time.Time { return now },
		Backoff: func(n int) time.Duration { d := webhooks.DefaultBackoff(n); waits = append(waits, d); return d }}
	for i := 0; i < 3; i++ {
		if _, err := w.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n, _ := w.RunOnce(context.Background()); n != 0 {
			t.Fatalf("attempt %d: a delivery was retried before its backoff ran out", i)
		}
		now = now.Add(time.Hour)
	}
	if rc.count() != 3 {
		t.Fatalf("receiver calls = %d", rc.count())
	}
	for _, d := range deliveries(t, db, h.ID) {
		if d.Status != store.DeliveryDelivered || d.Attempts != 3 || d.LastStatus != 204 {
			t.Fatalf("delivery = %+v", d)
		}
	}
	if len(waits) != 2 || waits[0] != 10*time.Second || waits[1] != 20*time.Second {
		t.Fatalf("backoff = %v", waits)
	}
	// Retries send the same bytes (the body is frozen).
	if string(rc.bodies[0]) != string(rc.bodies[1]) || string(rc.bodies[0]) != string(rc.bodies[2]) {
		t.Fatal("a retry sent a different body")
	}
}

func TestGivesUpAfterMaxAttempts(t *testing.T) {
	db := storetest.Open(t)
	defer db.Close()
	rc := newReceiver(t, func(int) int { return 500 })
	h := addHook(t, db, rc.srv.URL, "post.created")
	emit(t, db, publishedPost(1))
	w := &webhooks.Worker{Targets: local, Store: db, MaxAttempts: 2, Backoff: func(int) time.Duration { return 0 }}
	for i := 0; i < 4; i++ {
		if _, err := w.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ds := deliveries(t, db, h.ID)
	if rc.count() != 2 || ds[0].Status != store.DeliveryFailed || ds[0].Attempts != 2 || ds[0].LastError == "" {
		t.Fatalf("calls %d, delivery %+v", rc.count(), ds[0])
	}
}

// TestNoLossAcrossRestartMidDelivery: a worker that dies while a delivery
// is in flight loses nothing; the delivery is claimable again exactly when
// its lease has run out (a clock of the test's, so no timing decides it),
// with the same idempotency key and body.
func TestNoLossAcrossRestartMidDelivery(t *testing.T) {
	dbs := storetest.OpenN(t, 2) // the crashed process, then the restarted one
	db := dbs[0]
	rc := newReceiver(t, nil)
	rc.block = make(chan struct{})
	h := addHook(t, db, rc.srv.URL, "post.created")
	emit(t, db, content.Change{Kind: "post", Type: "post", Action: "created", ID: 1, Record: &store.Post{ID: 1, Status: "draft"}})
	start := time.Now()
	const lease = time.Minute
	// Node A claims the delivery and dies while the request is in flight.
	ctx, crash := context.WithCancel(context.Background())
	a := &webhooks.Worker{Targets: local, Store: db, Owner: "a", Lease: lease, Now: func() time.Time { return start }}
	done := make(chan struct{})
	go func() { _, _ = a.RunOnce(ctx); close(done) }()
	for rc.count() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	crash()
	<-done
	close(rc.block)
	db.Close()
	// The process restarts on the same database.
	now := start.Add(lease - time.Second)
	b := &webhooks.Worker{Targets: local, Store: dbs[1], Owner: "b", Lease: lease, Now: func() time.Time { return now }}
	if n, _ := b.RunOnce(context.Background()); n != 0 {
		t.Fatal("the delivery was claimable while the crashed worker's lease was live")
	}
	now = start.Add(lease + time.Second)
	if n, err := b.RunOnce(context.Background()); err != nil || n != 1 {
		t.Fatalf("after the lease ran out: n=%d err=%v", n, err)
	}
	ds := deliveries(t, dbs[1], h.ID)
	if ds[0].Status != store.DeliveryDelivered || rc.count() != 2 {
		t.Fatalf("delivery %+v, calls %d", ds[0], rc.count())
	}
	if rc.calls[0].Get(webhooks.HeaderDelivery) != rc.calls[1].Get(webhooks.HeaderDelivery) || string(rc.bodies[0]) != string(rc.bodies[1]) {
		t.Fatal("the redelivery changed its idempotency key or body")
	}
}

func TestNoDuplicateDeliveryWithTwoNodes(t *testing.T) {
	dbs := storetest.OpenN(t, 2)
	db1, db2 := dbs[0], dbs[1]
	rc := newReceiver(t, nil)
	h := addHook(t, db1, rc.srv.URL, "post.created")
	const events = 30
	for i := int64(1); i <= events; i++ {
		emit(t, db1, content.Change{Kind: "post", Type: "post", Action: "created", ID: i, Record: &store.Post{ID: i, Status: "draft"}})
	}
	var wg sync.WaitGroup
	var claimed atomic.Int64
	for i, db := range []storetest.Store{db1, db2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &webhooks.Worker{Targets: local, Store: db, Owner: []string{"node1", "node2"}[i], Batch: 3}
			for claimed.Load() < events {
				n, err := w.RunOnce(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				claimed.Add(int64(n))
				if n == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.byID) != events || len(rc.calls) != events {
		t.Fatalf("distinct deliveries %d, calls %d, want %d each", len(rc.byID), len(rc.calls), events)
	}
	for id, n := range rc.byID {
		if n != 1 {
			t.Fatalf("delivery %s sent %d times", id, n)
		}
	}
	for _, d := range deliveries(t, db1, h.ID) {
		if d.Status != store.DeliveryDelivered {
			t.Fatalf("delivery %+v", d)
		}
	}
}
