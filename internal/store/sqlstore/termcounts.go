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
// collected, one statement per distinct change (usually one: +1), and
// forgets them. Several rows are first locked in id order, in a statement
// of their own (lockRows; an UPDATE locks them in the order it finds
// them, which can differ between two transactions and deadlock them, and
// so does an UPDATE joined to a locking sub-select), so that two
// transactions never wait for each other's term rows in a cycle.
func (db *DB) flushTermCounts(ctx context.Context, q querier) error {
	if q.counts == nil || len(*q.counts) == 0 {
		return nil
	}
	byDelta := map[int64][]int64{}
	for id, d := range *q.counts {
		if d != 0 {
			byDelta[d] = append(byDelta[d], id)
		}
	}
	*q.counts = nil
	deltas := make([]int64, 0, len(byDelta))
	for d := range byDelta {
		deltas = append(deltas, d)
	}
	slices.Sort(deltas)
	var all []int64
	for _, ids := range byDelta {
		all = append(all, ids...)
	}
	if len(all) > 1 {
		slices.Sort(all)
		if _, err := db.lockRows(ctx, q, "terms", all, false); err != nil {
			return err
		}
	}
	for _, d := range deltas {
		ids := byDelta[d]
		slices.Sort(ids)
		a := &Args{vals: []any{d}}
		if _, err := q.exec(ctx, `UPDATE terms SET count = count + $1 WHERE `+db.d.In(a, "id", ids, false), a.vals...); err != nil {
			return db.fail("count terms", err)
		}
	}
	return nil
}
