package sqlite

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

// termCols lists the terms columns in scanTerm's order.
const termCols = `id, taxonomy, name, slug, description, parent, count`

func scanTerm(s scanner) (*store.Term, error) {
	var t store.Term
	if err := s.Scan(&t.ID, &t.Taxonomy, &t.Name, &t.Slug, &t.Description, &t.Parent, &t.Count); err != nil {
		return nil, err
	}
	return &t, nil
}

// prefixed returns termCols with every column qualified by alias.
// termColsT is prefixedTermCols("t"), built once.
var termColsT = prefixedTermCols("t")

func prefixedTermCols(alias string) string {
	cols := strings.Split(termCols, ", ")
	for i, c := range cols {
		cols[i] = alias + "." + c
	}
	return strings.Join(cols, ", ")
}

// GetTerm loads one term; store.ErrNotFound when there is none.
func (o ops) GetTerm(ctx context.Context, id int64) (*store.Term, error) {
	t, err := scanTerm(o.reader().queryRow(ctx, `SELECT `+termCols+` FROM terms WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: term %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get term %d: %w", id, err)
	}
	return t, nil
}

// GetTerms loads the terms with the given ids in one query.
func (o ops) GetTerms(ctx context.Context, ids []int64) (map[int64]*store.Term, error) {
	out := make(map[int64]*store.Term, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := o.reader().query(ctx,
		`SELECT `+termCols+` FROM terms WHERE id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: get terms: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTerm(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: get terms: %w", err)
		}
		out[t.ID] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: get terms: %w", err)
	}
	return out, nil
}

// termWhere turns q's filters into a WHERE clause.
func termWhere(q *store.TermQuery) *cond {
	c := &cond{}
	c.add(`taxonomy = ?`, q.Taxonomy)
	if s := strings.TrimSpace(q.Search); s != "" {
		var args []any
		expr := likeAny(s, []string{"name", "slug"}, &args)
		c.add(expr, args...)
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
		c.add(`name COLLATE NOCASE IN (SELECT value FROM json_each(?))`, jsonList(q.Names))
	}
	if q.ParentSet {
		c.add(`parent = ?`, q.Parent)
	}
	if q.HideEmpty {
		if q.Hierarchical {
			// An empty term stays when one of its descendants is used,
			// as the original's hierarchical get_terms does.
			c.add(`(count > 0 OR id IN (WITH RECURSIVE anc(id) AS (
				SELECT parent FROM terms WHERE taxonomy = ? AND count > 0 AND parent <> 0
				UNION SELECT t.parent FROM terms t JOIN anc ON t.id = anc.id WHERE t.parent <> 0)
				SELECT id FROM anc))`, q.Taxonomy)
		} else {
			c.add(`count > 0`)
		}
	}
	return c
}

// termOrder returns the ORDER BY clause for q; ties break on id.
func termOrder(q *store.TermQuery, args *[]any) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id", "term_group":
		// Every term is in group 0, so term_group leaves the id order.
		return " ORDER BY id " + dir
	case "include":
		if len(q.Include) > 0 {
			*args = append(*args, jsonList(q.Include))
			return ` ORDER BY (SELECT MIN(key) FROM json_each(?) WHERE value = terms.id), id ASC`
		}
	case "slug":
		return " ORDER BY slug " + dir + ", id " + dir
	case "description":
		return " ORDER BY description " + dir + ", id " + dir
	case "count":
		return " ORDER BY count " + dir + ", id " + dir
	}
	return " ORDER BY name COLLATE NOCASE " + dir + ", id " + dir
}

// ListTerms returns the terms q selects, in q's order, in one query.
func (o ops) ListTerms(ctx context.Context, q store.TermQuery) ([]*store.Term, error) {
	c := termWhere(&q)
	args := c.args
	query := `SELECT ` + termCols + ` FROM terms` + c.where() + termOrder(&q, &args) + limitClause(q.Limit, q.Offset, &args)
	rows, err := o.reader().query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list terms: %w", err)
	}
	defer rows.Close()
	var out []*store.Term
	for rows.Next() {
		t, err := scanTerm(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list terms: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list terms: %w", err)
	}
	return out, nil
}

// CountTerms counts the terms q selects, ignoring its order and page.
func (o ops) CountTerms(ctx context.Context, q store.TermQuery) (int64, error) {
	c := termWhere(&q)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM terms`+c.where(), c.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count terms: %w", err)
	}
	return n, nil
}

// InsertTerm stores t and sets t.ID. The count starts at 0: a new term has
// no posts.
func (o ops) InsertTerm(ctx context.Context, t *store.Term) error {
	if t.ID != 0 {
		return fmt.Errorf("sqlite: insert term: id is %d, want 0", t.ID)
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `INSERT INTO terms (taxonomy, name, slug, description, parent, count)
			VALUES (?, ?, ?, ?, ?, 0)`, t.Taxonomy, t.Name, t.Slug, t.Description, t.Parent)
		if err != nil {
			return false, conflict(err, "insert term")
		}
		id, err := res.LastInsertId()
		if err != nil {
			return false, fmt.Errorf("sqlite: insert term: %w", err)
		}
		t.ID, t.Count = id, 0
		return true, nil
	})
}

// UpdateTerm writes t's name, slug, description and parent.
func (o ops) UpdateTerm(ctx context.Context, t *store.Term) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE terms SET name = ?, slug = ?, description = ?, parent = ? WHERE id = ?`,
			t.Name, t.Slug, t.Description, t.Parent, t.ID)
		if err != nil {
			return false, conflict(err, "update term")
		}
		return affected(res, fmt.Sprintf("term %d", t.ID))
	})
}

