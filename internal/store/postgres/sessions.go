package postgres

import (
	"context"
	"errors"
	"fmt"
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

// AddLoginFailure records a failed sign-in for key.
func (o ops) AddLoginFailure(ctx context.Context, key string, at time.Time) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `WITH n AS `+nextID("login_failures")+`
			INSERT INTO login_failures (id, key, at) VALUES ((SELECT last FROM n), $1, $2)`, key, pgTime(at)); err != nil {
			return false, fail("add login failure", err)
		}
		return false, nil
	})
}

// CountLoginFailures counts the failures of key since since.
func (o ops) CountLoginFailures(ctx context.Context, key string, since time.Time) (int64, error) {
	var n int64
	if err := o.reader().queryRow(ctx, `SELECT COUNT(*) FROM login_failures WHERE key = $1 AND at >= $2`,
		key, pgTime(since)).Scan(&n); err != nil {
		return 0, fail("count login failures", err)
	}
	return n, nil
}

// ClearLoginFailures forgets key's failures and every failure older than
// before.
func (o ops) ClearLoginFailures(ctx context.Context, key string, before time.Time) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		if _, err := q.exec(ctx, `DELETE FROM login_failures WHERE key = $1 OR at < $2`, key, pgTime(before)); err != nil {
			return false, fail("clear login failures", err)
		}
		return false, nil
	})
}
