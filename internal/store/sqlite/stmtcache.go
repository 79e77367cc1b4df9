package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// stmtCache keeps the reader pool's prepared statements, at most max of
// them. When it is full, a new statement takes the place of one not used
// lately, chosen by the CLOCK algorithm (an approximation of least recently
// used): a hit only sets a flag, so reads share the lock instead of taking
// it in turn to reorder a list; the eviction sweep clears the flags it
// passes and evicts the first statement whose flag is clear.
type stmtCache struct {
	db  *sql.DB
	max int

	mu     sync.RWMutex
	m      map[string]*cachedStmt
	ring   []*cachedStmt // the clock; len(ring) == len(m)
	hand   int
	closed bool
}

type cachedStmt struct {
	query string
	st    *sql.Stmt
	// used is set by every hit and cleared by the sweep.
	used atomic.Bool
	// evicted is set before st is closed.
	evicted atomic.Bool
}

func newStmtCache(db *sql.DB, max int) *stmtCache {
	return &stmtCache{db: db, max: max, m: map[string]*cachedStmt{}}
}

// query runs query through its cached statement, preparing it on first use;
// unprepared when preparing fails.
func (c *stmtCache) query(ctx context.Context, query string, args []any) (*sql.Rows, error) {
	return c.run(ctx, c.get(ctx, query), query, args)
}

// run runs query through e, the entry get returned for it.
func (c *stmtCache) run(ctx context.Context, e *cachedStmt, query string, args []any) (*sql.Rows, error) {
	if e == nil {
		return c.db.QueryContext(ctx, query, args...)
	}
	rs, err := e.st.QueryContext(ctx, args...)
	if err != nil && e.evicted.Load() {
		// Closed by an eviction between the lookup and the call: a closed
		// statement runs nothing, so run the query unprepared.
		return c.db.QueryContext(ctx, query, args...)
	}
	return rs, err
}

// get returns the entry of query, adding it (and evicting another when the
// cache is full); nil when preparing fails or the cache is closed.
func (c *stmtCache) get(ctx context.Context, query string) *cachedStmt {
	c.mu.RLock()
	e, ok := c.m[query]
	c.mu.RUnlock()
	if ok {
		if !e.used.Load() {
			e.used.Store(true)
		}
		return e
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	e, victim := c.add(query, st)
	if victim != nil {
		// Close waits for calls running on the statement to start their
		// rows, so it runs outside the lock.
		victim.st.Close()
	}
	return e
}

// add stores st as query's statement and returns the entry (another
// goroutine's when it added query first) and the entry evicted for it.
func (c *stmtCache) add(query string, st *sql.Stmt) (e, victim *cachedStmt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok || c.closed {
		st.Close()
		return prev, nil
	}
	e = &cachedStmt{query: query, st: st}
	if len(c.ring) < c.max {
		c.ring = append(c.ring, e)
		c.m[query] = e
		return e, nil
	}
	for c.ring[c.hand].used.Load() {
		c.ring[c.hand].used.Store(false)
		c.hand = (c.hand + 1) % len(c.ring)
	}
	victim = c.ring[c.hand]
	delete(c.m, victim.query)
	victim.evicted.Store(true)
	c.ring[c.hand] = e
	c.hand = (c.hand + 1) % len(c.ring)
	c.m[query] = e
	return e, victim
}

// len returns how many statements the cache holds.
func (c *stmtCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// close closes every cached statement; later queries run unprepared.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.ring {
		e.evicted.Store(true)
		e.st.Close()
	}
	c.m, c.ring, c.closed = map[string]*cachedStmt{}, nil, true
}
