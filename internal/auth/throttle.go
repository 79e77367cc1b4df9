package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// ThrottleRule is how one kind of counter slows password guessing. The
// counter is a leaky bucket: each attempt adds one, and one is forgotten
// every Leak. Up to Free counted attempts cost no wait; past them the next
// attempt must wait Base, and each further one twice as long as the one
// before, up to Max. Delays slow guessing down; they never lock an account.
type ThrottleRule struct {
	Free int64
	Base time.Duration
	Max  time.Duration
	Leak time.Duration
}

// Delay returns how long the next attempt must wait after the attempt
// that brought the counter to n.
func (r ThrottleRule) Delay(n int64) time.Duration {
	if n < r.Free {
		return 0
	}
	d := r.Base
	for i := r.Free; i < n && d < r.Max; i++ {
		d *= 2
	}
	return min(d, r.Max)
}

// The throttling rules (docs/security-throttling.md explains them).
var (
	// ThrottlePair counts the attempts on one account from one client
	// address (an IPv6 client's /64), or from one known browser (device
	// cookie): 5 free, then 30 s, 1 min, 2 min, ... up to 15 min; one
	// attempt forgotten every 15 min.
	ThrottlePair = ThrottleRule{Free: 5, Base: 30 * time.Second, Max: 15 * time.Minute, Leak: 15 * time.Minute}
	// ThrottleAccount counts the attempts on one account from browsers
	// it does not know, whatever their address: 20 free, then 1 s, 2 s,
	// 4 s, ... up to 15 min; one forgotten every 10 min, faster than one
	// address can add them past its pair's allowance (4 an hour), so
	// that one address alone never slows the account down.
	ThrottleAccount = ThrottleRule{Free: 20, Base: time.Second, Max: 15 * time.Minute, Leak: 10 * time.Minute}
	// ThrottleAddress counts the attempts from one client address on any
	// account from browsers those accounts do not know: 50 free, then
	// 1 s, 2 s, 4 s, ... up to 5 min; one forgotten every 5 min. Many
	// people may share an address, so its cap is lower.
	ThrottleAddress = ThrottleRule{Free: 50, Base: time.Second, Max: 5 * time.Minute, Leak: 5 * time.Minute}
)

// ThrottlePruneAge is how long a counter that has not changed is kept: by
// then every counter has leaked empty (no counter grows past about 60).
const ThrottlePruneAge = 24 * time.Hour

// throttlePruneInterval is how often at most one Throttle removes old
// counters.
const throttlePruneInterval = 10 * time.Minute

// ErrLoginThrottled is matched (errors.Is) by a *ThrottledError.
var ErrLoginThrottled = errors.New("too many failed sign-in attempts; try again later")

// ThrottledError is returned when an attempt must wait: the password was
// not checked. It says nothing about whether the login exists.
type ThrottledError struct {
	// RetryAfter is how long the client must wait, in whole seconds
	// (at least one).
	RetryAfter time.Duration
}

// Error returns the message of ErrLoginThrottled.
func (e *ThrottledError) Error() string { return ErrLoginThrottled.Error() }

// Is makes errors.Is(err, ErrLoginThrottled) true.
func (e *ThrottledError) Is(target error) bool { return target == ErrLoginThrottled }

// RetryAfterSeconds returns RetryAfter in whole seconds, at least 1.
func (e *ThrottledError) RetryAfterSeconds() int {
	return max(1, int((e.RetryAfter+time.Second-1)/time.Second))
}

// release says what a proven-good attempt does to a counter.
type release int

const (
	// releaseClear forgets the counter: the pair proved it knows the
	// password.
	releaseClear release = iota
	// releaseOne takes back the attempt's own count and leaves the others'
	// (an attacker's failures on the account stay counted).
	releaseOne
)

// ThrottleKey is one counter an attempt is counted on.
type ThrottleKey struct {
	Name    string
	Rule    ThrottleRule
	release release
}

