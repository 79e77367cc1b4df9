package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO sessions (id, token_hash, user_id, created, expires,
			last_seen, ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.TokenHash, s.UserID, fmtTime(s.Created), fmtTime(s.Expires), fmtTime(s.LastSeen),
			s.IP, s.UserAgent); err != nil {
			return false, conflict(err, "create session")
		}
		return false, nil
	})
}

const sessionSelect = `SELECT id, token_hash, user_id, created, expires, last_seen, ip, user_agent FROM sessions`

func scanSession(s scanner) (*store.Session, error) {
	var x store.Session
	var created, expires, seen string
	if err := s.Scan(&x.ID, &x.TokenHash, &x.UserID, &created, &expires, &seen, &x.IP, &x.UserAgent); err != nil {
		return nil, err
	}
	var err error
	if x.Created, err = parseTime(created); err != nil {
		return nil, err
	}
	if x.Expires, err = parseTime(expires); err != nil {
		return nil, err
	}
	if x.LastSeen, err = parseTime(seen); err != nil {
		return nil, err
	}
	return &x, nil
}

// GetSession loads a session by token hash; store.ErrNotFound when there is
// none.
func (o ops) GetSession(ctx context.Context, tokenHash string) (*store.Session, error) {
	s, err := scanSession(o.reader().queryRow(ctx, sessionSelect+` WHERE token_hash = ?`, tokenHash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: session: %w", store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get session: %w", err)
	}
	return s, nil
}

// DeleteSession removes one session; store.ErrNotFound when there is none.
func (o ops) DeleteSession(ctx context.Context, tokenHash string) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete session: %w", err)
		}
		_, err = affected(res, "session")
		return false, err
	})
}

// ListSessions returns a user's sessions, oldest first.
func (o ops) ListSessions(ctx context.Context, userID int64) ([]*store.Session, error) {
	rows, err := o.reader().query(ctx, sessionSelect+` WHERE user_id = ? ORDER BY created, token_hash`, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	defer rows.Close()
	out := []*store.Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list sessions: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	return out, nil
}

// DeleteUserSessions removes every session of a user.
func (o ops) DeleteUserSessions(ctx context.Context, userID int64) (int64, error) {
	var n int64
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete user sessions: %w", err)
		}
		n, err = res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: delete user sessions: %w", err)
		}
		return false, nil
	})
	return n, err
}

// DeleteOtherSessions removes every session of a user but keep.
func (o ops) DeleteOtherSessions(ctx context.Context, userID int64, keep string) (int64, error) {
	var n int64
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?`, userID, keep)
		if err != nil {
			return false, fmt.Errorf("sqlite: delete other sessions: %w", err)
		}
		n, err = res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: delete other sessions: %w", err)
		}
		return false, nil
	})
	return n, err
}

// TouchSession records a use of a session; store.ErrNotFound when it does
// not exist.
func (o ops) TouchSession(ctx context.Context, tokenHash string, at time.Time, ip string) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE sessions SET last_seen = ?, ip = ? WHERE token_hash = ?`,
			fmtTime(at), ip, tokenHash)
		if err != nil {
			return false, fmt.Errorf("sqlite: touch session: %w", err)
		}
		_, err = affected(res, "session")
		return false, err
	})
}

// DeleteExpiredSessions removes sessions that expired before t.
func (o ops) DeleteExpiredSessions(ctx context.Context, t time.Time) (int64, error) {
	var n int64
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM sessions WHERE expires < ?`, fmtTime(t))
		if err != nil {
			return false, fmt.Errorf("sqlite: delete expired sessions: %w", err)
		}
		n, err = res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: delete expired sessions: %w", err)
		}
		return false, nil
	})
	return n, err
}

// LoginCounters returns the counters of keys, zero for keys without one.
func (o ops) LoginCounters(ctx context.Context, keys []string) ([]store.LoginCounter, error) {
	cur, err := loginCounters(ctx, o.reader(), keys)
	if err != nil {
		return nil, fmt.Errorf("sqlite: login counters: %w", err)
	}
	return cur, nil
}

// loginCounters reads the counters of keys through q, in the order of
// keys.
func loginCounters(ctx context.Context, q querier, keys []string) ([]store.LoginCounter, error) {
	out := make([]store.LoginCounter, len(keys))
	at := make(map[string][]int, len(keys))
	args := make([]any, 0, len(keys))
	for i, k := range keys {
		out[i].Key = k
		if at[k] == nil {
			args = append(args, k)
		}
		at[k] = append(at[k], i)
	}
	if len(args) == 0 {
		return out, nil
	}
	rows, err := q.query(ctx, `SELECT key, failures, last, next FROM login_counters WHERE key IN (?`+
		strings.Repeat(", ?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c store.LoginCounter
		var last, next string
		if err := rows.Scan(&c.Key, &c.Failures, &last, &next); err != nil {
			return nil, err
		}
		if c.Last, err = parseTime(last); err != nil {
			return nil, err
		}
		if c.Next, err = parseTime(next); err != nil {
			return nil, err
		}
		for _, i := range at[c.Key] {
			out[i] = c
		}
	}
	return out, rows.Err()
}

// UpdateLoginCounters reads, updates and stores the counters of keys in
// one write transaction: SQLite has one writer at a time (an immediate
// transaction on the single write connection, which also excludes other
// processes), so nothing else changes them in between.
func (o ops) UpdateLoginCounters(ctx context.Context, keys []string, update func([]store.LoginCounter) []store.LoginCounter) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		cur, err := loginCounters(ctx, q, keys)
		if err != nil {
			return false, fmt.Errorf("sqlite: read login counters: %w", err)
		}
		for _, c := range update(cur) {
			if c.Failures <= 0 {
				_, err = q.exec(ctx, `DELETE FROM login_counters WHERE key = ?`, c.Key)
			} else {
				_, err = q.exec(ctx, `INSERT INTO login_counters (key, failures, last, next) VALUES (?, ?, ?, ?)
					ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, last = excluded.last, next = excluded.next`,
					c.Key, c.Failures, fmtTime(c.Last), fmtTime(c.Next))
			}
			if err != nil {
				return false, fmt.Errorf("sqlite: write login counter: %w", err)
			}
		}
		return false, nil
	})
}

// DeleteLoginCounters removes the counters last counted before t.
func (o ops) DeleteLoginCounters(ctx context.Context, t time.Time) (int64, error) {
	var n int64
	err := o.writeTx(ctx, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM login_counters WHERE last < ?`, fmtTime(t))
		if err != nil {
			return false, fmt.Errorf("sqlite: delete login counters: %w", err)
		}
		n, err = res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("sqlite: delete login counters: %w", err)
		}
		return false, nil
	})
	return n, err
}
