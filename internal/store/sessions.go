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

// SessionStore keeps browser sessions and the counters that throttle
// password guessing. Both live in the database so that every node
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

	// LoginCounters returns the sign-in throttling counters of keys, in
	// the order of keys; a key that has none gets a zero counter with only
	// Key set.
	LoginCounters(ctx context.Context, keys []string) ([]LoginCounter, error)
	// UpdateLoginCounters reads the counters of keys (as LoginCounters
	// does), passes them to update and stores the counters update returns
	// (each under its Key, one of keys), all in one transaction that holds the keys' counters locked against
	// every other update, from this process or any other node sharing the
	// database, until it ends: check-and-count is atomic. A returned
	// counter with zero Failures is deleted; update returning nil changes
	// nothing. update is called once.
	UpdateLoginCounters(ctx context.Context, keys []string, update func([]LoginCounter) []LoginCounter) error
	// DeleteLoginCounters removes the counters whose Last is before t and
	// returns how many (old counters, which have leaked empty).
	DeleteLoginCounters(ctx context.Context, t time.Time) (int64, error)
}

// LoginCounter is the throttling state of one key: an account, a client
// address, or both (package auth decides what the keys and the rules are).
// Times have whole seconds.
type LoginCounter struct {
	Key string
	// Failures counts the attempts not proven good (and not yet
	// forgotten).
	Failures int64
	// Last is the counter's clock: when it last started or forgot an
	// attempt.
	Last time.Time
	// Next is the earliest time the next attempt may be made (zero when
	// it may be made at once).
	Next time.Time
}

// NewSessionID returns a random public session id (128 bits, hex).
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
