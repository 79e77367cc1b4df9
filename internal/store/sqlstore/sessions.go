package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// Session and login-failure writes do not bump the store version: no cache
// of content depends on them, so signing in must not empty those caches.

// CreateSession stores s; store.ErrConflict when its token hash exists.
func (o ops) CreateSession(ctx context.Context, s *store.Session) error {
	if s.ID == "" {
		s.ID = store.NewSessionID()
	}
	t := o.db.d.Time
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO sessions (id, token_hash, user_id, created, expires,
			last_seen, ip, user_agent) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			s.ID, s.TokenHash, s.UserID, t(s.Created), t(s.Expires), t(s.LastSeen),
			s.IP, s.UserAgent); err != nil {
			return false, o.db.conflict(err, "create session")
		}
		return false, nil
	})
}

const sessionSelect = `SELECT id, token_hash, user_id, created, expires, last_seen, ip, user_agent FROM sessions`

func scanSession(s scanner) (*store.Session, error) {
	var x store.Session
	if err := s.Scan(&x.ID, &x.TokenHash, &x.UserID, at(&x.Created), at(&x.Expires), at(&x.LastSeen), &x.IP, &x.UserAgent); err != nil {
		return nil, err
	}
	return &x, nil
}

// GetSession loads a session by token hash; store.ErrNotFound when there is
// none.
func (o ops) GetSession(ctx context.Context, tokenHash string) (*store.Session, error) {
	s, err := scanSession(o.reader().queryRow(ctx, sessionSelect+` WHERE token_hash = $1`, tokenHash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, o.db.notFound("session")
	}
	if err != nil {
		return nil, o.db.fail("get session", err)
	}
	return s, nil
}

// sessionWrite runs one statement that changes sessions or login failures
// (not content: the version stays) and returns how many rows it touched;
// with mustTouch, none is store.ErrNotFound.
func (o ops) sessionWrite(ctx context.Context, what string, mustTouch bool, query string, args ...any) (int64, error) {
	var n int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, query, args...)
		if err != nil {
			return false, o.db.fail(what, err)
		}
		if mustTouch {
			_, err = o.db.affected(res, "session")
			return false, err
		}
		n, err = o.db.rowsAffected(res, what)
		return false, err
	})
	return n, err
}

// DeleteSession removes one session; store.ErrNotFound when there is none.
func (o ops) DeleteSession(ctx context.Context, tokenHash string) error {
	_, err := o.sessionWrite(ctx, "delete session", true, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash)
	return err
}

// ListSessions returns a user's sessions, oldest first.
func (o ops) ListSessions(ctx context.Context, userID int64) ([]*store.Session, error) {
	out := []*store.Session{}
	if err := collect(ctx, o.reader(), &out, scanSession, sessionSelect+` WHERE user_id = $1 ORDER BY created, token_hash`, userID); err != nil {
		return nil, o.db.fail("list sessions", err)
	}
	return out, nil
}

// DeleteUserSessions removes every session of a user.
func (o ops) DeleteUserSessions(ctx context.Context, userID int64) (int64, error) {
	return o.sessionWrite(ctx, "delete user sessions", false, `DELETE FROM sessions WHERE user_id = $1`, userID)
}

// DeleteOtherSessions removes every session of a user but keep.
func (o ops) DeleteOtherSessions(ctx context.Context, userID int64, keep string) (int64, error) {
	return o.sessionWrite(ctx, "delete other sessions", false, `DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2`, userID, keep)
}

// TouchSession records a use of a session; store.ErrNotFound when it does
// not exist.
func (o ops) TouchSession(ctx context.Context, tokenHash string, at time.Time, ip string) error {
	_, err := o.sessionWrite(ctx, "touch session", true, `UPDATE sessions SET last_seen = $1, ip = $2 WHERE token_hash = $3`,
		o.db.d.Time(at), ip, tokenHash)
	return err
}

// DeleteExpiredSessions removes sessions that expired before t.
func (o ops) DeleteExpiredSessions(ctx context.Context, t time.Time) (int64, error) {
	return o.sessionWrite(ctx, "delete expired sessions", false, `DELETE FROM sessions WHERE expires < $1`, o.db.d.Time(t))
}

// LoginCounters returns the counters of keys, zero for keys without one.
func (o ops) LoginCounters(ctx context.Context, keys []string) ([]store.LoginCounter, error) {
	cur, err := o.db.loginCounters(ctx, o.reader(), keys, false)
	if err != nil {
		return nil, o.db.fail("login counters", err)
	}
	return cur, nil
}

