package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps the reader pool's prepared statements, at most max of
// them; queries beyond it still run, unprepared.
type stmtCache struct {
	db  *sql.DB
	max int

	mu sync.RWMutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB, max int) *stmtCache {
	return &stmtCache{db: db, max: max, m: map[string]*sql.Stmt{}}
}

// query runs query through its cached statement, preparing it on first use;
// unprepared when the cache is full or preparing fails.
func (c *stmtCache) query(ctx context.Context, query string, args []any) (*sql.Rows, error) {
	if st := c.get(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

func (c *stmtCache) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.RLock()
	st, ok := c.m[query]
	n := len(c.m)
	c.mu.RUnlock()
	if ok {
		return st
	}
	if n >= c.max {
		return nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		st.Close()
		return prev
	}
	if c.m == nil {
		// Closed meanwhile.
		st.Close()
		return nil
	}
	c.m[query] = st
	return st
}

// close closes every cached statement; later queries run unprepared.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
