package sqlstore

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Search counts take turns. The total of a search the store does not keep
// (SearchTotals) is counted in the full-text index, and a word in most
// posts costs its whole list there: two such words are some 100 ms of one
// CPU at a million posts. Sixteen clients asking for such searches at once
// held every reader connection and both CPUs of a small server: list pages
// beside them fell from about 5,000 to 11 a second, with a p99 of one
// second. A Gate lets a few counts run at once (SearchCountSlots) and
// makes the others wait for a slot before they take a connection, so a
// flood of costly searches slows those searches alone. The other costly
// reads take turns in the same slots: large search windows (windowTurn),
// deep pages that their month does not find (deepPageTurn), deep pages of
// comments and totals of comments not narrowed to some posts
// (CountComments).

// SearchCountSlots is how many search counts run at once in one process:
// half its CPUs, at least one.
func SearchCountSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// Gate bounds how many costly reads run at once: a weighted semaphore
// (golang.org/x/sync/semaphore, first come first served: a slot that
// frees goes to the longest waiting, so a queue of costly reads drains
// without starving any of them) that also counts what it holds, for the
// metrics.
type Gate struct {
	sem atomic.Pointer[semaphore.Weighted]
	mu  sync.Mutex
	// running and waiting are the reads in and waiting now, peak the most
	// that ran at once, waited how many had to wait.
	running, waiting, peak int
	waited                 int64
}

// GateStats is what a gate holds now and has held.
type GateStats struct {
	// Running and Waiting are the reads in and waiting now; Waited is
	// how many had to wait so far.
	Running, Waiting int
	Waited           int64
}

// NewGate returns a gate letting limit reads run at once.
func NewGate(limit int) *Gate {
	g := &Gate{}
	g.SetLimit(limit)
	return g
}

// Enter waits for a slot, or fails with ctx's error when ctx ends first;
// leave gives the slot back (once, however often it is called).
func (g *Gate) Enter(ctx context.Context) (leave func(), err error) {
	sem := g.sem.Load()
	if !sem.TryAcquire(1) {
		g.count(0, 1, 1)
		err := sem.Acquire(ctx, 1)
		g.count(0, -1, 0)
		if err != nil {
			return nil, err
		}
	}
	g.count(1, 0, 0)
	var once sync.Once
	return func() {
		once.Do(func() {
			g.count(-1, 0, 0)
			sem.Release(1)
		})
	}, nil
}

func (g *Gate) count(running, waiting int, waited int64) {
	g.mu.Lock()
	g.running += running
	g.waiting += waiting
	g.waited += waited
	g.peak = max(g.peak, g.running)
	g.mu.Unlock()
}

// SetLimit sets how many reads run at once (at least one), from the next
// one to enter on; those already in or waiting keep the limit they met.
func (g *Gate) SetLimit(limit int) {
	g.sem.Store(semaphore.NewWeighted(int64(max(1, limit))))
}

// Peak returns the most reads that have run at once.
func (g *Gate) Peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// Stats returns what the gate holds now and has held.
func (g *Gate) Stats() GateStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return GateStats{Running: g.running, Waiting: g.waiting, Waited: g.waited}
}

// costlyTurn waits for a turn in the gate of the costly reads
// (searchCounts) when costly is set, outside a write transaction (which
// waits for nothing); leave gives the turn back, and is a no-op when no
// turn was taken.
func (o ops) costlyTurn(ctx context.Context, costly bool) (leave func(), err error) {
	if !costly || o.tx != nil {
		return func() {}, nil
	}
	return o.db.searchCounts.Enter(ctx)
}
