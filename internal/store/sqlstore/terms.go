package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// termCount returns the count of the term of the terms row named name
// (the table or its alias): the row's count, plus its slots where counts
// are spread over term_counts (TermCountSlotter).
func (db *DB) termCount(name string) string {
	if db.termSlot == "" {
		if name == "terms" {
			return `count`
		}
		return name + `.count`
	}
	return `(` + name + `.count + ` + termSlots(name) + `)`
}

// termSlots returns the sum of the slots of the term of the terms row
// named name (TermCountSlotter).
func termSlots(name string) string {
	return `COALESCE((SELECT SUM(tc.n) FROM term_counts tc WHERE tc.term_id = ` + name + `.id), 0)`
}

func scanTerm(s scanner) (*store.Term, error) {
	var t store.Term
	if err := s.Scan(&t.ID, &t.Taxonomy, &t.Name, &t.Slug, &t.Description, &t.Parent, &t.Count); err != nil {
		return nil, err
	}
	return &t, nil
}

// GetTerm loads one term; store.ErrNotFound when there is none.
func (o ops) GetTerm(ctx context.Context, id int64) (*store.Term, error) {
	t, err := scanTerm(o.reader().queryRow(ctx, `SELECT `+o.db.termCols+` FROM terms WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound(fmt.Sprintf("term %d", id))
	}
	if err != nil {
		return nil, o.db.fail(fmt.Sprintf("get term %d", id), err)
	}
	return t, nil
}

// GetTerms loads the terms with the given ids in one query.
func (o ops) GetTerms(ctx context.Context, ids []int64) (map[int64]*store.Term, error) {
	out := make(map[int64]*store.Term, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	a := &Args{}
	var terms []*store.Term
	err := collect(ctx, o.reader(), &terms, scanTerm, `SELECT `+o.db.termCols+` FROM terms WHERE `+inExpr(o.db.d, a, "id", ids, false), a.vals...)
	if err != nil {
		return nil, o.db.fail("get terms", err)
	}
	for _, t := range terms {
		out[t.ID] = t
	}
	return out, nil
}

// termWhere turns q's filters into a WHERE clause; mode is how the search
// reads the table (termSearchPlan).
func (db *DB) termWhere(q *store.TermQuery, a *Args, mode substringMode) *cond {
	c := db.newCond(a)
	c.add(`taxonomy = ` + a.Add(q.Taxonomy))
	if s := strings.TrimSpace(q.Search); s != "" {
		c.add(db.substringCond(a, termIndex, "terms", false, s, mode, func() string { return `taxonomy = ` + a.Add(q.Taxonomy) }))
	}
	if len(q.Include) > 0 {
		inList(c, "id", q.Include, false)
	}
	if len(q.Exclude) > 0 {
		inList(c, "id", q.Exclude, true)
	}
	if len(q.Slugs) > 0 {
		inList(c, "slug", q.Slugs, false)
	}
	if len(q.Names) > 0 {
		inList(c, db.d.Fold("name"), foldASCIIAll(q.Names), false)
	}
	if q.ParentSet {
		c.add(`parent = ` + a.Add(q.Parent))
	}
	if q.HideEmpty {
		if q.Hierarchical {
			// An empty term stays when one of its descendants is used,
			// as the original's hierarchical get_terms does.
			count := db.termCount("terms")
			c.add(`(` + count + ` > 0 OR id IN (WITH RECURSIVE anc(id) AS (
				SELECT parent FROM terms WHERE taxonomy = ` + a.Add(q.Taxonomy) + ` AND ` + count + ` > 0 AND parent <> 0
				UNION SELECT t.parent FROM terms t JOIN anc ON t.id = anc.id WHERE t.parent <> 0)
				SELECT id FROM anc))`)
		} else {
			c.add(db.termCount("terms") + ` > 0`)
		}
	}
	return c
}

// termOrder returns the ORDER BY clause for q; ties break on id.
func (db *DB) termOrder(q *store.TermQuery, a *Args) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id", "term_group":
		// Every term is in group 0, so term_group leaves the id order.
		return " ORDER BY id " + dir
	case "include":
		if len(q.Include) > 0 {
			return ` ORDER BY ` + db.d.Position(a, q.Include, "terms.id") + `, id ASC`
		}
	case "slug", "description":
		return " ORDER BY " + q.OrderBy + " " + dir + ", id " + dir
	case "count":
		return " ORDER BY " + db.termCount("terms") + " " + dir + ", id " + dir
	}
	return " ORDER BY " + db.d.FoldOrder("name") + " " + dir + ", id " + dir
}

// termSearchPlan chooses how q's search reads the terms (substringPlan).
func (o ops) termSearchPlan(ctx context.Context, q *store.TermQuery) (substringMode, error) {
	return o.substringPlan(ctx, termIndex, false, strings.TrimSpace(q.Search))
}

// ListTerms returns the terms q selects, in q's order, in one query (after
// one that counts a search's candidates in its index: substringPlan).
func (o ops) ListTerms(ctx context.Context, q store.TermQuery) ([]*store.Term, error) {
	mode, err := o.termSearchPlan(ctx, &q)
	if err != nil {
		return nil, err
	}
	a := &Args{}
	c := o.db.termWhere(&q, a, mode)
	query := `SELECT ` + o.db.termCols + ` FROM terms` + c.where() + o.db.termOrder(&q, a) + o.db.limitClause(q.Limit, q.Offset, a)
	var out []*store.Term
	if err := collect(ctx, o.reader(), &out, scanTerm, query, o.db.substringArgs(a, mode)...); err != nil {
		return nil, o.db.fail("list terms", err)
	}
	return out, nil
}

// CountTerms counts the terms q selects, ignoring its order and page.
func (o ops) CountTerms(ctx context.Context, q store.TermQuery) (int64, error) {
	mode, err := o.termSearchPlan(ctx, &q)
	if err != nil {
		return 0, err
	}
	a := &Args{}
	c := o.db.termWhere(&q, a, mode)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM terms`+c.where(), o.db.substringArgs(a, mode)...).Scan(&n); err != nil {
		return 0, o.db.fail("count terms", err)
	}
	return n, nil
}

// InsertTerm stores t and sets t.ID. The count starts at 0: a new term has
// no posts.
func (o ops) InsertTerm(ctx context.Context, t *store.Term) error {
	if t.ID != 0 {
		return o.db.errorf("insert term: id is %d, want 0", t.ID)
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		id, err := q.insert(ctx, "terms", `taxonomy, name, slug, description, parent, count`,
			t.Taxonomy, t.Name, t.Slug, t.Description, t.Parent, int64(0))
		if err != nil {
			return false, o.db.conflict(err, "insert term")
		}
		t.ID, t.Count = id, 0
		return true, nil
	})
}

