package auth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/store"
)

var _ Authenticator = (*BasicAuth)(nil)

// touchInterval is how often at most the last use of one application
// password is written to the store.
const touchInterval = time.Minute

// touchedMax bounds the in-memory record of recent writes; past it, entries
// older than touchInterval are dropped.
const touchedMax = 4096

// knownMax bounds how many logins' users and passwords BasicAuth keeps;
// past it, one is forgotten for each one learnt.
const knownMax = 1024

// lastReadMax bounds how many counter keys' last sign-in reads BasicAuth
// keeps, as knownMax does logins.
const lastReadMax = 4096

// BasicAuth authenticates HTTP Basic credentials: a login (or email) and one
// of that user's application passwords. The account password is never
// accepted here (cli.md).
//
// An Authorization header that is present but malformed, names an unknown
// user, carries no matching application password or uses another scheme
// gives a 401 rest_authentication_failed *Error; the message never says which
// part was wrong. Store failures are returned as plain wrapped errors.
// Passwords are never logged.
type BasicAuth struct {
	Users store.UserStore
	// Apps is the site's own store: where it reads users with their
	// passwords (store.UserAppPasswordsStore), the site generation read
	// with them comes with the user (User.SiteGeneration), and what keeps
	// the site's settings and webhooks trusts it for the request.
	Apps store.AppPasswordStore
	// Roles resolves the user's capabilities; nil means DefaultRoles.
	Roles *Roles
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger, when set, receives failures to record an application
	// password's last use (which do not fail the request).
	Logger *slog.Logger
	// Throttle, when set, slows guessing: failures are counted per
	// (login, client address) pair, and a pair past its allowance gets a
	// 429 rest_authentication_throttled *Error with RetryAfter, without
	// its password being checked. Where Apps is also the throttle's
	// Counters and reads users with their passwords
	// (store.UserAppPasswordsStore), the pair's counter is read in that
	// same query.
	Throttle *Throttle

	mu sync.Mutex
	// touched maps application password ids to when their last use was
	// last written, so that a busy client does not cause a database write
	// on every request.
	touched map[int64]time.Time

	knownMu sync.Mutex
	// known maps logins, as given, to the user and passwords last read
	// for them through a store.UserAppPasswordsStore, with the
	// authentication generation they are of (Authenticate).
	known map[string]store.UserAppPasswords
	// lastRead maps login counter keys to what the last read of their
	// sign-in returned (a request that defers it goes on with it).
	lastRead map[string]signInRead
}

// signInRead is what one read of a sign-in returned: the generations and
// the login counter (store.UserAppPasswordsStore).
type signInRead struct {
	gen     store.Generations
	counter store.LoginCounter
}

// errAuthFailed builds the one error every kind of bad credentials gets.
func errAuthFailed() *Error {
	return &Error{
		Code:    "rest_authentication_failed",
		Message: "The login or application password is incorrect.",
		Status:  http.StatusUnauthorized,
	}
}

// errThrottled builds the error of a pair that must wait d.
func errThrottled(d time.Duration) *Error {
	return &Error{
		Code:       "rest_authentication_throttled",
		Message:    "Too many failed attempts to authenticate. Try again later.",
		Status:     http.StatusTooManyRequests,
		RetryAfter: d,
	}
}

// Authenticate implements Authenticator.
//
// Application passwords are ~143-bit random secrets, so guessing them is
// hopeless and checking one is cheap. Unlike SignIn, Basic authentication
// therefore does not reserve: it reads the (login, address) pair's counter,
// answers 429 without checking when the pair must wait, checks, and
// counts only failures (a success costs no write). It never counts on the
// account or the address, so that nobody elsewhere can make the account's
// own API clients wait.
func (b *BasicAuth) Authenticate(r *http.Request) (*User, error) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return nil, nil
	}
	if len(vals) != 1 {
		return nil, errAuthFailed()
	}
	login, pw, ok := parseBasic(vals[0])
	if !ok {
		return nil, errAuthFailed()
	}
	ctx := r.Context()
	ip := forwarded.ClientIP(r)
	var keys []ThrottleKey
	if b.Throttle != nil {
		keys = []ThrottleKey{pairKey(login, ip)}
	}
	hash := HashAppPassword(pw)
	// A request the server can hold back and run again (a write:
	// store.SignInDeferred) may go on with a kept sign-in and have it
	// checked later; it does so only when what was kept lets it in.
	usr, check, err := b.authenticate(ctx, login, hash, ip, keys, store.SignInDeferred(ctx))
	if check == nil {
		return usr, err
	}
	if usr == nil {
		// Not let in on what was kept: judged on a read.
		usr, _, err = b.authenticate(ctx, login, hash, ip, keys, false)
		return usr, err
	}
	return usr.WithSignInCheck(check), nil
}

