package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Plan is the query plan the database chose for one statement.
type Plan struct {
	// SQL is the statement and Args its parameters.
	SQL  string
	Args []any
	// Steps are the lines of the plan, outermost first: SQLite's EXPLAIN
	// QUERY PLAN details, PostgreSQL's EXPLAIN lines.
	Steps []string
}

// String returns the plan's steps, one a line.
func (p Plan) String() string { return strings.Join(p.Steps, "\n") }

// planKey marks a context whose queries are recorded by Plans.
type planKey struct{}

type planRecorder struct {
	mu    sync.Mutex
	stmts []recorded
}

type recorded struct {
	query string
	args  []any
}

// planning counts the Plans calls running, so that queries look for a
// recorder in their context only while one runs.
var planning atomic.Int32

// record notes a query run in a context of Plans.
func record(ctx context.Context, query string, args []any) {
	if planning.Load() == 0 {
		return
	}
	if r, ok := ctx.Value(planKey{}).(*planRecorder); ok {
		r.mu.Lock()
		r.stmts = append(r.stmts, recorded{query, args})
		r.mu.Unlock()
	}
}

// Plans runs fn, then asks the database how it plans each query fn ran
// (with the same arguments), in order. It is how tests check that a
// listing walks an index instead of sorting or skipping the whole table.
func (db *DB) Plans(ctx context.Context, fn func(ctx context.Context) error) ([]Plan, error) {
	rec := &planRecorder{}
	planning.Add(1)
	err := fn(context.WithValue(ctx, planKey{}, rec))
	planning.Add(-1)
	if err != nil {
		return nil, err
	}
	explain := "EXPLAIN "
	if db.d.Name() == "sqlite" {
		explain = "EXPLAIN QUERY PLAN "
	}
	r := querier{db: db, c: db.c.Reader()}
	plans := make([]Plan, 0, len(rec.stmts))
	for _, st := range rec.stmts {
		p := Plan{SQL: st.query, Args: st.args}
		err := r.queryOnce(ctx, func(rows Rows) error {
			// The detail is the last column (SQLite's EXPLAIN QUERY PLAN
			// has id, parent, notused, detail; PostgreSQL's EXPLAIN one).
			vals := make([]any, len(rows.Columns()))
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			switch v := vals[len(vals)-1].(type) {
			case string:
				p.Steps = append(p.Steps, v)
			case []byte:
				p.Steps = append(p.Steps, string(v))
			default:
				p.Steps = append(p.Steps, fmt.Sprint(v))
			}
			return nil
		}, explain+st.query, st.args...)
		if err != nil {
			return nil, db.fail("explain", err)
		}
		plans = append(plans, p)
	}
	return plans, nil
}
