package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

// termCols lists the terms columns in scanTerm's order.
const termCols = `id, taxonomy, name, slug, description, parent, count`

func scanTerm(s pgx.Row) (*store.Term, error) {
	var t store.Term
	if err := s.Scan(&t.ID, &t.Taxonomy, &t.Name, &t.Slug, &t.Description, &t.Parent, &t.Count); err != nil {
		return nil, err
	}
	return &t, nil
}

// prefixedTermCols returns termCols with every column qualified by alias.
func prefixedTermCols(alias string) string {
	cols := strings.Split(termCols, ", ")
	for i, c := range cols {
		cols[i] = alias + "." + c
	}
	return strings.Join(cols, ", ")
}

// GetTerm loads one term; store.ErrNotFound when there is none.
func (o ops) GetTerm(ctx context.Context, id int64) (*store.Term, error) {
	t, err := scanTerm(o.reader().queryRow(ctx, `SELECT `+termCols+` FROM terms WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: term %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fail(fmt.Sprintf("get term %d", id), err)
	}
	return t, nil
}

// collectTerms runs a query of termCols rows.
func (o ops) collectTerms(ctx context.Context, query string, args ...any) ([]*store.Term, error) {
	var out []*store.Term
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		t, err := scanTerm(rows)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	}, query, args...)
	return out, err
}

// GetTerms loads the terms with the given ids in one query.
func (o ops) GetTerms(ctx context.Context, ids []int64) (map[int64]*store.Term, error) {
	out := make(map[int64]*store.Term, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	terms, err := o.collectTerms(ctx, `SELECT `+termCols+` FROM terms WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fail("get terms", err)
	}
	for _, t := range terms {
		out[t.ID] = t
	}
	return out, nil
}

// termWhere turns q's filters into a WHERE clause.
func termWhere(q *store.TermQuery, a *args) *cond {
	c := newCond(a)
	c.add(`taxonomy = ` + a.add(q.Taxonomy))
	if s := strings.TrimSpace(q.Search); s != "" {
		c.add(likeAny(s, []string{"name", "slug"}, a))
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
		c.add(`folio_nocase(name) = ANY(` + a.add(asciiLowerAll(q.Names)) + `)`)
	}
	if q.ParentSet {
		c.add(`parent = ` + a.add(q.Parent))
	}
	if q.HideEmpty {
		if q.Hierarchical {
			// An empty term stays when one of its descendants is used,
			// as the original's hierarchical get_terms does.
			c.add(`(count > 0 OR id IN (WITH RECURSIVE anc(id) AS (
				SELECT parent FROM terms WHERE taxonomy = ` + a.add(q.Taxonomy) + ` AND count > 0 AND parent <> 0
				UNION SELECT t.parent FROM terms t JOIN anc ON t.id = anc.id WHERE t.parent <> 0)
				SELECT id FROM anc))`)
		} else {
			c.add(`count > 0`)
		}
	}
	return c
}

// termOrder returns the ORDER BY clause for q; ties break on id.
func termOrder(q *store.TermQuery, a *args) string {
	dir := orderDir(q.Order, "ASC")
	switch q.OrderBy {
	case "id", "term_group":
		// Every term is in group 0, so term_group leaves the id order.
		return " ORDER BY id " + dir
	case "include":
		if len(q.Include) > 0 {
			return ` ORDER BY array_position(` + a.add(q.Include) + `::bigint[], terms.id), id ASC`
		}
	case "slug":
		return ` ORDER BY slug COLLATE "C" ` + dir + ", id " + dir
	case "description":
		return ` ORDER BY description COLLATE "C" ` + dir + ", id " + dir
	case "count":
		return " ORDER BY count " + dir + ", id " + dir
	}
	return ` ORDER BY folio_nocase(name) COLLATE "C" ` + dir + ", id " + dir
}

// ListTerms returns the terms q selects, in q's order, in one query.
func (o ops) ListTerms(ctx context.Context, q store.TermQuery) ([]*store.Term, error) {
	a := &args{}
	c := termWhere(&q, a)
	query := `SELECT ` + termCols + ` FROM terms` + c.where() + termOrder(&q, a) + limitClause(q.Limit, q.Offset, a)
	out, err := o.collectTerms(ctx, query, a.vals...)
	if err != nil {
		return nil, fail("list terms", err)
	}
	return out, nil
}

// CountTerms counts the terms q selects, ignoring its order and page.
func (o ops) CountTerms(ctx context.Context, q store.TermQuery) (int64, error) {
	a := &args{}
	c := termWhere(&q, a)
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM terms`+c.where(), a.vals...).Scan(&n); err != nil {
		return 0, fail("count terms", err)
	}
	return n, nil
}

// InsertTerm stores t and sets t.ID. The count starts at 0: a new term has
// no posts.
func (o ops) InsertTerm(ctx context.Context, t *store.Term) error {
	if t.ID != 0 {
		return fmt.Errorf("postgres: insert term: id is %d, want 0", t.ID)
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		var id int64
		err := q.queryRow(ctx, `WITH n AS `+nextID("terms")+`
			INSERT INTO terms (id, taxonomy, name, slug, description, parent, count)
			VALUES ((SELECT last FROM n), $1, $2, $3, $4, $5, 0) RETURNING id`,
			t.Taxonomy, t.Name, t.Slug, t.Description, t.Parent).Scan(&id)
		if err != nil {
			return false, conflict(err, "insert term")
		}
		t.ID, t.Count = id, 0
		return true, nil
	})
}

// UpdateTerm writes t's name, slug, description and parent.
func (o ops) UpdateTerm(ctx context.Context, t *store.Term) error {
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `UPDATE terms SET name = $1, slug = $2, description = $3, parent = $4 WHERE id = $5`,
			t.Name, t.Slug, t.Description, t.Parent, t.ID)
		if err != nil {
			return false, conflict(err, "update term")
		}
		return affected(tag, fmt.Sprintf("term %d", t.ID))
	})
}

// DeleteTerm removes a term, reparents its children and, with reassign,
// gives the posts it leaves without a term of its taxonomy the term
// reassign (whose count is then recomputed).
func (o ops) DeleteTerm(ctx context.Context, id int64, reassign int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var taxonomy string
		var parent int64
		err := q.queryRow(ctx, `SELECT taxonomy, parent FROM terms WHERE id = $1`, id).Scan(&taxonomy, &parent)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, fmt.Errorf("postgres: term %d: %w", id, store.ErrNotFound)
		}
		if err != nil {
			return false, fail(fmt.Sprintf("delete term %d", id), err)
		}
		if reassign != 0 && reassign != id {
			if _, err := q.exec(ctx, `INSERT INTO term_relationships (post_id, term_id)
				SELECT tr.post_id, t.id FROM term_relationships tr JOIN terms t ON t.id = $1 AND t.taxonomy = $2
				WHERE tr.term_id = $3 AND NOT EXISTS (
					SELECT 1 FROM term_relationships o JOIN terms ot ON ot.id = o.term_id
					WHERE o.post_id = tr.post_id AND ot.taxonomy = $2 AND o.term_id <> $3)
				ON CONFLICT DO NOTHING`, reassign, taxonomy, id); err != nil {
				return false, fail(fmt.Sprintf("delete term %d: reassign posts", id), err)
			}
		}
		if _, err := q.exec(ctx, `UPDATE terms SET parent = $1 WHERE parent = $2 AND taxonomy = $3`, parent, id, taxonomy); err != nil {
			return false, fail(fmt.Sprintf("delete term %d: reparent children", id), err)
		}
		if _, err := q.exec(ctx, `DELETE FROM terms WHERE id = $1`, id); err != nil {
			return false, fail(fmt.Sprintf("delete term %d", id), err)
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
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		var published bool
		err := q.queryRow(ctx, `SELECT status = 'publish' FROM posts WHERE id = $1`, postID).Scan(&published)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, fmt.Errorf("postgres: post %d: %w", postID, store.ErrNotFound)
		}
		if err != nil {
			return false, fail("set post terms", err)
		}
		if published {
			if _, err := q.exec(ctx, `UPDATE terms SET count = count - 1
				WHERE taxonomy = $1 AND id IN (SELECT term_id FROM term_relationships WHERE post_id = $2)
				AND id <> ALL($3::bigint[])`, taxonomy, postID, ids); err != nil {
				return false, fail("set post terms", err)
			}
		}
		if _, err := q.exec(ctx, `DELETE FROM term_relationships WHERE post_id = $1
			AND term_id IN (SELECT id FROM terms WHERE taxonomy = $2)
			AND term_id <> ALL($3::bigint[])`, postID, taxonomy, ids); err != nil {
			return false, fail("set post terms", err)
		}
		if published {
			if _, err := q.exec(ctx, `UPDATE terms SET count = count + 1
				WHERE taxonomy = $1 AND id = ANY($2::bigint[])
				AND id NOT IN (SELECT term_id FROM term_relationships WHERE post_id = $3)`, taxonomy, ids, postID); err != nil {
				return false, fail("set post terms", err)
			}
		}
		if _, err := q.exec(ctx, `INSERT INTO term_relationships (post_id, term_id)
			SELECT $1, id FROM terms WHERE taxonomy = $2 AND id = ANY($3::bigint[])
			ON CONFLICT DO NOTHING`, postID, taxonomy, ids); err != nil {
			return false, fail("set post terms", err)
		}
		return true, nil
	})
}

// PostTerms loads the terms of many posts in one query.
func (o ops) PostTerms(ctx context.Context, postIDs []int64, taxonomies []string) (map[int64][]*store.Term, error) {
	out := make(map[int64][]*store.Term, len(postIDs))
	if len(postIDs) == 0 {
		return out, nil
	}
	a := &args{}
	c := newCond(a)
	inList(c, "r.post_id", postIDs, false)
	if len(taxonomies) > 0 {
		inList(c, "t.taxonomy", taxonomies, false)
	}
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var pid int64
		var t store.Term
		if err := rows.Scan(&pid, &t.ID, &t.Taxonomy, &t.Name, &t.Slug, &t.Description, &t.Parent, &t.Count); err != nil {
			return err
		}
		out[pid] = append(out[pid], &t)
		return nil
	}, `SELECT r.post_id, `+prefixedTermCols("t")+`
		FROM term_relationships r JOIN terms t ON t.id = r.term_id`+c.where()+`
		ORDER BY folio_nocase(t.name) COLLATE "C", t.id`, a.vals...)
	if err != nil {
		return nil, fail("post terms", err)
	}
	return out, nil
}

// RecountTerms recomputes the counts of the given terms, or of every term
// when ids is nil.
func (o ops) RecountTerms(ctx context.Context, ids []int64) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
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
		_, err = q.exec(ctx, recountSQL+` WHERE id = ANY($1::bigint[])`, ids)
	}
	if err != nil {
		return fail("recount terms", err)
	}
	return nil
}

// countPostStatusChange adjusts the counts of a post's terms for its status
// becoming status; it runs in the write transaction before the post row is
// updated, so it sees the old status.
func countPostStatusChange(ctx context.Context, q querier, postID int64, status string) error {
	if _, err := q.exec(ctx, `UPDATE terms SET count = count + d.delta
		FROM (SELECT ($1 = 'publish')::int - (status = 'publish')::int AS delta FROM posts WHERE id = $2) AS d
		WHERE d.delta <> 0 AND terms.id IN (SELECT term_id FROM term_relationships WHERE post_id = $2)`,
		status, postID); err != nil {
		return fail(fmt.Sprintf("count post %d terms", postID), err)
	}
	return nil
}

// countPostDelete takes a published post out of its terms' counts before
// the post is deleted.
func countPostDelete(ctx context.Context, q querier, postID int64) error {
	if _, err := q.exec(ctx, `UPDATE terms SET count = count - 1
		WHERE id IN (SELECT term_id FROM term_relationships WHERE post_id = $1)
		AND EXISTS (SELECT 1 FROM posts WHERE id = $1 AND status = 'publish')`, postID); err != nil {
		return fail(fmt.Sprintf("count post %d terms", postID), err)
	}
	return nil
}

// termFilterCond adds the condition of one post-query term filter: the post
// has one of the filter's terms (by id or slug, with their descendants when
// IncludeChildren is set).
func termFilterCond(c *cond, f store.TermFilter) {
	if len(f.IDs) == 0 && len(f.Slugs) == 0 {
		c.add(`FALSE`)
		return
	}
	a := c.a
	var sel []string
	if len(f.IDs) > 0 {
		sel = append(sel, `id = ANY(`+a.add(f.IDs)+`::bigint[])`)
	}
	if len(f.Slugs) > 0 {
		sel = append(sel, `slug = ANY(`+a.add(f.Slugs)+`::text[])`)
	}
	tax := a.add(f.Taxonomy)
	match := `SELECT id FROM terms WHERE taxonomy = ` + tax + ` AND (` + strings.Join(sel, " OR ") + `)`
	if f.IncludeChildren {
		match = `WITH RECURSIVE sel(id) AS (` + match + `
			UNION SELECT t.id FROM terms t JOIN sel ON t.parent = sel.id WHERE t.taxonomy = ` + tax + `) SELECT id FROM sel`
	}
	c.add(`EXISTS (SELECT 1 FROM term_relationships tr WHERE tr.post_id = posts.id AND tr.term_id IN (` + match + `))`)
}