// UpdateTerm writes t's name, slug, description and parent.
func (o ops) UpdateTerm(ctx context.Context, t *store.Term) error {
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE terms SET name = $1, slug = $2, description = $3, parent = $4 WHERE id = $5`,
			t.Name, t.Slug, t.Description, t.Parent, t.ID)
		if err != nil {
			return false, o.db.conflict(err, "update term")
		}
		return o.db.affected(res, fmt.Sprintf("term %d", t.ID))
	})
}

// DeleteTerm removes a term, reparents its children and, with reassign,
// gives the posts it leaves without a term of its taxonomy the term
// reassign (whose count is then recomputed).
func (o ops) DeleteTerm(ctx context.Context, id int64, reassign int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if o.db.termSlot != "" {
			// No foreign key removes the term's links as it goes:
			// no write may link a post to it meanwhile (termKeys).
			keys := []int64{id}
			if reassign != 0 {
				keys = append(keys, reassign)
			}
			if err := o.db.keysIn(ctx, q.c, false, termKeys(keys)); err != nil {
				return false, err
			}
		}
		var taxonomy string
		var parent int64
		err := q.queryRow(ctx, `SELECT taxonomy, parent FROM terms WHERE id = $1`, id).Scan(&taxonomy, &parent)
		if errors.Is(err, sql.ErrNoRows) {
			return false, o.db.notFound(fmt.Sprintf("term %d", id))
		}
		if err != nil {
			return false, o.db.fail(fmt.Sprintf("delete term %d", id), err)
		}
		if reassign != 0 && reassign != id {
			if _, err := q.exec(ctx, `INSERT INTO term_relationships (post_id, term_id)
				SELECT tr.post_id, t.id FROM term_relationships tr JOIN terms t ON t.id = $1 AND t.taxonomy = $2
				WHERE tr.term_id = $3 AND NOT EXISTS (
					SELECT 1 FROM term_relationships o JOIN terms ot ON ot.id = o.term_id
					WHERE o.post_id = tr.post_id AND ot.taxonomy = $2 AND o.term_id <> $3)
				ON CONFLICT DO NOTHING`, reassign, taxonomy, id); err != nil {
				return false, o.db.fail(fmt.Sprintf("delete term %d: reassign posts", id), err)
			}
		}
		if _, err := q.exec(ctx, `UPDATE terms SET parent = $1 WHERE parent = $2 AND taxonomy = $3`, parent, id, taxonomy); err != nil {
			return false, o.db.fail(fmt.Sprintf("delete term %d: reparent children", id), err)
		}
		if _, err := q.exec(ctx, `DELETE FROM terms WHERE id = $1`, id); err != nil {
			return false, o.db.fail(fmt.Sprintf("delete term %d", id), err)
		}
		// The term's links go first (here, or by cascade with the term
		// where they have a foreign key), then its kept counts, which
		// the links' removal took down to zero.
		tables := []string{"term_post_counts"}
		if o.db.termSlot != "" {
			tables = []string{"term_relationships", "term_counts", "term_post_counts"}
		}
		for _, table := range tables {
			if _, err := q.exec(ctx, `DELETE FROM `+table+` WHERE term_id = $1`, id); err != nil {
				return false, o.db.fail(fmt.Sprintf("delete term %d", id), err)
			}
		}
		if reassign != 0 && reassign != id {
			if err := o.db.recount(ctx, q, []int64{reassign}); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// SetPostTerms replaces the post's terms in taxonomy with the existing
// terms of that taxonomy among ids, adjusting the counts of the terms it
// adds and removes when the post is published: at once, or where rows are
// locked just before the transaction commits (termCounts).
func (o ops) SetPostTerms(ctx context.Context, postID int64, taxonomy string, ids []int64) error {
	_, err := o.SetPostTermsLinked(ctx, postID, taxonomy, ids)
	return err
}

// SetPostTermsLinked is SetPostTerms that also returns the ids of the
// terms it linked the post to, ascending (store.PostTermsLinker).
func (o ops) SetPostTermsLinked(ctx context.Context, postID int64, taxonomy string, ids []int64) ([]int64, error) {
	if ids == nil {
		ids = []int64{}
	}
	d := o.db.d
	var linkedNow []int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		linkedNow = nil
		if o.db.termSlot != "" {
			// Sent with the next statement, before any link is made.
			if err := o.db.keysIn(ctx, q.c, true, termKeys(ids)); err != nil {
				return false, err
			}
		}
		var published, linked bool
		var err error
		if q.deferCounts() {
			// One statement reads the status, whether the post has terms
			// of the taxonomy, and links it to ids when it has none,
			// returning the terms it linked (a data-modifying WITH: every
			// part sees one snapshot, and the insert adds nothing when
			// the post already has terms of the taxonomy).
			var added []int64
			a := &Args{vals: []any{postID, taxonomy}}
			err = q.queryRow(ctx, `WITH p AS (SELECT status = 'publish' AS published,
					EXISTS (SELECT 1 FROM term_relationships r JOIN terms t ON t.id = r.term_id
						WHERE r.post_id = $1 AND t.taxonomy = $2) AS linked
					FROM posts WHERE id = $1`+o.db.rowLock()+`),
				l AS (INSERT INTO term_relationships (post_id, term_id)
					SELECT $1, t.id FROM terms t, p WHERE NOT p.linked AND t.taxonomy = $2 AND `+d.In(a, "t.id", ids, false)+`
					ON CONFLICT DO NOTHING RETURNING term_id)
				SELECT p.published, p.linked, COALESCE((SELECT array_agg(term_id ORDER BY term_id) FROM l), '{}') FROM p`,
				a.vals...).Scan(&published, &linked, &added)
			if errors.Is(err, sql.ErrNoRows) {
				return false, o.db.notFound(fmt.Sprintf("post %d", postID))
			}
			if err != nil {
				return false, o.db.fail("set post terms", err)
			}
			if !linked {
				if published {
					q.addCounts(added, 1)
				}
				linkedNow = added
				return len(ids) > 0, nil
			}
		} else {
			// The row lock keeps the status (and the post's terms) as
			// read until this transaction ends (lockRows).
			err = q.queryRow(ctx, `SELECT status = 'publish', EXISTS (SELECT 1 FROM term_relationships r
				JOIN terms t ON t.id = r.term_id WHERE r.post_id = $1 AND t.taxonomy = $2)
				FROM posts WHERE id = $1`+o.db.rowLock(), postID, taxonomy).Scan(&published, &linked)
			if errors.Is(err, sql.ErrNoRows) {
				return false, o.db.notFound(fmt.Sprintf("post %d", postID))
			}
			if err != nil {
				return false, o.db.fail("set post terms", err)
			}
			if !linked {
				// A new post, or one without terms of the taxonomy:
				// nothing to unlink or uncount.
				linkedNow, err = o.linkPostTerms(ctx, q, postID, taxonomy, ids, published)
				return len(ids) > 0, err
			}
		}
		var removed []int64
		if published {
			a := &Args{vals: []any{taxonomy, postID}}
			where := `taxonomy = $1 AND id IN (SELECT term_id FROM term_relationships WHERE post_id = $2)
				AND ` + d.In(a, "id", ids, true)
			if q.deferCounts() {
				err = collect(ctx, q, &removed, scanInt64, `SELECT id FROM terms WHERE `+where, a.vals...)
			} else {
				_, err = q.exec(ctx, `UPDATE terms SET count = count - 1 WHERE `+where, a.vals...)
			}
			if err != nil {
				return false, o.db.fail("set post terms", err)
			}
		}
		a := &Args{vals: []any{postID, taxonomy}}
		if _, err := q.exec(ctx, `DELETE FROM term_relationships WHERE post_id = $1
			AND term_id IN (SELECT id FROM terms WHERE taxonomy = $2)
			AND `+d.In(a, "term_id", ids, true), a.vals...); err != nil {
			return false, o.db.fail("set post terms", err)
		}
		if q.deferCounts() {
			q.addCounts(removed, -1)
		}
		linkedNow, err = o.linkPostTerms(ctx, q, postID, taxonomy, ids, published)
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return linkedNow, nil
}

// LinkNewPostTerms links a post its transaction has just inserted to its
// first terms of taxonomy (store.NewPostTermsLinker): SetPostTermsLinked
// without reading the post's status and terms first. Where term counts
// are slotted and counted before the commit (PostgreSQL), the link is one
// statement held for the transaction's next one, usually its commit
// (holdNewPostTerms), and SetPostTermsLinked where it cannot be held.
func (o ops) LinkNewPostTerms(ctx context.Context, postID int64, published bool, taxonomy string, ids []int64, linked *[]int64) error {
	*linked = nil
	if o.db.termSlot != "" || o.db.d.Lock(false) != "" {
		held := false
		err := o.writeTx(ctx, false, func(q querier) (bool, error) {
			var err error
			held, err = o.holdNewPostTerms(ctx, q, postID, published, taxonomy, ids, linked)
			return held && len(ids) > 0, err
		})
		if held || err != nil {
			return err
		}
		got, err := o.SetPostTermsLinked(ctx, postID, taxonomy, ids)
		*linked = got
		return err
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var err error
		*linked, err = o.linkPostTerms(ctx, q, postID, taxonomy, ids, published)
		return len(ids) > 0, err
	})
}

// holdNewPostTerms links a new post to the terms of ids in taxonomy with
// one statement held for the transaction's next one (Prefetcher), and
// reports whether it could: where writers run side by side, term counts
// are slotted (TermCountSlotter) and the transaction can hold a query.
// The statement sets *linked to the ids it linked when it has run; a
// published post's counts follow it (termCounts.held): from *linked when
// it ran before the commit, or, when it goes with the commit, from the
// links the statement made, read by the count statement after it.
func (o ops) holdNewPostTerms(ctx context.Context, q querier, postID int64, published bool, taxonomy string, ids []int64, linked *[]int64) (bool, error) {
	p, ok := q.c.(Prefetcher)
	if !ok || o.db.termSlot == "" || !q.deferCounts() {
		return false, nil
	}
	if len(ids) == 0 {
		return true, nil
	}
	// Sent with the statement, before it links.
	if err := o.db.keysIn(ctx, q.c, true, termKeys(ids)); err != nil {
		return true, err
	}
	a := &Args{vals: []any{postID, taxonomy}}
	q.db.stmts.Add(1)
	done, err := p.Prefetch(Stmt{
		Query: `WITH l AS (INSERT INTO term_relationships (post_id, term_id)
			SELECT $1, id FROM terms WHERE taxonomy = $2 AND ` + o.db.d.In(a, "id", ids, false) + `
			ON CONFLICT DO NOTHING RETURNING term_id)
			SELECT COALESCE(array_agg(term_id ORDER BY term_id), '{}') FROM l`,
		Args: a.vals,
		Wrap: func(err error) error { return o.db.fail("set post terms", err) },
	}, linked)
	if err != nil {
		return true, o.db.fail("set post terms", err)
	}
	if published {
		q.holdCounts(postID, taxonomy, ids, linked, done)
	}
	return true, nil
}

// linkPostTerms links a post to the terms of ids in taxonomy that it is
// not linked to yet, counting them when it is published (at once, or just
// before the commit: termCounts), and returns the ids it linked,
// ascending.
func (o ops) linkPostTerms(ctx context.Context, q querier, postID int64, taxonomy string, ids []int64, published bool) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	d := o.db.d
	var added []int64
	if published {
		a := &Args{vals: []any{taxonomy, postID}}
		where := `taxonomy = $1 AND id NOT IN (SELECT term_id FROM term_relationships WHERE post_id = $2)
			AND ` + d.In(a, "id", ids, false)
		var err error
		if q.deferCounts() {
			err = collect(ctx, q, &added, scanInt64, `SELECT id FROM terms WHERE `+where, a.vals...)
		} else {
			_, err = q.exec(ctx, `UPDATE terms SET count = count + 1 WHERE `+where, a.vals...)
		}
		if err != nil {
			return nil, o.db.fail("set post terms", err)
		}
	}
	a := &Args{vals: []any{postID, taxonomy}}
	var linked []int64
	if err := collect(ctx, q, &linked, scanInt64, `INSERT INTO term_relationships (post_id, term_id)
		SELECT $1, id FROM terms WHERE taxonomy = $2 AND `+d.In(a, "id", ids, false)+`
		ON CONFLICT DO NOTHING RETURNING term_id`, a.vals...); err != nil {
		return nil, o.db.fail("set post terms", err)
	}
	if q.deferCounts() {
		q.addCounts(added, 1)
	}
	slices.Sort(linked)
	return linked, nil
}

// PostTerms loads the terms of many posts in one query, per post in
// ASCII-case-folded name order, then id. The query reads every term of the
// posts and leaves the taxonomy filter and the order to Go: in SQLite an IN
// list over a json_each and an ORDER BY each cost a temporary b-tree, more
// than the few extra rows and the sort of a post's handful of terms.
func (o ops) PostTerms(ctx context.Context, postIDs []int64, taxonomies []string) (map[int64][]*store.Term, error) {
	return o.postTerms(ctx, postIDs, taxonomies, true)
}

// PostTermsUncounted is PostTerms with every Count 0: where counts are
// slotted, the slots are not read.
func (o ops) PostTermsUncounted(ctx context.Context, postIDs []int64, taxonomies []string) (map[int64][]*store.Term, error) {
	return o.postTerms(ctx, postIDs, taxonomies, false)
}

func (o ops) postTerms(ctx context.Context, postIDs []int64, taxonomies []string, counted bool) (map[int64][]*store.Term, error) {
	out := make(map[int64][]*store.Term, len(postIDs))
	if len(postIDs) == 0 {
		return out, nil
	}
	a := &Args{}
	err := o.reader().query(ctx, func(rows Rows) error {
		var pid int64
		var t store.Term
		if err := rows.Scan(&pid, &t.ID, &t.Taxonomy, &t.Name, &t.Slug, &t.Description, &t.Parent, &t.Count); err != nil {
			return err
		}
		if len(taxonomies) == 0 || slices.Contains(taxonomies, t.Taxonomy) {
			out[pid] = append(out[pid], &t)
		}
		return nil
	}, o.db.postTermsQuery(inExpr(o.db.d, a, "r.post_id", postIDs, false), counted), a.vals...)
	if err != nil {
		return nil, o.db.fail("post terms", err)
	}
	for _, ts := range out {
		slices.SortFunc(ts, func(a, b *store.Term) int {
			if c := store.CompareNames(a.Name, b.Name); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return out, nil
}

// postTermsQuery returns PostTerms' query of the posts where selects,
// with the terms' counts when counted (0 otherwise). Where counts are
// slotted, each term's slots are summed once, not once for every post of
// the page in the term (the default category's many rows as many times
// as the page has posts).
func (db *DB) postTermsQuery(where string, counted bool) string {
	switch {
	case !counted:
		return `SELECT r.post_id, t.id, t.taxonomy, t.name, t.slug, t.description, t.parent, 0
			FROM term_relationships r JOIN terms t ON t.id = r.term_id WHERE ` + where
	case db.termSlot == "":
		return `SELECT r.post_id, ` + db.termColsT + ` FROM term_relationships r JOIN terms t ON t.id = r.term_id WHERE ` + where
	}
	return `WITH r AS (SELECT r.post_id, r.term_id FROM term_relationships r WHERE ` + where + `),
		s AS (SELECT tc.term_id, SUM(tc.n) AS n FROM term_counts tc WHERE tc.term_id IN (SELECT term_id FROM r) GROUP BY tc.term_id)
		SELECT r.post_id, t.id, t.taxonomy, t.name, t.slug, t.description, t.parent, t.count + COALESCE(s.n, 0)
		FROM r JOIN terms t ON t.id = r.term_id LEFT JOIN s ON s.term_id = t.id`
}

// RecountTerms recomputes the counts of the given terms, or of every term
// when ids is nil.
func (o ops) RecountTerms(ctx context.Context, ids []int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		return true, o.db.recount(ctx, q, ids)
	})
}

const recountSQL = `UPDATE terms SET count = (SELECT COUNT(*) FROM term_relationships r
	JOIN posts p ON p.id = r.post_id WHERE r.term_id = terms.id AND p.status = 'publish')`

// recount sets the counts of the terms of ids (every term when ids is
// nil) to their published posts. Where counts are slotted, a term's row
// gets what its slots do not already hold: the one statement reads the
// posts and the slots in one snapshot, and every transaction that
// publishes or unpublishes a post in the term later adds to a slot as
// it commits, so the sum stays right with no lock held against them.
func (db *DB) recount(ctx context.Context, q querier, ids []int64) error {
	// Changes collected for the commit would count twice after it.
	if err := db.flushTermCounts(ctx, q); err != nil {
		return err
	}
	query := recountSQL
	if db.termSlot != "" {
		query += ` - ` + termSlots("terms")
	}
	var err error
	if ids == nil {
		_, err = q.exec(ctx, query)
	} else {
		a := &Args{}
		_, err = q.exec(ctx, query+` WHERE `+db.d.In(a, "id", ids, false), a.vals...)
	}
	if err != nil {
		return db.fail("recount terms", err)
	}
	return nil
}

// countPostStatusChange adjusts the counts of a post's terms for its status
// becoming status; it runs in the write transaction before the post row is
// updated, so it sees the old status, and after the post row is locked
// (lockRows), so that no other transaction changes it meanwhile.
func (db *DB) countPostStatusChange(ctx context.Context, q querier, postID int64, status string) error {
	if q.deferCounts() {
		// The post's terms when its status crosses publish either way: +1
		// each when it becomes published, -1 when it stops being.
		var ids []int64
		if err := collect(ctx, q, &ids, scanInt64, `SELECT term_id FROM term_relationships WHERE post_id = $2
			AND EXISTS (SELECT 1 FROM posts WHERE id = $2 AND (status = 'publish') <> ($1 = 'publish'))`,
			status, postID); err != nil {
			return db.fail(fmt.Sprintf("count post %d terms", postID), err)
		}
		if status == "publish" {
			q.addCounts(ids, 1)
		} else {
			q.addCounts(ids, -1)
		}
		return nil
	}
	if _, err := q.exec(ctx, `UPDATE terms SET count = count + d.delta
		FROM (SELECT CASE WHEN $1 = 'publish' THEN 1 ELSE 0 END
			- CASE WHEN status = 'publish' THEN 1 ELSE 0 END AS delta FROM posts WHERE id = $2) AS d
		WHERE d.delta <> 0 AND terms.id IN (SELECT term_id FROM term_relationships WHERE post_id = $2)`,
		status, postID); err != nil {
		return db.fail(fmt.Sprintf("count post %d terms", postID), err)
	}
	return nil
}

// countPostDelete takes a published post out of its terms' counts before
// the post is deleted.
func (db *DB) countPostDelete(ctx context.Context, q querier, postID int64) error {
	if q.deferCounts() {
		var ids []int64
		if err := collect(ctx, q, &ids, scanInt64, `SELECT term_id FROM term_relationships WHERE post_id = $1
			AND EXISTS (SELECT 1 FROM posts WHERE id = $1 AND status = 'publish')`, postID); err != nil {
			return db.fail(fmt.Sprintf("count post %d terms", postID), err)
		}
		q.addCounts(ids, -1)
		return nil
	}
	if _, err := q.exec(ctx, `UPDATE terms SET count = count - 1
		WHERE id IN (SELECT term_id FROM term_relationships WHERE post_id = $1)
		AND EXISTS (SELECT 1 FROM posts WHERE id = $1 AND status = 'publish')`, postID); err != nil {
		return db.fail(fmt.Sprintf("count post %d terms", postID), err)
	}
	return nil
}

// termFilterCond adds the condition of one post-query term filter: the post
// has one of the filter's terms (by id or slug, with their descendants when
// IncludeChildren is set).
func termFilterCond(c *cond, f store.TermFilter, seek bool) {
	if len(f.IDs) == 0 && len(f.Slugs) == 0 {
		c.add(`FALSE`)
		return
	}
	c.add(termPosts(c.d, c.a, f, seek))
}

// termMatch selects the ids of the terms f names (and their descendants
// when f.IncludeChildren).
func termMatch(d Dialect, a *Args, f store.TermFilter) string {
	var sel []string
	if len(f.IDs) > 0 {
		sel = append(sel, d.In(a, "id", f.IDs, false))
	}
	if len(f.Slugs) > 0 {
		sel = append(sel, d.In(a, "slug", f.Slugs, false))
	}
	tax := a.Add(f.Taxonomy)
	match := `SELECT id FROM terms WHERE taxonomy = ` + tax + ` AND (` + strings.Join(sel, " OR ") + `)`
	if f.IncludeChildren {
		match = `WITH RECURSIVE sel(id) AS (` + match + `
			UNION SELECT t.id FROM terms t JOIN sel ON t.parent = sel.id WHERE t.taxonomy = ` + tax + `) SELECT id FROM sel`
	}
	return match
}

// termPosts is the condition that a post has one of the terms f selects.
// With seek the database looks the posts up from the terms' relationships
// (cheap when the terms have few posts); without, it checks each post it
// visits (cheap when it visits few: a page of a common term walked in the
// page's order).
func termPosts(d Dialect, a *Args, f store.TermFilter, seek bool) string {
	match := termMatch(d, a, f)
	if seek {
		return `posts.id IN (SELECT tr.post_id FROM term_relationships tr WHERE tr.term_id IN (` + match + `))`
	}
	return `EXISTS (SELECT 1 FROM term_relationships tr WHERE tr.post_id = posts.id AND tr.term_id IN (` + match + `))`
}
