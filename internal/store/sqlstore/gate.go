package sqlstore

import (
	"context"
	"runtime"
	"slices"
	"sync"
)

// Search counts take turns. The total of a search the store does not keep
// (SearchTotals) is counted in the full-text index, and a word in most
// posts costs its whole list there: two such words are some 100 ms of one
// CPU at a million posts. Sixteen clients asking for such searches at once
// held every reader connection and both CPUs of a small server: list pages
// beside them fell from about 5,000 to 11 a second, with a p99 of one
// second. A Gate lets a few counts run at once (SearchCountSlots) and
// makes the others wait for a slot before they take a connection, so a
// flood of costly searches slows those searches alone.

// SearchCountSlots is how many search counts run at once in one process:
// half its CPUs, at least one.
func SearchCountSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// Gate bounds how many costly reads run at once. Waiters enter in the
// order they came (a slot that frees goes to the longest waiting), so a
// queue of costly reads drains without starving any of them.
type Gate struct {
	mu           sync.Mutex
	limit, inUse int
	// waiting are the waiters, first come first; a waiter's channel is
	// closed when it is handed a slot.
	waiting []chan struct{}
	// peak is the most reads that ran at once (Peak); waited counts the
	// reads that had to wait.
	peak   int
	waited int64
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
	return &Gate{limit: max(1, limit)}
}

// Enter waits for a slot, or fails with ctx's error when ctx ends first;
// leave gives the slot back.
func (g *Gate) Enter(ctx context.Context) (leave func(), err error) {
	g.mu.Lock()
	if g.inUse < g.limit && len(g.waiting) == 0 {
		g.takeLocked()
		g.mu.Unlock()
		return g.leaver(), nil
	}
	ch := make(chan struct{})
	g.waiting = append(g.waiting, ch)
	g.waited++
	g.mu.Unlock()
	select {
	case <-ch:
		return g.leaver(), nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if i := slices.Index(g.waiting, ch); i >= 0 {
		g.waiting = slices.Delete(g.waiting, i, i+1)
		g.mu.Unlock()
		return nil, ctx.Err()
	}
	g.mu.Unlock()
	g.leave() // handed a slot as ctx ended: give it on
	return nil, ctx.Err()
}

func (g *Gate) takeLocked() {
	g.inUse++
	g.peak = max(g.peak, g.inUse)
}

func (g *Gate) leaver() func() {
	var once sync.Once
	return func() { once.Do(g.leave) }
}

func (g *Gate) leave() {
	g.mu.Lock()
	g.inUse--
	g.handLocked()
	g.mu.Unlock()
}

// handLocked hands the free slots to the first waiters.
func (g *Gate) handLocked() {
	for g.inUse < g.limit && len(g.waiting) > 0 {
		ch := g.waiting[0]
		g.waiting = g.waiting[1:]
		g.takeLocked()
		close(ch)
	}
}

// SetLimit changes how many reads run at once (at least one).
func (g *Gate) SetLimit(limit int) {
	g.mu.Lock()
	g.limit = max(1, limit)
	g.handLocked()
	g.mu.Unlock()
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
	return GateStats{Running: g.inUse, Waiting: len(g.waiting), Waited: g.waited}
}
