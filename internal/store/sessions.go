package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Session is one browser sign-in. Only the SHA-256 hash of the session
// token is stored; the token itself lives in the visitor's cookie, so a
// copy of the database cannot be used to sign in.
type Session struct {
	// ID is the session's public id: random, unrelated to the token, it
	// names the session in the interface. CreateSession sets it when empty.
	ID string
	// TokenHash is the hex SHA-256 of the session token.
	TokenHash string
	UserID    int64
	Created   time.Time
	// Expires is when the session ends, whatever its use.
	Expires time.Time
	// LastSeen is the last time the session was used (at most once a
	// minute is recorded).
	LastSeen  time.Time
	IP        string
	UserAgent string
}

// SessionStore keeps browser sessions and the failed sign-in attempts that
// throttle password guessing. Both live in the database so that every node
// of a cluster sees the same sessions and the same failure counts.
type SessionStore interface {
	// CreateSession stores s, giving it a new ID when it has none;
	// store.ErrConflict when its token hash or ID exists.
	CreateSession(ctx context.Context, s *Session) error
	// GetSession loads a session by token hash; ErrNotFound when there is
	// none (expired sessions are returned: the caller checks Expires).
	GetSession(ctx context.Context, tokenHash string) (*Session, error)
	// DeleteSession removes one session; ErrNotFound when there is none.
	DeleteSession(ctx context.Context, tokenHash string) error
	// ListSessions returns a user's sessions, oldest first.
	ListSessions(ctx context.Context, userID int64) ([]*Session, error)
	// DeleteUserSessions removes every session of a user and returns how
	// many there were.
	DeleteUserSessions(ctx context.Context, userID int64) (int64, error)
	// DeleteOtherSessions removes every session of a user except the one
	// whose token hash is keep ("" keeps none) and returns how many it
	// removed.
	DeleteOtherSessions(ctx context.Context, userID int64, keep string) (int64, error)
	// TouchSession records a use of a session at at from ip.
	TouchSession(ctx context.Context, tokenHash string, at time.Time, ip string) error
	// DeleteExpiredSessions removes sessions that expired before t and
	// returns how many.
	DeleteExpiredSessions(ctx context.Context, t time.Time) (int64, error)

	// AddLoginFailure records a failed sign-in for key (an account or an
	// address) at at.
	AddLoginFailure(ctx context.Context, key string, at time.Time) error
	// CountLoginFailures counts the failures recorded for key since since.
	CountLoginFailures(ctx context.Context, key string, since time.Time) (int64, error)
	// ClearLoginFailures forgets the failures of key, and every failure
	// older than before of any key.
	ClearLoginFailures(ctx context.Context, key string, before time.Time) error
}

// NewSessionID returns a random public session id (128 bits, hex).
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
