package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// writeStmts keeps the writer connection's prepared statements, at most max
// of them, so that a write transaction does not parse its SQL again on
// every request (parsing was about a quarter of a create's CPU).
//
// The writer pool has one connection and a transaction holds it, so a
// statement cannot be prepared on the pool while a transaction runs: a
// statement first seen in a transaction runs unprepared there and is
// prepared on the pool after the transaction ends (the connection is free
// again); from then on transactions run it through Tx.StmtContext, which
// reuses the statement already prepared on that connection. Past max
// statements new ones are not cached (the writer's SQL is a fixed set; only
// a runaway of distinct texts could reach it) and keep running unprepared.
type writeStmts struct {
	db  *sql.DB
	max int

	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]struct{}
	closed  bool
}

func newWriteStmts(db *sql.DB, max int) *writeStmts {
	return &writeStmts{db: db, max: max, m: map[string]*sql.Stmt{}, pending: map[string]struct{}{}}
}

// lookup returns the prepared statement of query, or nil after noting
// query to be prepared once the running transaction has ended.
func (w *writeStmts) lookup(query string) *sql.Stmt {
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.m[query]; ok {
		return st
	}
	if !w.closed && len(w.m)+len(w.pending) < w.max {
		w.pending[query] = struct{}{}
	}
	return nil
}

// preparePending prepares the statements noted by lookup. Call it with no
// transaction open in this goroutine: it takes the writer connection. A
// statement that fails to prepare is dropped and keeps running unprepared.
func (w *writeStmts) preparePending() {
	w.mu.Lock()
	if len(w.pending) == 0 || w.closed {
		w.mu.Unlock()
		return
	}
	queries := make([]string, 0, len(w.pending))
	for q := range w.pending {
		queries = append(queries, q)
	}
	clear(w.pending)
	w.mu.Unlock()
	for _, q := range queries {
		st, err := w.db.PrepareContext(context.Background(), q)
		if err != nil {
			continue
		}
		w.mu.Lock()
		if _, dup := w.m[q]; dup || w.closed {
			w.mu.Unlock()
			st.Close()
			continue
		}
		w.m[q] = st
		w.mu.Unlock()
	}
}

// len returns how many statements are prepared.
func (w *writeStmts) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.m)
}

// close closes every prepared statement; later statements run unprepared.
func (w *writeStmts) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, st := range w.m {
		st.Close()
	}
	w.m, w.pending, w.closed = map[string]*sql.Stmt{}, map[string]struct{}{}, true
}
