package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/folio-server/folio/internal/store"
)

// Session and login-failure writes do not bump the store version: no cache
// of content depends on them, so signing in must not empty those caches.

// CreateSession stores s; store.ErrConflict when its token hash exists.
func (o ops) CreateSession(ctx context.Context, s *store.Session) error {
	if s.ID == "" {
		s.ID = store.NewSessionID()
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO sessions (id, token_hash, user_id, created, expires,
			last_seen, ip, user_agent) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			s.ID, s.TokenHash, s.UserID, pgTime(s.Created), pgTime(s.Expires), pgTime(s.LastSeen),
			s.IP, s.UserAgent); err != nil {
			return false, conflict(err, "create session")
		}
		return false, nil
	})
}

const sessionSelect = `SELECT id, token_hash, user_id, created, expires, last_seen, ip, user_agent FROM sessions`

func scanSession(s pgx.Row) (*store.Session, error) {
	var x store.Session
	if err := s.Scan(&x.ID, &x.TokenHash, &x.UserID, &x.Created, &x.Expires, &x.LastSeen, &x.IP, &x.UserAgent); err != nil {
		return nil, err
	}
	x.Created = readTime(x.Created)
	x.Expires = readTime(x.Expires)
	x.LastSeen = readTime(x.LastSeen)
	return &x, nil
}

// GetSession loads a session by token hash; store.ErrNotFound when there is
// none.
func (o ops) GetSession(ctx context.Context, tokenHash string) (*store.Session, error) {
	s, err := scanSession(o.reader().queryRow(ctx, sessionSelect+` WHERE token_hash = $1`, tokenHash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: session: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, fail("get session", err)
	}
	return s, nil
}

// DeleteSession removes one session; store.ErrNotFound when there is none.
func (o ops) DeleteSession(ctx context.Context, tokenHash string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash)
		if err != nil {
			return false, fail("delete session", err)
		}
		_, err = affected(tag, "session")
		return false, err
	})
}

// ListSessions returns a user's sessions, oldest first.
func (o ops) ListSessions(ctx context.Context, userID int64) ([]*store.Session, error) {
	out := []*store.Session{}
	err := o.reader().query(ctx, func(rows pgx.Rows) error {
		s, err := scanSession(rows)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	}, sessionSelect+` WHERE user_id = $1 ORDER BY created, token_hash`, userID)
	if err != nil {
		return nil, fail("list sessions", err)
	}
	return out, nil
}

// DeleteUserSessions removes every session of a user.
func (o ops) DeleteUserSessions(ctx context.Context, userID int64) (int64, error) {
	var n int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID)
		if err != nil {
			return false, fail("delete user sessions", err)
		}
		n = tag.RowsAffected()
		return false, nil
	})
	return n, err
}

// DeleteOtherSessions removes every session of a user but keep.
func (o ops) DeleteOtherSessions(ctx context.Context, userID int64, keep string) (int64, error) {
	var n int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2`, userID, keep)
		if err != nil {
			return false, fail("delete other sessions", err)
		}
		n = tag.RowsAffected()
		return false, nil
	})
	return n, err
}

// TouchSession records a use of a session; store.ErrNotFound when it does
// not exist.
func (o ops) TouchSession(ctx context.Context, tokenHash string, at time.Time, ip string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `UPDATE sessions SET last_seen = $1, ip = $2 WHERE token_hash = $3`,
			pgTime(at), ip, tokenHash)
		if err != nil {
			return false, fail("touch session", err)
		}
		_, err = affected(tag, "session")
		return false, err
	})
}

// DeleteExpiredSessions removes sessions that expired before t.
func (o ops) DeleteExpiredSessions(ctx context.Context, t time.Time) (int64, error) {
	var n int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM sessions WHERE expires < $1`, pgTime(t))
		if err != nil {
			return false, fail("delete expired sessions", err)
		}
		n = tag.RowsAffected()
		return false, nil
	})
	return n, err
}

