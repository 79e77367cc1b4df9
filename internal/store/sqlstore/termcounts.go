package sqlstore

import (
	"context"
	"slices"
)

// termCounts collects, in a write transaction, how much the count of each
// term changes (term id → change). Where writers run side by side
// (PostgreSQL), SetPostTerms, UpdatePost and DeletePost add here instead
// of counting at once, and the changes are applied just before the
// commit (flushTermCounts), to the rows of the transaction's slot
// (TermCountSlotter): no write waits for another on a term's count.
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
// collected and forgets them (termCountStmts).
func (db *DB) flushTermCounts(ctx context.Context, q querier) error {
	for _, st := range db.termCountStmts(q.counts) {
		if _, err := q.exec(ctx, st.Query, st.Args...); err != nil {
			return db.fail("count terms", err)
		}
	}
	return nil
}

// termCountStmts returns the statements that apply the term count
// changes in counts, and forgets them. Where counts are slotted, one
// statement adds every change to the rows of the transaction's slot,
// inserting the rows a slot does not have yet; the rows are taken in term
// id order, so two transactions that share a slot never wait for each
// other in a cycle. Otherwise (where one writer runs at a time) it is one
// UPDATE of the terms' rows per distinct change (usually one: +1).
func (db *DB) termCountStmts(counts *termCounts) []Stmt {
	if counts == nil || len(*counts) == 0 {
		return nil
	}
	m := *counts
	*counts = nil
	var ids []int64
	for id, d := range m {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return nil
	}
	if db.termSlot != "" {
		deltas := make([]int64, len(ids))
		for i, id := range ids {
			deltas[i] = m[id]
		}
		return []Stmt{{Query: `INSERT INTO term_counts (term_id, slot, n)
			SELECT u.id, ` + db.termSlot + `, u.n FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) ORDER BY u.id
			ON CONFLICT (term_id, slot) DO UPDATE SET n = term_counts.n + excluded.n`, Args: []any{ids, deltas}}}
	}
	byDelta := map[int64][]int64{}
	var deltas []int64
	for _, id := range ids {
		d := m[id]
		if byDelta[d] == nil {
			deltas = append(deltas, d)
		}
		byDelta[d] = append(byDelta[d], id)
	}
	slices.Sort(deltas)
	out := make([]Stmt, 0, len(deltas))
	for _, d := range deltas {
		a := &Args{vals: []any{d}}
		out = append(out, Stmt{Query: `UPDATE terms SET count = count + $1 WHERE ` + db.d.In(a, "id", byDelta[d], false), Args: a.vals})
	}
	return out
}
