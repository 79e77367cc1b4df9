package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// AddLoginFailure records a failed sign-in for key.
func (o ops) AddLoginFailure(ctx context.Context, key string, at time.Time) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `INSERT INTO login_failures (key, at) VALUES (?, ?)`, key, fmtTime(at)); err != nil {
			return false, fmt.Errorf("sqlite: add login failure: %w", err)
		}
		return false, nil
	})
}

// CountLoginFailures counts the failures of key since since.
func (o ops) CountLoginFailures(ctx context.Context, key string, since time.Time) (int64, error) {
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM login_failures WHERE key = ? AND at >= ?`,
		key, fmtTime(since)).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count login failures: %w", err)
	}
	return n, nil
}

// ClearLoginFailures forgets key's failures and every failure older than
// before.
func (o ops) ClearLoginFailures(ctx context.Context, key string, before time.Time) error {
	return o.writeTx(ctx, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `DELETE FROM login_failures WHERE key = ? OR at < ?`, key, fmtTime(before)); err != nil {
			return false, fmt.Errorf("sqlite: clear login failures: %w", err)
		}
		return false, nil
	})
}