// authenticate is Authenticate's check of login's application password
// (hashed: hash) from ip; check is set when it went on with a kept sign-in
// (deferOK) instead of reading it (store.SignInCheck).
func (b *BasicAuth) authenticate(ctx context.Context, login, hash, ip string, keys []ThrottleKey, deferOK bool) (*User, *store.SignInCheck, error) {
	// The pair's counter comes with the user where the store reads both
	// at once; it is checked before the password either way.
	rec, apps, counter, site, check, err := b.lookup(ctx, login, keys, deferOK)
	notFound := errors.Is(err, store.ErrNotFound)
	if err != nil && !notFound {
		return nil, nil, fmt.Errorf("basic auth: %w", err)
	}
	if b.Throttle != nil {
		var d time.Duration
		if counter != nil {
			d = wait([]store.LoginCounter{*counter}, b.Throttle.now())
		} else if d, err = b.Throttle.Check(ctx, keys); err != nil {
			return nil, nil, fmt.Errorf("basic auth: %w", err)
		}
		if d > 0 {
			if check != nil {
				return nil, check, nil // to be read
			}
			return nil, nil, errThrottled(d)
		}
	}
	if notFound {
		return nil, nil, b.failed(ctx, keys)
	}
	var match *store.AppPassword
	for _, p := range apps {
		// Compare against every stored hash so the time taken does not
		// depend on which one matches.
		if subtle.ConstantTimeCompare([]byte(hash), []byte(p.Hash)) == 1 && match == nil {
			match = p
		}
	}
	if match == nil {
		if check != nil {
			return nil, check, nil // to be read: a password may be new
		}
		return nil, nil, b.failed(ctx, keys)
	}
	b.touch(ctx, match, ip)
	usr := NewUser(rec, b.Roles)
	usr.site = site
	return usr, check, nil
}

// failed counts a failure on keys and returns the error of bad
// credentials, or the storage failure.
func (b *BasicAuth) failed(ctx context.Context, keys []ThrottleKey) error {
	if b.Throttle != nil {
		if err := b.Throttle.Fail(ctx, keys); err != nil {
			return fmt.Errorf("basic auth: %w", err)
		}
	}
	return errAuthFailed()
}

// lookup finds the user by login, or by email when login looks like one,
// and the user's application passwords: one read for a login where the
// store loads both at once (store.UserAppPasswordsStore), which also
// reads the counter of the throttle's key (keys[0]) when the throttle
// counts in the same store. counter is nil when it was not read; site is
// the site generation read with the user (store.Generations), 0 when it
// was not.
//
// Such a store also tells the generation of what it read, which every
// change of a user, a role or capability, or an application password
// moves on, in any process (store.UserAppPasswordsStore). The user and
// passwords of a login read once are kept, and while the generation is
// still theirs a request reads only the generation and the counter, in
// one smaller read: a password revoked or a role taken away anywhere
// stops working at the next request, as without keeping them.
//
// With deferOK, where the store checks a sign-in with a write's first
// statement (store.SignInDeferrer), a login kept at the generation the
// last read of its counter returned is not read again: check is then the
// store.SignInCheck the request must pass.
func (b *BasicAuth) lookup(ctx context.Context, login string, keys []ThrottleKey, deferOK bool) (u *store.User, apps []*store.AppPassword, counter *store.LoginCounter, site int64, check *store.SignInCheck, err error) {
	if !plausibleLogin(login) {
		return nil, nil, nil, 0, nil, store.ErrNotFound
	}
	if both, ok := b.Apps.(store.UserAppPasswordsStore); ok {
		key := ""
		if len(keys) == 1 && b.Throttle != nil && sameStore(b.Throttle.Counters, b.Apps) {
			key = keys[0].Name
		}
		var read store.UserAppPasswords
		read, check, err = b.userAppPasswords(ctx, both, login, key, deferOK)
		if err == nil {
			if key != "" {
				counter = &read.Counter
			}
			return cloneUser(read.User), read.Apps, counter, read.Site, check, nil
		}
	} else {
		u, err = b.Users.GetUserByLogin(ctx, login)
	}
	if errors.Is(err, store.ErrNotFound) && strings.Contains(login, "@") {
		u, err = b.Users.GetUserByEmail(ctx, login)
	}
	if err == nil && u == nil {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, nil, nil, 0, nil, fmt.Errorf("load user: %w", err)
	}
	apps, err = b.Apps.ListAppPasswords(ctx, u.ID)
	if err != nil {
		return nil, nil, nil, 0, nil, fmt.Errorf("list application passwords: %w", err)
	}
	return u, apps, nil, 0, nil, nil
}

