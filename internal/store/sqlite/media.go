package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// GetMedia loads the file records of many attachments in one query.
func (o ops) GetMedia(ctx context.Context, ids []int64) (map[int64]*store.Media, error) {
	out := make(map[int64]*store.Media, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := o.reader().query(ctx, `SELECT post_id, file, alt_text, details FROM media
		WHERE post_id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: get media: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m store.Media
		if err := rows.Scan(&m.PostID, &m.File, &m.AltText, &m.Details); err != nil {
			return nil, fmt.Errorf("sqlite: get media: %w", err)
		}
		out[m.PostID] = &m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: get media: %w", err)
	}
	return out, nil
}

// PutMedia inserts or replaces the file record m.
func (o ops) PutMedia(ctx context.Context, m *store.Media) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		_, err := q.exec(ctx, `INSERT INTO media (post_id, file, alt_text, details) VALUES (?, ?, ?, ?)
			ON CONFLICT (post_id) DO UPDATE SET file = excluded.file, alt_text = excluded.alt_text,
			details = excluded.details`, m.PostID, m.File, m.AltText, m.Details)
		if err != nil {
			return false, fmt.Errorf("sqlite: put media %d: %w", m.PostID, err)
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
	return o.writeTx(ctx, func(q querier) (bool, error) {
		// One statement, so that a conflict leaves nothing behind even
		// inside an outer transaction.
		_, err := q.exec(ctx, `INSERT INTO media_files (path, post_id, reserved_at) SELECT value, 0, ? FROM json_each(?)`,
			fmtTime(time.Now().UTC()), jsonList(paths))
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
	return o.writeTx(ctx, func(q querier) (bool, error) {
		_, err := q.exec(ctx, `UPDATE media_files SET post_id = ? WHERE path IN (SELECT value FROM json_each(?))`, postID, jsonList(paths))
		if err != nil {
			return false, fmt.Errorf("sqlite: attach media paths: %w", err)
		}
		return true, nil
	})
}

// ReleaseMediaPaths forgets paths.
func (o ops) ReleaseMediaPaths(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		_, err := q.exec(ctx, `DELETE FROM media_files WHERE path IN (SELECT value FROM json_each(?))`, jsonList(paths))
		if err != nil {
			return false, fmt.Errorf("sqlite: release media paths: %w", err)
		}
		return true, nil
	})
}

// MediaPaths returns every path postID owns, sorted.
func (o ops) MediaPaths(ctx context.Context, postID int64) ([]string, error) {
	rows, err := o.reader().query(ctx, `SELECT path FROM media_files WHERE post_id = ?`, postID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: media paths of %d: %w", postID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("sqlite: media paths of %d: %w", postID, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: media paths of %d: %w", postID, err)
	}
	sort.Strings(out)
	return out, nil
}

// MediaPathOwner returns the owner of path.
func (o ops) MediaPathOwner(ctx context.Context, path string) (int64, error) {
	var id int64
	err := o.reader().queryRow(ctx, `SELECT post_id FROM media_files WHERE path = ?`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("sqlite: media path %q: %w", path, store.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: media path %q: %w", path, err)
	}
	return id, nil
}

// StaleMediaReservations returns up to limit paths reserved before cutoff
// and still unowned.
func (o ops) StaleMediaReservations(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	rows, err := o.reader().query(ctx, `SELECT path FROM media_files WHERE post_id = 0 AND reserved_at < ?
		ORDER BY path LIMIT ?`, fmtTime(cutoff.UTC()), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: stale media reservations: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("sqlite: stale media reservations: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: stale media reservations: %w", err)
	}
	return out, nil
}

// ReleaseMediaReservations forgets those of paths still unowned.
func (o ops) ReleaseMediaReservations(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	return o.writeTx(ctx, func(q querier) (bool, error) {
		_, err := q.exec(ctx, `DELETE FROM media_files WHERE post_id = 0 AND path IN (SELECT value FROM json_each(?))`, jsonList(paths))
		if err != nil {
			return false, fmt.Errorf("sqlite: release media reservations: %w", err)
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
	types := make([]string, 0, len(q.ParentVisibility))
	for t := range q.ParentVisibility {
		types = append(types, t)
	}
	sort.Strings(types)
	var alts []string
	var args []any
	for _, t := range types {
		v := q.ParentVisibility[t]
		targs := []any{t}
		var vis []string
		if len(v.Public) > 0 {
			expr, arg := inExpr("pp.status", v.Public, false)
			vis = append(vis, expr)
			targs = append(targs, arg)
		}
		if v.Owner != 0 && len(v.OwnStatuses) > 0 {
			expr, arg := inExpr("pp.status", v.OwnStatuses, false)
			vis = append(vis, `(pp.author = ? AND `+expr+`)`)
			targs = append(targs, v.Owner, arg)
		}
		if len(v.OthersStatuses) > 0 {
			expr, arg := inExpr("pp.status", v.OthersStatuses, false)
			vis = append(vis, expr)
			targs = append(targs, arg)
		}
		if len(vis) == 0 {
			continue
		}
		alts = append(alts, `(pp.type = ? AND (`+strings.Join(vis, " OR ")+`))`)
		args = append(args, targs...)
	}
	visible := `0`
	if len(alts) > 0 {
		visible = strings.Join(alts, " OR ")
	}
	c.add(`(posts.status <> 'inherit' OR posts.parent = 0
		OR NOT EXISTS (SELECT 1 FROM posts pp WHERE pp.id = posts.parent)
		OR EXISTS (SELECT 1 FROM posts pp WHERE pp.id = posts.parent AND (`+visible+`)))`, args...)
}
