package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

// GetMedia loads the file records of many attachments in one query.
func (o ops) GetMedia(ctx context.Context, ids []int64) (map[int64]*store.Media, error) {
	out := make(map[int64]*store.Media, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var m store.Media
		if err := rows.Scan(&m.PostID, &m.File, &m.AltText, &m.Details); err != nil {
			return err
		}
		out[m.PostID] = &m
		return nil
	}, `SELECT post_id, file, alt_text, details FROM media WHERE post_id = ANY($1)`, ids)
	if err != nil {
		return nil, fail("get media", err)
	}
	return out, nil
}

// PutMedia inserts or replaces the file record m.
func (o ops) PutMedia(ctx context.Context, m *store.Media) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		_, err := q.exec(ctx, `INSERT INTO media (post_id, file, alt_text, details) VALUES ($1, $2, $3, $4)
			ON CONFLICT (post_id) DO UPDATE SET file = excluded.file, alt_text = excluded.alt_text,
			details = excluded.details`, m.PostID, m.File, m.AltText, m.Details)
		if err != nil {
			return false, fail(fmt.Sprintf("put media %d", m.PostID), err)
		}
		return true, nil
	})
}

// ReserveMediaPaths records every path with owner 0 and the time of the
// reservation, all or none.
func (o ops) ReserveMediaPaths(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	// One statement under a savepoint, so that a conflict leaves nothing
	// behind and an outer transaction usable.
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		_, err := q.exec(ctx, `INSERT INTO media_files (path, post_id, reserved_at) SELECT p, 0, $2 FROM unnest($1::text[]) AS p`,
			paths, pgTime(time.Now().UTC()))
		if err != nil {
			return false, conflict(err, "reserve media paths")
		}
		return true, nil
	})
}

// AttachMediaPaths makes postID the owner of paths.
func (o ops) AttachMediaPaths(ctx context.Context, postID int64, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `UPDATE media_files SET post_id = $1 WHERE path = ANY($2::text[])`, postID, paths); err != nil {
			return false, fail("attach media paths", err)
		}
		return true, nil
	})
}

// ReleaseMediaPaths forgets paths.
func (o ops) ReleaseMediaPaths(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `DELETE FROM media_files WHERE path = ANY($1::text[])`, paths); err != nil {
			return false, fail("release media paths", err)
		}
		return true, nil
	})
}

// MediaPaths returns every path postID owns, sorted.
func (o ops) MediaPaths(ctx context.Context, postID int64) ([]string, error) {
	var out []string
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	}, `SELECT path FROM media_files WHERE post_id = $1`, postID)
	if err != nil {
		return nil, fail(fmt.Sprintf("media paths of %d", postID), err)
	}
	sort.Strings(out)
	return out, nil
}

// MediaPathOwner returns the owner of path.
func (o ops) MediaPathOwner(ctx context.Context, path string) (int64, error) {
	var id int64
	err := o.reader().queryRow(ctx, `SELECT post_id FROM media_files WHERE path = $1`, path).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("postgres: media path %q: %w", path, store.ErrNotFound)
	}
	if err != nil {
		return 0, fail(fmt.Sprintf("media path %q", path), err)
	}
	return id, nil
}

// StaleMediaReservations returns up to limit paths reserved before cutoff
// and still unowned.
func (o ops) StaleMediaReservations(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	var out []string
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	}, `SELECT path FROM media_files WHERE post_id = 0 AND reserved_at < $1 ORDER BY path LIMIT $2`, pgTime(cutoff.UTC()), limit)
	if err != nil {
		return nil, fail("stale media reservations", err)
	}
	return out, nil
}

// ReleaseMediaReservations forgets those of paths still unowned.
func (o ops) ReleaseMediaReservations(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `DELETE FROM media_files WHERE post_id = 0 AND path = ANY($1::text[])`, paths); err != nil {
			return false, fail("release media reservations", err)
		}
		return true, nil
	})
}

// parentVisibilityCond adds q.ParentVisibility: a row of status inherit
// passes when it has no parent, its parent is gone, or the parent passes
// the visibility of its type.
func parentVisibilityCond(c *cond, q *store.PostQuery) {
	if q.ParentVisibility == nil {
		return
	}
	a := c.a
	types := make([]string, 0, len(q.ParentVisibility))
	for t := range q.ParentVisibility {
		types = append(types, t)
	}
	sort.Strings(types)
	var alts []string
	for _, t := range types {
		v := q.ParentVisibility[t]
		if v == nil {
			continue
		}
		var vis []string
		if len(v.Public) > 0 {
			vis = append(vis, inExpr(a, "pp.status", v.Public, false))
		}
		if v.Owner != 0 && len(v.OwnStatuses) > 0 {
			vis = append(vis, `(pp.author = `+a.add(v.Owner)+` AND `+inExpr(a, "pp.status", v.OwnStatuses, false)+`)`)
		}
		if len(v.OthersStatuses) > 0 {
			vis = append(vis, inExpr(a, "pp.status", v.OthersStatuses, false))
		}
		if len(vis) == 0 {
			continue
		}
		alts = append(alts, `(pp.type = `+a.add(t)+` AND (`+strings.Join(vis, " OR ")+`))`)
	}
	visible := `FALSE`
	if len(alts) > 0 {
		visible = strings.Join(alts, " OR ")
	}
	c.add(`(posts.status <> 'inherit' OR posts.parent = 0
		OR NOT EXISTS (SELECT 1 FROM posts pp WHERE pp.id = posts.parent)
		OR EXISTS (SELECT 1 FROM posts pp WHERE pp.id = posts.parent AND (` + visible + `)))`)
}
