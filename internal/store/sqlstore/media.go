package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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
	a := &Args{}
	err := o.reader().query(ctx, func(rows Rows) error {
		var m store.Media
		if err := rows.Scan(&m.PostID, &m.File, &m.AltText, &m.Details); err != nil {
			return err
		}
		out[m.PostID] = &m
		return nil
	}, `SELECT post_id, file, alt_text, details FROM media WHERE `+inExpr(o.db.d, a, "post_id", ids, false), a.vals...)
	if err != nil {
		return nil, o.db.fail("get media", err)
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
			return false, o.db.fail(fmt.Sprintf("put media %d", m.PostID), err)
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
	// One statement, guarded, so that a conflict leaves nothing behind and
	// an outer transaction usable.
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		a := &Args{vals: []any{o.db.d.Time(time.Now().UTC())}}
		rows := make([]string, len(paths))
		for i, p := range paths {
			rows[i] = `(` + a.Add(p) + `, 0, $1)`
		}
		_, err := q.exec(ctx, `INSERT INTO media_files (path, post_id, reserved_at) VALUES `+strings.Join(rows, ", "), a.vals...)
		if err != nil {
			return false, o.db.conflict(err, "reserve media paths")
		}
		return true, nil
	})
}

// pathsWrite runs one statement on media paths (the list bound after the
// leading args).
func (o ops) pathsWrite(ctx context.Context, what, query string, paths []string, lead ...any) error {
	if len(paths) == 0 {
		return nil
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		a := &Args{vals: lead}
		if _, err := q.exec(ctx, query+inExpr(o.db.d, a, "path", paths, false), a.vals...); err != nil {
			return false, o.db.fail(what, err)
		}
		return true, nil
	})
}

// AttachMediaPaths makes postID the owner of paths.
func (o ops) AttachMediaPaths(ctx context.Context, postID int64, paths []string) error {
	return o.pathsWrite(ctx, "attach media paths", `UPDATE media_files SET post_id = $1 WHERE `, paths, postID)
}

// ReleaseMediaPaths forgets paths.
func (o ops) ReleaseMediaPaths(ctx context.Context, paths []string) error {
	return o.pathsWrite(ctx, "release media paths", `DELETE FROM media_files WHERE `, paths)
}

// ReleaseMediaReservations forgets those of paths still unowned.
func (o ops) ReleaseMediaReservations(ctx context.Context, paths []string) error {
	return o.pathsWrite(ctx, "release media reservations", `DELETE FROM media_files WHERE post_id = 0 AND `, paths)
}

// MediaPaths returns every path postID owns, sorted.
func (o ops) MediaPaths(ctx context.Context, postID int64) ([]string, error) {
	var out []string
	if err := collect(ctx, o.reader(), &out, scanString, `SELECT path FROM media_files WHERE post_id = $1`, postID); err != nil {
		return nil, o.db.fail(fmt.Sprintf("media paths of %d", postID), err)
	}
	slices.Sort(out)
	return out, nil
}

// MediaPathOwner returns the owner of path.
func (o ops) MediaPathOwner(ctx context.Context, path string) (int64, error) {
	var id int64
	err := o.reader().queryRow(ctx, `SELECT post_id FROM media_files WHERE path = $1`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, o.db.notFound(fmt.Sprintf("media path %q", path))
	}
	if err != nil {
		return 0, o.db.fail(fmt.Sprintf("media path %q", path), err)
	}
	return id, nil
}

// MediaPathsKnown reports which of paths are in media_files.
func (o ops) MediaPathsKnown(ctx context.Context, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	a := &Args{}
	c := o.db.newCond(a)
	inList(c, "path", paths, false)
	err := o.reader().query(ctx, func(rows Rows) error {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		out[p] = true
		return nil
	}, `SELECT path FROM media_files`+c.where(), a.vals...)
	if err != nil {
		return nil, o.db.fail("media paths known", err)
	}
	return out, nil
}

// StaleMediaReservations returns up to limit paths reserved before cutoff
// and still unowned.
func (o ops) StaleMediaReservations(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	var out []string
	if err := collect(ctx, o.reader(), &out, scanString, `SELECT path FROM media_files WHERE post_id = 0 AND reserved_at < $1
		ORDER BY path LIMIT $2`, o.db.d.Time(cutoff.UTC()), int64(limit)); err != nil {
		return nil, o.db.fail("stale media reservations", err)
	}
	return out, nil
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
	for _, t := range types {
		v := q.ParentVisibility[t]
		if v == nil {
			continue
		}
		vis := visibilityExpr(c.d, c.a, "pp.", v)
		if vis == `FALSE` {
			continue
		}
		alts = append(alts, `(pp.type = `+c.a.Add(t)+` AND `+vis+`)`)
	}
	visible := `FALSE`
	if len(alts) > 0 {
		visible = strings.Join(alts, " OR ")
	}
	c.add(`(posts.status <> 'inherit' OR posts.parent = 0
		OR NOT EXISTS (SELECT 1 FROM posts pp WHERE pp.id = posts.parent)
		OR EXISTS (SELECT 1 FROM posts pp WHERE pp.id = posts.parent AND (` + visible + `)))`)
}