// keyName hashes the parts of a counter's key, so that the store holds
// neither logins as typed (sometimes a password typed in the wrong field)
// nor addresses.
func keyName(kind string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return kind + ":" + hex.EncodeToString(h.Sum(nil)[:16])
}

// loginIdent is the account part of the keys: the login or email as
// typed, trimmed and lower-cased. It is not resolved to the user, so that
// the counters behave the same for logins that do not exist and do not
// reveal which email belongs to which login.
func loginIdent(login string) string {
	return strings.ToLower(strings.TrimSpace(login))
}

// addressKey is the part of the keys that names a client address: the
// address, or its /64 for IPv6 (one subscriber usually holds a whole /64).
func addressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// pairKey is the counter of one account from one client address.
func pairKey(login, ip string) ThrottleKey {
	return ThrottleKey{Name: keyName("pair", loginIdent(login), addressKey(ip)), Rule: ThrottlePair, release: releaseClear}
}

// untrustedKeys are the counters of an attempt from a browser the account
// does not know: the pair, the account and the address.
func untrustedKeys(login, ip string) []ThrottleKey {
	return []ThrottleKey{
		pairKey(login, ip),
		{Name: keyName("acct", loginIdent(login)), Rule: ThrottleAccount, release: releaseOne},
		{Name: keyName("addr", addressKey(ip)), Rule: ThrottleAddress, release: releaseOne},
	}
}

// deviceKeys is the counter of an attempt from a known browser of user
// uid: that browser alone.
func deviceKeys(uid int64, device string) []ThrottleKey {
	return []ThrottleKey{{Name: keyName("dev", strconv.FormatInt(uid, 10), device), Rule: ThrottlePair, release: releaseClear}}
}

// Throttle slows password guessing with counters kept in the store, so
// that every node sharing the database counts the same attempts.
//
// Reserve counts an attempt before the password is checked, in one locked
// read-modify-write of its counters: of any number of concurrent attempts,
// on any node, only those the rules allow are checked. Succeeded takes
// back a proven-good attempt.
type Throttle struct {
	Counters store.SessionStore
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger, when set, receives failures to remove old counters
	// (which do not fail the attempt).
	Logger *slog.Logger
	// lastPrune is when old counters were last removed (Unix
	// seconds).
	lastPrune atomic.Int64
}

func (t *Throttle) now() time.Time {
	if t.Now != nil {
		return t.Now().UTC()
	}
	return time.Now().UTC()
}

func names(keys []ThrottleKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name
	}
	return out
}

// leak returns c at now under rule: the attempts forgotten since c.Last,
// one per rule.Leak, taken away, and Last moved on by as many leaks. An
// empty counter has only its Key.
func leak(c store.LoginCounter, rule ThrottleRule, now time.Time) store.LoginCounter {
	if c.Failures <= 0 {
		return store.LoginCounter{Key: c.Key, Next: c.Next}
	}
	if rule.Leak <= 0 || !now.After(c.Last) {
		return c
	}
	n := int64(now.Sub(c.Last) / rule.Leak)
	if n >= c.Failures {
		return store.LoginCounter{Key: c.Key, Next: c.Next}
	}
	c.Failures -= n
	c.Last = c.Last.Add(time.Duration(n) * rule.Leak)
	return c
}

// wait returns how long an attempt must wait before every counter lets it
// through (0: at once).
func wait(cur []store.LoginCounter, now time.Time) time.Duration {
	var d time.Duration
	for _, c := range cur {
		if now.Before(c.Next) {
			d = max(d, c.Next.Sub(now))
		}
	}
	return d
}

// count adds one attempt at now to c under rule.
func count(c store.LoginCounter, rule ThrottleRule, now time.Time) store.LoginCounter {
	c = leak(c, rule, now)
	if c.Failures == 0 {
		// The leak clock starts with the first attempt.
		c.Last = now.Truncate(time.Second)
	}
	c.Failures++
	c.Next = time.Time{}
	if d := rule.Delay(c.Failures); d > 0 {
		// The store keeps whole seconds: the wait may end up to a second
		// early, never late, and Retry-After says the delay itself.
		c.Next = now.Add(d).Truncate(time.Second)
	}
	return c
}

