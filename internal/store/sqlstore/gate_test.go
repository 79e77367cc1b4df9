package sqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGateLetsLimitReadsRunAtOnce(t *testing.T) {
	g := NewGate(2)
	var running, most atomic.Int64
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leave, err := g.Enter(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			running.Add(-1)
			leave()
			leave() // a second leave gives nothing back
		}()
	}
	wg.Wait()
	if m := most.Load(); m != 2 || g.Peak() != 2 {
		t.Fatalf("at most %d ran at once (gate peak %d), want 2", m, g.Peak())
	}
	// Every slot is free again: two enter at once.
	l1, err1 := g.Enter(context.Background())
	l2, err2 := g.Enter(context.Background())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	l1()
	l2()
}

func TestGateWaiterLeavesWithItsContext(t *testing.T) {
	g := NewGate(1)
	leave, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a waiter whose context ended: %v, want the deadline", err)
	}
	// A waiter enters once the slot is left.
	entered := make(chan error, 1)
	go func() {
		l, err := g.Enter(context.Background())
		if err == nil {
			l()
		}
		entered <- err
	}()
	select {
	case err := <-entered:
		t.Fatalf("entered a full gate: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	if st := g.Stats(); st != (GateStats{Running: 1, Waiting: 1, Waited: 2}) {
		t.Fatalf("stats %+v, want one running, one waiting, two that waited", st)
	}
	leave()
	select {
	case err := <-entered:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiter stayed out after the slot was left")
	}
	// A wider gate lets more in at once.
	g.SetLimit(2)
	l1, err1 := g.Enter(context.Background())
	l2, err2 := g.Enter(context.Background())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if st := g.Stats(); st.Running != 2 || st.Waiting != 0 {
		t.Fatalf("stats %+v, want two running", st)
	}
	l1()
	l2()
}

func TestGateLetsWaitersInInTheirOrder(t *testing.T) {
	g := NewGate(1)
	leave, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	queued := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.waiting
	}
	order := make(chan int, 5)
	for i := range 5 {
		go func() {
			l, err := g.Enter(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			l()
		}()
		for queued() != i+1 { // the next waiter comes after this one
			time.Sleep(time.Millisecond)
		}
		time.Sleep(5 * time.Millisecond) // counted just before it queues
	}
	leave()
	for want := range 5 {
		if got := <-order; got != want {
			t.Fatalf("waiter %d entered in place %d", got, want)
		}
	}
}
