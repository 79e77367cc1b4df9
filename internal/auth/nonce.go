package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// NonceSecretOption is the site option that holds the secret nonces are
// signed with. It is created once (by whichever node starts first) and
// shared by every node through the database.
const NonceSecretOption = "folio_nonce_secret"

// RESTNonceAction is the action of the nonce the interface checks (the
// original's "wp_rest").
const RESTNonceAction = "wp_rest"

// NonceLifetime is a nonce's full lifetime. It is split into two ticks: a
// nonce is accepted during the tick it was made in and the next one, so it
// stays valid between 12 and 24 hours (reference §4).
const NonceLifetime = 24 * time.Hour

// nonceLen is the length of a nonce in hex characters.
const nonceLen = 10

// Nonces makes and checks nonces: short HMAC tags bound to a user, a login
// session token, an action and the current half-day tick. Any node holding
// the same secret can check a nonce another node made.
type Nonces struct {
	secret []byte
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewNonces returns a nonce maker over secret.
func NewNonces(secret []byte) *Nonces {
	return &Nonces{secret: append([]byte(nil), secret...)}
}

// LoadNonces returns the nonce maker of the site: it reads the shared secret
// from the options, creating it on first use. Concurrent first starts agree
// on one secret (the store's AddOption keeps the first).
func LoadNonces(ctx context.Context, opts store.OptionStore) (*Nonces, error) {
	v, err := opts.GetOption(ctx, NonceSecretOption)
	if errors.Is(err, store.ErrNotFound) {
		buf := make([]byte, 32)
		if _, err := rand.Read(buf); err != nil {
			return nil, fmt.Errorf("nonce secret: %w", err)
		}
		v, err = opts.AddOption(ctx, NonceSecretOption, hex.EncodeToString(buf))
	}
	if err != nil {
		return nil, fmt.Errorf("nonce secret: %w", err)
	}
	secret, err := hex.DecodeString(v)
	if err != nil || len(secret) < 16 {
		return nil, fmt.Errorf("nonce secret: option %s is not a hex secret of at least 16 bytes", NonceSecretOption)
	}
	return NewNonces(secret), nil
}

func (n *Nonces) now() time.Time {
	if n.Now != nil {
		return n.Now()
	}
	return time.Now()
}

// tick returns the number of the half-lifetime period t falls in, counted
// the original's way (rounded up).
func tick(t time.Time) int64 {
	half := int64(NonceLifetime / 2 / time.Second)
	u := t.Unix()
	return (u + half - 1) / half
}

func (n *Nonces) make(tk int64, userID int64, token, action string) string {
	m := hmac.New(sha256.New, n.secret)
	m.Write([]byte(strconv.FormatInt(tk, 10)))
	m.Write([]byte{0})
	m.Write([]byte(action))
	m.Write([]byte{0})
	m.Write([]byte(strconv.FormatInt(userID, 10)))
	m.Write([]byte{0})
	m.Write([]byte(token))
	return hex.EncodeToString(m.Sum(nil))[:nonceLen]
}

// sign returns the HMAC of parts under the shared secret, for label (a
// purpose other than nonces, kept apart from them and from each other).
func (n *Nonces) sign(label string, parts ...string) []byte {
	m := hmac.New(sha256.New, n.secret)
	m.Write([]byte("folio:" + label))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

// Create returns the nonce for action of user userID (0 for nobody) in the
// login session with token (empty for nobody), valid for the current tick
// and the next one.
func (n *Nonces) Create(userID int64, token, action string) string {
	return n.make(tick(n.now()), userID, token, action)
}

// Verify checks nonce for action, userID and token. It returns 1 when the
// nonce was made in the current tick, 2 when it was made in the previous
// one, and 0 when it is not valid.
func (n *Nonces) Verify(nonce string, userID int64, token, action string) int {
	if len(nonce) != nonceLen {
		return 0
	}
	tk := tick(n.now())
	for i, t := range []int64{tk, tk - 1} {
		want := n.make(t, userID, token, action)
		if subtle.ConstantTimeCompare([]byte(nonce), []byte(want)) == 1 {
			return i + 1
		}
	}
	return 0
}
