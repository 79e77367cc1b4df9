package sqlstore

import (
	"context"
	"slices"
)

// termCounts collects, in a write transaction, how much the count of each
// term changes (by: term id → change). Where writers run side by side
// (PostgreSQL), SetPostTerms, UpdatePost and DeletePost add here instead
// of counting at once, and the changes are applied just before the
// commit (flushTermCounts), to the rows of the transaction's slot
// (TermCountSlotter): no write waits for another on a term's count.
// held are the links of published new posts made by held statements
// (holdNewPostTerms), counted once the statement has run.
type termCounts struct {
	by   map[int64]int64
	held []heldLinks
}

// heldLinks are the links of the new published post post to the terms of
// ids in taxonomy, made by a held statement that sets *linked to the ids
// it linked (done says when it has run).
type heldLinks struct {
	post     int64
	taxonomy string
	ids      []int64
	linked   *[]int64
	done     *Prefetched
}

func (c *termCounts) empty() bool { return len(c.by) == 0 && len(c.held) == 0 }

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
	if q.counts.by == nil {
		q.counts.by = map[int64]int64{}
	}
	for _, id := range ids {
		q.counts.by[id] += delta
	}
}

// holdCounts records that the held statement done links the new
// published post to the terms of ids in taxonomy, setting *linked to
// those it linked: each of them counts one more.
func (q querier) holdCounts(post int64, taxonomy string, ids []int64, linked *[]int64, done *Prefetched) {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	q.counts.held = append(q.counts.held, heldLinks{post: post, taxonomy: taxonomy, ids: slices.Compact(ids), linked: linked, done: done})
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
// other in a cycle. Links made by a held statement that has run count as
// changes; those of one still held, which goes just before this one (the
// commit's), are read by this statement: the post is new, so its links
// to those terms of the taxonomy are the statement's. Otherwise (where
// one writer runs at a time, and nothing is held) it is one UPDATE of the
// terms' rows per distinct change (usually one: +1).
func (db *DB) termCountStmts(counts *termCounts) []Stmt {
	if counts == nil || counts.empty() {
		return nil
	}
	m, held := counts.by, counts.held
	*counts = termCounts{}
	// The links of held statements still to run, as (post, taxonomy,
	// term) triples.
	var posts, terms []int64
	var taxonomies []string
	for _, h := range held {
		if !h.done.Done {
			for _, id := range h.ids {
				posts, terms, taxonomies = append(posts, h.post), append(terms, id), append(taxonomies, h.taxonomy)
			}
			continue
		}
		if m == nil {
			m = map[int64]int64{}
		}
		for _, id := range *h.linked {
			m[id]++
		}
	}
	var ids []int64
	for id, d := range m {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if len(ids) == 0 && len(posts) == 0 {
		return nil
	}
	if db.termSlot != "" {
		deltas := make([]int64, len(ids))
		for i, id := range ids {
			deltas[i] = m[id]
		}
		if len(posts) == 0 {
			return []Stmt{{Query: `INSERT INTO term_counts (term_id, slot, n)
			SELECT u.id, ` + db.termSlot + `, u.n FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) ORDER BY u.id
			ON CONFLICT (term_id, slot) DO UPDATE SET n = term_counts.n + excluded.n`, Args: []any{ids, deltas}}}
		}
		return []Stmt{{Query: `INSERT INTO term_counts (term_id, slot, n)
			SELECT c.id, ` + db.termSlot + `, SUM(c.n) FROM (
				SELECT u.id, u.n FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n)
				UNION ALL SELECT r.term_id, 1 FROM unnest($3::bigint[], $4::bigint[], $5::text[]) AS h(post_id, term_id, taxonomy)
					JOIN terms t ON t.id = h.term_id AND t.taxonomy = h.taxonomy
					JOIN term_relationships r ON r.post_id = h.post_id AND r.term_id = t.id
			) c GROUP BY c.id HAVING SUM(c.n) <> 0 ORDER BY c.id
			ON CONFLICT (term_id, slot) DO UPDATE SET n = term_counts.n + excluded.n`, Args: []any{ids, deltas, posts, terms, taxonomies}}}
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