// DeleteTerm removes a term, reparents its children and, with reassign,
// gives the posts it leaves without a term of its taxonomy the term
// reassign (whose count is then recomputed).
func (o ops) DeleteTerm(ctx context.Context, id int64, reassign int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		var taxonomy string
		var parent int64
		err := q.queryRow(ctx, `SELECT taxonomy, parent FROM terms WHERE id = ?`, id).Scan(&taxonomy, &parent)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("sqlite: term %d: %w", id, store.ErrNotFound)
		}
		if err != nil {
			return false, fmt.Errorf("sqlite: delete term %d: %w", id, err)
		}
		if reassign != 0 && reassign != id {
			if _, err := q.exec(ctx, `INSERT OR IGNORE INTO term_relationships (post_id, term_id)
				SELECT tr.post_id, t.id FROM term_relationships tr JOIN terms t ON t.id = ? AND t.taxonomy = ?
				WHERE tr.term_id = ? AND NOT EXISTS (
					SELECT 1 FROM term_relationships o JOIN terms ot ON ot.id = o.term_id
					WHERE o.post_id = tr.post_id AND ot.taxonomy = ? AND o.term_id <> ?)`,
				reassign, taxonomy, id, taxonomy, id); err != nil {
				return false, fmt.Errorf("sqlite: delete term %d: reassign posts: %w", id, err)
			}
		}
		if _, err := q.exec(ctx, `UPDATE terms SET parent = ? WHERE parent = ? AND taxonomy = ?`, parent, id, taxonomy); err != nil {
			return false, fmt.Errorf("sqlite: delete term %d: reparent children: %w", id, err)
		}
		if _, err := q.exec(ctx, `DELETE FROM terms WHERE id = ?`, id); err != nil {
			return false, fmt.Errorf("sqlite: delete term %d: %w", id, err)
		}
		if reassign != 0 && reassign != id {
			if err := recount(ctx, q, []int64{reassign}); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// SetPostTerms replaces the post's terms in taxonomy with the existing
// terms of that taxonomy among ids, adjusting the counts of the terms it
// adds and removes when the post is published.
func (o ops) SetPostTerms(ctx context.Context, postID int64, taxonomy string, ids []int64) error {
	if ids == nil {
		ids = []int64{}
	}
	list := jsonList(ids)
	return o.writeTx(ctx, func(q querier) (bool, error) {
		var published bool
		err := q.queryRow(ctx, `SELECT status = 'publish' FROM posts WHERE id = ?`, postID).Scan(&published)
		if errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("sqlite: post %d: %w", postID, store.ErrNotFound)
		}
		if err != nil {
			return false, fmt.Errorf("sqlite: set post terms: %w", err)
		}
		if published {
			if _, err := q.exec(ctx, `UPDATE terms SET count = count - 1
				WHERE taxonomy = ? AND id IN (SELECT term_id FROM term_relationships WHERE post_id = ?)
				AND id NOT IN (SELECT value FROM json_each(?))`, taxonomy, postID, list); err != nil {
				return false, fmt.Errorf("sqlite: set post terms: %w", err)
			}
		}
		if _, err := q.exec(ctx, `DELETE FROM term_relationships WHERE post_id = ?
			AND term_id IN (SELECT id FROM terms WHERE taxonomy = ?)
			AND term_id NOT IN (SELECT value FROM json_each(?))`, postID, taxonomy, list); err != nil {
			return false, fmt.Errorf("sqlite: set post terms: %w", err)
		}
		if published {
			if _, err := q.exec(ctx, `UPDATE terms SET count = count + 1
				WHERE taxonomy = ? AND id IN (SELECT value FROM json_each(?))
				AND id NOT IN (SELECT term_id FROM term_relationships WHERE post_id = ?)`, taxonomy, list, postID); err != nil {
				return false, fmt.Errorf("sqlite: set post terms: %w", err)
			}
		}
		if _, err := q.exec(ctx, `INSERT OR IGNORE INTO term_relationships (post_id, term_id)
			SELECT ?, id FROM terms WHERE taxonomy = ? AND id IN (SELECT value FROM json_each(?))`,
			postID, taxonomy, list); err != nil {
			return false, fmt.Errorf("sqlite: set post terms: %w", err)
		}
		return true, nil
	})
}

