package storetest_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/storetest"
)

// TestRateTokensAreOneBucketForEveryNode checks the stored token buckets:
// a burst is allowed and then one token per interval, a refusal says how
// long to wait, two handles on one database (two nodes) take from the
// same bucket, concurrent takes never exceed the burst, and full buckets
// are pruned.
func TestRateTokensAreOneBucketForEveryNode(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	iv := 100 * time.Millisecond // 10 a second
	take := func(i int, key string, at time.Time) time.Duration {
		t.Helper()
		d, err := dbs[i%2].TakeRateToken(ctx, key, at, iv, 5)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i := range 5 {
		if d := take(i, "k", t0); d != 0 {
			t.Fatalf("take %d of the burst refused (wait %v)", i, d)
		}
	}
	if d := take(0, "k", t0); d != iv {
		t.Fatalf("sixth take: wait %v, want %v", d, iv)
	}
	if d := take(1, "k", t0.Add(iv/2)); d != iv/2 {
		t.Fatalf("half an interval later: wait %v, want %v", d, iv/2)
	}
	if d := take(1, "k", t0.Add(iv)); d != 0 {
		t.Fatalf("one interval later: wait %v, want a token", d)
	}
	if d := take(0, "other", t0); d != 0 {
		t.Fatalf("another key shares the bucket: wait %v", d)
	}

	// Concurrent takes on both handles: exactly the burst is granted.
	t1 := t0.Add(time.Hour)
	var granted atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			d, err := dbs[i%2].TakeRateToken(ctx, "race", t1, iv, 5)
			if err != nil {
				t.Error(err)
			}
			if d == 0 {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	if g := granted.Load(); g != 5 {
		t.Fatalf("concurrent takes granted %d tokens, want 5", g)
	}

	// Buckets full by t1 (k, other) go; race is not full until t1+5iv.
	n, err := dbs[0].DeleteRateBuckets(ctx, t1, 100)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (%v), want 2", n, err)
	}
	if d := take(0, "race", t1); d == 0 {
		t.Fatal("the pruning emptied a bucket in use")
	}
}

// BenchmarkTakeRateToken measures one stored token take (one small
// upsert), what each API request costs on PostgreSQL with shared rate
// limits.
func BenchmarkTakeRateToken(b *testing.B) {
	db := storetest.Open(b)
	ctx := context.Background()
	t0 := time.Now()
	i := 0
	for b.Loop() {
		i++
		if _, err := db.TakeRateToken(ctx, "bench"+strconv.Itoa(i%100), t0, time.Millisecond, 1000); err != nil {
			b.Fatal(err)
		}
	}
}