// LoginCounters returns the counters of keys, zero for keys without one.
func (o ops) LoginCounters(ctx context.Context, keys []string) ([]store.LoginCounter, error) {
	cur, err := loginCounters(ctx, o.reader(), keys, false)
	if err != nil {
		return nil, fail("login counters", err)
	}
	return cur, nil
}

// loginCounters reads the counters of keys through q, in the order of
// keys; lock takes their row locks, in key order, so that two
// transactions locking overlapping keys cannot deadlock.
func loginCounters(ctx context.Context, q querier, keys []string, lock bool) ([]store.LoginCounter, error) {
	out := make([]store.LoginCounter, len(keys))
	at := make(map[string][]int, len(keys))
	uniq := make([]string, 0, len(keys))
	for i, k := range keys {
		out[i].Key = k
		if at[k] == nil {
			uniq = append(uniq, k)
		}
		at[k] = append(at[k], i)
	}
	if len(uniq) == 0 {
		return out, nil
	}
	query := `SELECT key, failures, last, next FROM login_counters WHERE key = ANY($1)`
	if lock {
		query += ` ORDER BY key FOR UPDATE`
	}
	err := q.query(ctx, func(rows pgx.Rows) error {
		var c store.LoginCounter
		if err := rows.Scan(&c.Key, &c.Failures, &c.Last, &c.Next); err != nil {
			return err
		}
		c.Last, c.Next = readTime(c.Last), readTime(c.Next)
		for _, i := range at[c.Key] {
			out[i] = c
		}
		return nil
	}, query, uniq)
	return out, err
}

// UpdateLoginCounters reads, updates and stores the counters of keys in
// one transaction. Missing counters are first created (empty) so that
// every key has a row to lock; the rows are then locked with SELECT ...
// FOR UPDATE in key order, which makes concurrent updates of the same
// keys, from any node, wait for each other.
func (o ops) UpdateLoginCounters(ctx context.Context, keys []string, update func([]store.LoginCounter) []store.LoginCounter) error {
	uniq := slices.Clone(keys)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO login_counters (key)
			SELECT k FROM unnest($1::text[]) AS k ORDER BY k ON CONFLICT (key) DO NOTHING`, uniq); err != nil {
			return false, fail("create login counters", err)
		}
		cur, err := loginCounters(ctx, q, keys, true)
		if err != nil {
			return false, fail("lock login counters", err)
		}
		written := map[string]bool{}
		for _, c := range update(cur) {
			written[c.Key] = true
			if c.Failures <= 0 {
				_, err = q.exec(ctx, `DELETE FROM login_counters WHERE key = $1`, c.Key)
			} else {
				_, err = q.exec(ctx, `UPDATE login_counters SET failures = $2, last = $3, next = $4 WHERE key = $1`,
					c.Key, c.Failures, pgTime(c.Last), pgTime(c.Next))
			}
			if err != nil {
				return false, fail("write login counter", err)
			}
		}
		// The empty rows made above for keys that stay without failures
		// go again.
		var empty []string
		for _, c := range cur {
			if c.Failures == 0 && !written[c.Key] {
				empty = append(empty, c.Key)
			}
		}
		if len(empty) > 0 {
			if _, err := q.exec(ctx, `DELETE FROM login_counters WHERE key = ANY($1) AND failures = 0`, empty); err != nil {
				return false, fail("delete empty login counters", err)
			}
		}
		return false, nil
	})
}

// DeleteLoginCounters removes the counters last counted before t.
func (o ops) DeleteLoginCounters(ctx context.Context, t time.Time) (int64, error) {
	var n int64
	err := o.writeTx(ctx, false, func(q querier) (bool, error) {
		tag, err := q.exec(ctx, `DELETE FROM login_counters WHERE last < $1`, pgTime(t))
		if err != nil {
			return false, fail("delete login counters", err)
		}
		n = tag.RowsAffected()
		return false, nil
	})
	return n, err
}