// PostTerms loads the terms of many posts in one query, per post in
// NOCASE name order, then id. The query reads every term of the posts and
// leaves the taxonomy filter and the order to Go: an IN list over a
// json_each and an ORDER BY each cost SQLite a temporary b-tree, more than
// the few extra rows and the sort of a post's handful of terms.
func (o ops) PostTerms(ctx context.Context, postIDs []int64, taxonomies []string) (map[int64][]*store.Term, error) {
	out := make(map[int64][]*store.Term, len(postIDs))
	if len(postIDs) == 0 {
		return out, nil
	}
	c := &cond{}
	inList(c, "r.post_id", postIDs, false)
	rows, err := o.reader().query(ctx, `SELECT r.post_id, `+termColsT+`
		FROM term_relationships r JOIN terms t ON t.id = r.term_id`+c.where(), c.args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: post terms: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid int64
		var t store.Term
		if err := rows.Scan(&pid, &t.ID, &t.Taxonomy, &t.Name, &t.Slug, &t.Description, &t.Parent, &t.Count); err != nil {
			return nil, fmt.Errorf("sqlite: post terms: %w", err)
		}
		if len(taxonomies) > 0 && !slices.Contains(taxonomies, t.Taxonomy) {
			continue
		}
		out[pid] = append(out[pid], &t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: post terms: %w", err)
	}
	for _, ts := range out {
		slices.SortFunc(ts, func(a, b *store.Term) int {
			if c := nocaseCompare(a.Name, b.Name); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return out, nil
}

// nocaseCompare orders two strings as SQLite's NOCASE collation does:
// byte by byte with the ASCII capitals folded to lower case, a prefix
// before the longer string.
func nocaseCompare(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

// RecountTerms recomputes the counts of the given terms, or of every term
// when ids is nil.
func (o ops) RecountTerms(ctx context.Context, ids []int64) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		return true, recount(ctx, q, ids)
	})
}

const recountSQL = `UPDATE terms SET count = (SELECT COUNT(*) FROM term_relationships r
	JOIN posts p ON p.id = r.post_id WHERE r.term_id = terms.id AND p.status = 'publish')`

func recount(ctx context.Context, q querier, ids []int64) error {
	var err error
	if ids == nil {
		_, err = q.exec(ctx, recountSQL)
	} else {
		_, err = q.exec(ctx, recountSQL+` WHERE id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	}
	if err != nil {
		return fmt.Errorf("sqlite: recount terms: %w", err)
	}
	return nil
}

// countPostStatusChange adjusts the counts of a post's terms for its status
// becoming status; it runs in the write transaction before the post row is
// updated, so it sees the old status.
func countPostStatusChange(ctx context.Context, q querier, postID int64, status string) error {
	if _, err := q.exec(ctx, `UPDATE terms SET count = count + d.delta
		FROM (SELECT (? = 'publish') - (status = 'publish') AS delta FROM posts WHERE id = ?) AS d
		WHERE d.delta <> 0 AND terms.id IN (SELECT term_id FROM term_relationships WHERE post_id = ?)`,
		status, postID, postID); err != nil {
		return fmt.Errorf("sqlite: count post %d terms: %w", postID, err)
	}
	return nil
}

// countPostDelete takes a published post out of its terms' counts before
// the post is deleted.
func countPostDelete(ctx context.Context, q querier, postID int64) error {
	if _, err := q.exec(ctx, `UPDATE terms SET count = count - 1
		WHERE id IN (SELECT term_id FROM term_relationships WHERE post_id = ?)
		AND EXISTS (SELECT 1 FROM posts WHERE id = ? AND status = 'publish')`, postID, postID); err != nil {
		return fmt.Errorf("sqlite: count post %d terms: %w", postID, err)
	}
	return nil
}

// termFilterCond adds the condition of one post-query term filter: the post
// has one of the filter's terms (by id or slug, with their descendants when
// IncludeChildren is set).
func termFilterCond(c *cond, f store.TermFilter) {
	if len(f.IDs) == 0 && len(f.Slugs) == 0 {
		c.add(`0`)
		return
	}
	var sel []string
	var args []any
	if len(f.IDs) > 0 {
		sel = append(sel, `id IN (SELECT value FROM json_each(?))`)
		args = append(args, jsonList(f.IDs))
	}
	if len(f.Slugs) > 0 {
		sel = append(sel, `slug IN (SELECT value FROM json_each(?))`)
		args = append(args, jsonList(f.Slugs))
	}
	match := `SELECT id FROM terms WHERE taxonomy = ? AND (` + strings.Join(sel, " OR ") + `)`
	all := append([]any{f.Taxonomy}, args...)
	if f.IncludeChildren {
		match = `WITH RECURSIVE sel(id) AS (` + match + `
			UNION SELECT t.id FROM terms t JOIN sel ON t.parent = sel.id WHERE t.taxonomy = ?) SELECT id FROM sel`
		all = append(all, f.Taxonomy)
	}
	c.add(`EXISTS (SELECT 1 FROM term_relationships tr WHERE tr.post_id = posts.id AND tr.term_id IN (`+match+`))`, all...)
}
