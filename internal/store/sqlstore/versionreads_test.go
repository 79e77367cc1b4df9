package sqlstore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestSharedVersionReadStartsAfterItsCallers: a call that arrives while
// a read is running never takes that read's value, which may be older
// than a write acknowledged before the call; it waits for the next read,
// which the calls arriving meanwhile share.
func TestSharedVersionReadStartsAfterItsCallers(t *testing.T) {
	db := &DB{d: classDialect{}}
	var current atomic.Int64 // the committed version
	current.Store(4)
	started := make(chan int64, 8)
	release := make(chan struct{}, 8)
	db.versionReads.read = func(context.Context) (int64, error) {
		v := current.Load() // the snapshot of a read is taken as it starts
		started <- v
		<-release
		return v, nil
	}
	ctx := context.Background()
	type result struct {
		v   int64
		err error
	}
	call := func() chan result {
		out := make(chan result, 1)
		go func() {
			v, err := db.Version(ctx)
			out <- result{v, err}
		}()
		return out
	}
	first := call()
	if v := recv(t, started); v != 4 {
		t.Fatalf("the first read saw %d, want 4", v)
	}
	current.Store(5) // a write commits while the first read runs
	second, third := call(), call()
	waitFor(t, func() bool { return pending(db) == 2 })
	select {
	case <-started:
		t.Fatal("a second read started while the first ran")
	case <-time.After(20 * time.Millisecond):
	}
	release <- struct{}{}
	if r := recv(t, first); r.err != nil || r.v != 4 {
		t.Fatalf("first call: %d, %v; want 4", r.v, r.err)
	}
	if v := recv(t, started); v != 5 {
		t.Fatalf("the shared read saw %d, want 5", v)
	}
	release <- struct{}{}
	for _, c := range []chan result{second, third} {
		if r := recv(t, c); r.err != nil || r.v != 5 {
			t.Fatalf("a call that arrived after the write: %d, %v; want 5", r.v, r.err)
		}
	}
	if n := db.VersionReads(); n != 2 {
		t.Fatalf("%d reads for three calls, want 2", n)
	}
	waitFor(t, func() bool {
		db.versionReads.mu.Lock()
		defer db.versionReads.mu.Unlock()
		return !db.versionReads.running
	})
	// Alone again, a call reads at once.
	current.Store(6)
	fourth := call()
	if v := recv(t, started); v != 6 {
		t.Fatalf("a call alone read %d, want 6", v)
	}
	release <- struct{}{}
	if r := recv(t, fourth); r.v != 6 {
		t.Fatalf("a call alone: %d, want 6", r.v)
	}
}

// pending is how many calls wait for the next read.
func pending(db *DB) int {
	db.versionReads.mu.Lock()
	defer db.versionReads.mu.Unlock()
	if db.versionReads.next != nil {
		return db.versionReads.next.waiting
	}
	return 0
}

// recv receives from c, failing t after five seconds.
func recv[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
		panic("unreachable")
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
