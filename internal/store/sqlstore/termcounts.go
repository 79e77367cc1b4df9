package sqlstore

import (
	"context"
	"slices"
)

// termCounts collects, in a write transaction, how much the count of each
// term changes (term id → change). Where rows are locked (PostgreSQL),
// SetPostTerms, UpdatePost and DeletePost add here instead of updating the
// terms' rows at once, and the changes are applied just before the commit
// (flushTermCounts), every row locked in id order: a
// term's row is then locked for the commit alone rather than for the rest
// of the transaction, so that concurrent creates in the default category
// do not queue on its row while each runs its remaining statements.
type termCounts map[int64]int64

// deferCounts reports whether q collects term count changes for the
// commit rather than applying them at once.
func (q querier) deferCounts() bool {
	return q.counts != nil && q.db.d.Lock(false) != ""
}

// add records that the counts of ids change by delta.
func (q querier) addCounts(ids []int64, delta int64) {
	if len(ids) == 0 {
		return
	}
	if *q.counts == nil {
		*q.counts = termCounts{}
	}
	for _, id := range ids {
		(*q.counts)[id] += delta
	}
}

// flushTermCounts applies the term count changes q's transaction
// collected and forgets them (termCountStmts), one statement at a time.
func (db *DB) flushTermCounts(ctx context.Context, q querier) error {
	for _, st := range db.termCountStmts(q.counts) {
		if st.lock {
			if _, err := q.c.Exec(ctx, st.Query, st.Args...); err != nil {
				return db.fail("lock terms", err)
			}
			continue
		}
		if _, err := q.exec(ctx, st.Query, st.Args...); err != nil {
			return db.fail("count terms", err)
		}
	}
	return nil
}

// countStmt is a statement that applies term count changes; lock is set
// for the one that only locks rows (not counted as a statement).
type countStmt struct {
	Stmt
	lock bool
}

// termCountStmts returns the statements that apply the term count
// changes in counts, one statement per distinct change (usually one:
// +1), and forgets them. Several rows are first locked in id order, in a
// statement of their own (an UPDATE locks rows in the order it finds
// them, which can differ between two transactions and deadlock them, and
// so does an UPDATE joined to a locking sub-select), so that two
// transactions never wait for each other's term rows in a cycle.
func (db *DB) termCountStmts(counts *termCounts) []countStmt {
	if counts == nil || len(*counts) == 0 {
		return nil
	}
	byDelta := map[int64][]int64{}
	for id, d := range *counts {
		if d != 0 {
			byDelta[d] = append(byDelta[d], id)
		}
	}
	*counts = nil
	deltas := make([]int64, 0, len(byDelta))
	for d := range byDelta {
		deltas = append(deltas, d)
	}
	slices.Sort(deltas)
	var all []int64
	for _, ids := range byDelta {
		all = append(all, ids...)
	}
	var out []countStmt
	if len(all) > 1 {
		if lock := db.rowLock(); lock != "" {
			slices.Sort(all)
			a := &Args{}
			out = append(out, countStmt{Stmt: Stmt{`SELECT id FROM terms WHERE ` + db.d.In(a, "id", all, false) + ` ORDER BY id` + lock, a.vals}, lock: true})
		}
	}
	for _, d := range deltas {
		ids := byDelta[d]
		slices.Sort(ids)
		a := &Args{vals: []any{d}}
		out = append(out, countStmt{Stmt: Stmt{`UPDATE terms SET count = count + $1 WHERE ` + db.d.In(a, "id", ids, false), a.vals}})
	}
	return out
}