// userAppPasswords reads what GetUserAppPasswords reads, from what is
// kept of login when its generation is current. With deferOK (lookup) it
// may take the generation from the last read of key instead, and returns
// the check the request must then pass.
func (b *BasicAuth) userAppPasswords(ctx context.Context, st store.UserAppPasswordsStore, login, key string, deferOK bool) (store.UserAppPasswords, *store.SignInCheck, error) {
	b.knownMu.Lock()
	kept, ok := b.known[login]
	last, lastOK := b.lastRead[key]
	b.knownMu.Unlock()
	if ok && deferOK && lastOK && last.gen.Auth == kept.Generation {
		if d, _ := st.(store.SignInDeferrer); d != nil && d.DefersSignIn() {
			kept.Counter, kept.Site = last.counter, last.gen.Site
			check := &store.SignInCheck{Key: key, Gen: last.gen, Counter: last.counter,
				Read: func(ctx context.Context) (store.Generations, store.LoginCounter, error) {
					return b.readSignIn(ctx, st, key)
				}}
			return kept, check, nil
		}
	}
	if ok {
		gen, counter, err := b.readSignIn(ctx, st, key)
		if err != nil {
			return store.UserAppPasswords{}, nil, err
		}
		if gen.Auth == kept.Generation {
			kept.Counter, kept.Site = counter, gen.Site
			return kept, nil, nil
		}
	}
	read, err := st.GetUserAppPasswords(ctx, login, key)
	if err != nil {
		if ok && errors.Is(err, store.ErrNotFound) {
			b.knownMu.Lock()
			if cur, still := b.known[login]; still && cur.Generation == kept.Generation {
				delete(b.known, login)
			}
			b.knownMu.Unlock()
		}
		return store.UserAppPasswords{}, nil, err
	}
	b.remember(key, signInRead{gen: store.Generations{Auth: read.Generation, Site: read.Site}, counter: read.Counter})
	b.knownMu.Lock()
	if b.known == nil {
		b.known = map[string]store.UserAppPasswords{}
	}
	// An older read never replaces a newer one.
	if cur, had := b.known[login]; !had || cur.Generation <= read.Generation {
		if !had && len(b.known) >= knownMax {
			for l := range b.known {
				delete(b.known, l)
				break
			}
		}
		kept := read
		kept.Counter = store.LoginCounter{}
		b.known[login] = kept
	}
	b.knownMu.Unlock()
	return read, nil, nil
}

// readSignIn reads key's sign-in (AuthGeneration) and remembers what it
// returned.
func (b *BasicAuth) readSignIn(ctx context.Context, st store.UserAppPasswordsStore, key string) (store.Generations, store.LoginCounter, error) {
	gen, counter, err := st.AuthGeneration(ctx, key)
	if err == nil {
		b.remember(key, signInRead{gen: gen, counter: counter})
	}
	return gen, counter, err
}

// remember records r as the last read of key's sign-in.
func (b *BasicAuth) remember(key string, r signInRead) {
	b.knownMu.Lock()
	defer b.knownMu.Unlock()
	if b.lastRead == nil {
		b.lastRead = map[string]signInRead{}
	}
	if _, had := b.lastRead[key]; !had && len(b.lastRead) >= lastReadMax {
		for k := range b.lastRead {
			delete(b.lastRead, k)
			break
		}
	}
	b.lastRead[key] = r
}

// cloneUser returns a copy of u that shares nothing with it, so that what
// is kept is never changed through a request's user.
func cloneUser(u *store.User) *store.User {
	c := *u
	c.Roles = slices.Clone(u.Roles)
	c.Caps = maps.Clone(u.Caps)
	return &c
}

// sameStore reports whether a and b are the same store value: a pointer
// (or another comparable value) held by both.
func sameStore(a, b any) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta != nil && ta == tb && ta.Comparable() && a == b
}

// parseBasic splits a Basic Authorization header value into login and
// password; ok is false for any other scheme or a malformed value.
func parseBasic(v string) (login, pw string, ok bool) {
	scheme, rest, found := strings.Cut(strings.TrimSpace(v), " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return "", "", false
	}
	login, pw, found = strings.Cut(string(raw), ":")
	if !found || login == "" || pw == "" {
		return "", "", false
	}
	return login, pw, true
}

func (b *BasicAuth) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// touch records a successful use of p, at most once per touchInterval per
// password (also across nodes, through the stored LastUsed).
func (b *BasicAuth) touch(ctx context.Context, p *store.AppPassword, ip string) {
	now := b.now()
	recent := func(t time.Time) bool {
		d := now.Sub(t)
		return !t.IsZero() && d > -touchInterval && d < touchInterval
	}
	b.mu.Lock()
	if b.touched == nil {
		b.touched = map[int64]time.Time{}
	}
	if recent(b.touched[p.ID]) {
		b.mu.Unlock()
		return
	}
	if recent(p.LastUsed) {
		b.touched[p.ID] = p.LastUsed
		b.mu.Unlock()
		return
	}
	if len(b.touched) >= touchedMax {
		for id, t := range b.touched {
			if !recent(t) {
				delete(b.touched, id)
			}
		}
	}
	// Reserve the slot before writing so concurrent requests write once.
	b.touched[p.ID] = now
	b.mu.Unlock()

	if err := b.Apps.TouchAppPassword(ctx, p.ID, now, ip); err != nil {
		b.mu.Lock()
		if b.touched[p.ID].Equal(now) {
			delete(b.touched, p.ID)
		}
		b.mu.Unlock()
		// A password revoked since it was read (a write that went on
		// with its kept sign-in finds that out only at its check) has no
		// use to record: not a failure.
		if b.Logger != nil && !errors.Is(err, store.ErrNotFound) {
			b.Logger.WarnContext(ctx, "record application password use", "app_password_id", p.ID, "user_id", p.UserID, "err", err)
		}
	}
}