// loginCounters reads the counters of keys through q, in the order of
// keys; lock takes their row locks (where the database locks rows), in key
// order, so that two transactions locking overlapping keys cannot
// deadlock.
func (db *DB) loginCounters(ctx context.Context, q querier, keys []string, lock bool) ([]store.LoginCounter, error) {
	out := make([]store.LoginCounter, len(keys))
	pos := make(map[string][]int, len(keys))
	uniq := make([]string, 0, len(keys))
	for i, k := range keys {
		out[i].Key = k
		if pos[k] == nil {
			uniq = append(uniq, k)
		}
		pos[k] = append(pos[k], i)
	}
	if len(uniq) == 0 {
		return out, nil
	}
	a := &Args{}
	query := `SELECT key, failures, last, next FROM login_counters WHERE ` + inExpr(db.d, a, "key", uniq, false)
	if l := db.d.Lock(false); lock && l != "" {
		query += ` ORDER BY key` + l
	}
	err := q.query(ctx, func(rows Rows) error {
		var c store.LoginCounter
		if err := rows.Scan(&c.Key, &c.Failures, at(&c.Last), at(&c.Next)); err != nil {
			return err
		}
		for _, i := range pos[c.Key] {
			out[i] = c
		}
		return nil
	}, query, a.vals...)
	return out, err
}

// UpdateLoginCounters reads, updates and stores the counters of keys in
// one write transaction. Where the write transaction holds the whole
// database (SQLite's single writer, which also excludes other processes)
// nothing else changes the counters in between. Where rows are locked
// (PostgreSQL), missing counters are first created (empty) so that every
// key has a row to lock; the rows are then locked with SELECT ... FOR
// UPDATE in key order, which makes concurrent updates of the same keys,
// from any node, wait for each other, and the empty rows that stay empty
// are removed again.
func (o ops) UpdateLoginCounters(ctx context.Context, keys []string, update func([]store.LoginCounter) []store.LoginCounter) error {
	rowLocks := o.db.d.Lock(false) != ""
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if rowLocks {
			uniq := slices.Compact(slices.Sorted(slices.Values(keys)))
			a := &Args{}
			rows := make([]string, len(uniq))
			for i, k := range uniq {
				rows[i] = `(` + a.Add(k) + `)`
			}
			if _, err := q.exec(ctx, `INSERT INTO login_counters (key) VALUES `+strings.Join(rows, ", ")+
				` ON CONFLICT (key) DO NOTHING`, a.vals...); err != nil {
				return false, o.db.fail("create login counters", err)
			}
		}
		cur, err := o.db.loginCounters(ctx, q, keys, true)
		if err != nil {
			return false, o.db.fail("read login counters", err)
		}
		written := map[string]bool{}
		for _, c := range update(cur) {
			written[c.Key] = true
			if c.Failures <= 0 {
				_, err = q.exec(ctx, `DELETE FROM login_counters WHERE key = $1`, c.Key)
			} else {
				_, err = q.exec(ctx, `INSERT INTO login_counters (key, failures, last, next) VALUES ($1, $2, $3, $4)
					ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, last = excluded.last, next = excluded.next`,
					c.Key, c.Failures, o.db.d.Time(c.Last), o.db.d.Time(c.Next))
			}
			if err != nil {
				return false, o.db.fail("write login counter", err)
			}
		}
		if !rowLocks {
			return false, nil
		}
		var empty []string
		for _, c := range cur {
			if c.Failures == 0 && !written[c.Key] && !slices.Contains(empty, c.Key) {
				empty = append(empty, c.Key)
			}
		}
		if len(empty) > 0 {
			a := &Args{}
			if _, err := q.exec(ctx, `DELETE FROM login_counters WHERE failures = 0 AND `+inExpr(o.db.d, a, "key", empty, false), a.vals...); err != nil {
				return false, o.db.fail("delete empty login counters", err)
			}
		}
		return false, nil
	})
}

// DeleteLoginCounters removes the counters last counted before t.
func (o ops) DeleteLoginCounters(ctx context.Context, t time.Time) (int64, error) {
	return o.sessionWrite(ctx, "delete login counters", false, `DELETE FROM login_counters WHERE last < $1`, o.db.d.Time(t))
}
