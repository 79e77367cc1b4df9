package sqlstore

import (
	"context"
	"runtime"
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

// Gate bounds how many costly reads run at once.
type Gate struct {
	mu           sync.Mutex
	limit, inUse int
	// freed is closed (and replaced) whenever a slot frees or the limit
	// changes, waking the waiters.
	freed chan struct{}
	// peak is the most reads that ran at once (Peak).
	peak int
}

// NewGate returns a gate letting limit reads run at once.
func NewGate(limit int) *Gate {
	return &Gate{limit: max(1, limit), freed: make(chan struct{})}
}

// Enter waits for a slot, or fails with ctx's error when ctx ends first;
// leave gives the slot back.
func (g *Gate) Enter(ctx context.Context) (leave func(), err error) {
	for {
		g.mu.Lock()
		if g.inUse < g.limit {
			g.inUse++
			g.peak = max(g.peak, g.inUse)
			g.mu.Unlock()
			var once sync.Once
			return func() { once.Do(g.leave) }, nil
		}
		freed := g.freed
		g.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (g *Gate) leave() {
	g.mu.Lock()
	g.inUse--
	g.wakeLocked()
	g.mu.Unlock()
}

func (g *Gate) wakeLocked() {
	close(g.freed)
	g.freed = make(chan struct{})
}

// SetLimit changes how many reads run at once (at least one).
func (g *Gate) SetLimit(limit int) {
	g.mu.Lock()
	g.limit = max(1, limit)
	g.wakeLocked()
	g.mu.Unlock()
}

// Peak returns the most reads that have run at once.
func (g *Gate) Peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}