// Check returns how long an attempt counted on keys must wait (0: it may
// be made now), reading the counters without counting.
func (t *Throttle) Check(ctx context.Context, keys []ThrottleKey) (time.Duration, error) {
	cur, err := t.Counters.LoginCounters(ctx, names(keys))
	if err != nil {
		return 0, fmt.Errorf("throttle: %w", err)
	}
	return wait(cur, t.now()), nil
}

// Reserve counts an attempt on keys before its password is checked. When
// any counter says the attempt must wait, nothing is counted and a
// *ThrottledError says how long. The check and the count are one atomic
// update of the counters in the store.
func (t *Throttle) Reserve(ctx context.Context, keys []ThrottleKey) error {
	now := t.now()
	t.prune(ctx, now)
	// A cheap read first, so that a flood of attempts that must wait
	// costs no write.
	if d, err := t.Check(ctx, keys); err != nil {
		return err
	} else if d > 0 {
		return &ThrottledError{RetryAfter: d}
	}
	var waitFor time.Duration
	err := t.Counters.UpdateLoginCounters(ctx, names(keys), func(cur []store.LoginCounter) []store.LoginCounter {
		if waitFor = wait(cur, now); waitFor > 0 {
			return nil
		}
		out := make([]store.LoginCounter, len(cur))
		for i, c := range cur {
			out[i] = count(c, keys[i].Rule, now)
		}
		return out
	})
	if err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	if waitFor > 0 {
		return &ThrottledError{RetryAfter: waitFor}
	}
	return nil
}

// Fail counts a failed attempt on keys that was not reserved (Basic
// authentication, which checks before it counts).
func (t *Throttle) Fail(ctx context.Context, keys []ThrottleKey) error {
	now := t.now()
	err := t.Counters.UpdateLoginCounters(ctx, names(keys), func(cur []store.LoginCounter) []store.LoginCounter {
		out := make([]store.LoginCounter, len(cur))
		for i, c := range cur {
			out[i] = count(c, keys[i].Rule, now)
		}
		return out
	})
	if err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	return nil
}

// Succeeded takes back a reserved attempt whose password was right: the
// pair's (or the browser's) counter is cleared, the account's and the
// address's lose the attempt's own count (a wait already set stays).
func (t *Throttle) Succeeded(ctx context.Context, keys []ThrottleKey) error {
	now := t.now()
	err := t.Counters.UpdateLoginCounters(ctx, names(keys), func(cur []store.LoginCounter) []store.LoginCounter {
		out := make([]store.LoginCounter, len(cur))
		for i, c := range cur {
			c = leak(c, keys[i].Rule, now)
			if keys[i].release == releaseClear || c.Failures <= 1 {
				out[i] = store.LoginCounter{Key: c.Key}
				continue
			}
			c.Failures--
			if c.Failures < keys[i].Rule.Free {
				c.Next = time.Time{}
			}
			out[i] = c
		}
		return out
	})
	if err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	return nil
}

// prune removes counters unchanged for ThrottlePruneAge, at most once per
// throttlePruneInterval per Throttle. A failure is left for the next
// time: empty counters are harmless.
func (t *Throttle) prune(ctx context.Context, now time.Time) {
	last := t.lastPrune.Load()
	if now.Unix()-last < int64(throttlePruneInterval/time.Second) || !t.lastPrune.CompareAndSwap(last, now.Unix()) {
		return
	}
	if _, err := t.Counters.DeleteLoginCounters(ctx, now.Add(-ThrottlePruneAge)); err != nil && t.Logger != nil {
		t.Logger.Warn("remove old sign-in counters", "err", err)
	}
}
