// Package ratelimit holds the API's rate limits: token buckets per client
// address (anonymous callers) and per user (signed-in callers), with a
// separate budget for reads, writes, searches and uploads.
//
// The buckets live in memory (Memory, for a single node) or in the store
// (Shared, so that every node on one PostgreSQL database takes from the
// same buckets). Limiter chooses the bucket and the budget of a request.
package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// Class is a kind of API request; each has its own budget.
type Class int

// The classes of requests.
const (
	// Read is a GET, HEAD or OPTIONS request that is not a search.
	Read Class = iota
	// Write is any other method (POST, PUT, PATCH, DELETE), batches
	// included, that is not an upload.
	Write
	// Search is a read with a search argument, or of the search route.
	Search
	// Upload is a write to a route that takes a file (media).
	Upload
	numClasses
)

// String returns the class's name, as used in keys and the config file.
func (c Class) String() string {
	switch c {
	case Read:
		return "read"
	case Write:
		return "write"
	case Search:
		return "search"
	case Upload:
		return "upload"
	}
	return "class" + strconv.Itoa(int(c))
}

// Rule is the budget of one bucket: Rate tokens a second come back, up to
// Burst tokens are kept. A request takes one token.
type Rule struct {
	Rate  float64
	Burst int
}

// Interval returns the time one token takes to come back.
func (r Rule) Interval() time.Duration {
	if r.Rate <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(float64(time.Second) / r.Rate)
}

// Budgets holds the rule of each class.
type Budgets struct {
	Read, Write, Search, Upload Rule
}

// Rule returns the rule of class c.
func (b Budgets) Rule(c Class) Rule {
	switch c {
	case Write:
		return b.Write
	case Search:
		return b.Search
	case Upload:
		return b.Upload
	}
	return b.Read
}

// Buckets takes tokens from buckets named by key.
type Buckets interface {
	// Take takes one token from the bucket key under rule at now. It
	// returns 0 when it did, else how long until a token comes back
	// (nothing is taken then).
	Take(ctx context.Context, key string, rule Rule, now time.Time) (time.Duration, error)
}

// Shared keeps the buckets in the store, so that every node using the
// database takes from the same ones. Each take is one write; idle buckets
// are removed by the retention passes (package retention).
type Shared struct {
	Store store.RateLimitStore
}

var _ Buckets = Shared{}

// Take takes a token from the stored bucket key.
func (s Shared) Take(ctx context.Context, key string, rule Rule, now time.Time) (time.Duration, error) {
	d, err := s.Store.TakeRateToken(ctx, key, now, rule.Interval(), rule.Burst)
	if err != nil {
		return 0, fmt.Errorf("rate limit: %w", err)
	}
	return d, nil
}

// Limiter decides whether a request may be served now.
type Limiter struct {
	// Anonymous are the budgets of each client address without a
	// signed-in user (an IPv6 client's /64); User those of each user.
	Anonymous, User Budgets
	// Buckets keeps the buckets.
	Buckets Buckets
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures to take a token; the request is then
	// served (a limit never turns a store hiccup into refusals).
	Logger *slog.Logger
}

func (l *Limiter) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Allow takes a token for a request of class c from user uid (0:
// anonymous) at client address ip. It returns 0 when the request may be
// served, else how long the caller should wait.
func (l *Limiter) Allow(ctx context.Context, c Class, uid int64, ip string) time.Duration {
	var key string
	var rule Rule
	if uid > 0 {
		key, rule = c.String()+":u:"+strconv.FormatInt(uid, 10), l.User.Rule(c)
	} else {
		key, rule = c.String()+":ip:"+addressKey(ip), l.Anonymous.Rule(c)
	}
	if rule.Rate <= 0 {
		return 0
	}
	d, err := l.Buckets.Take(ctx, key, rule, l.now())
	if err != nil {
		if l.Logger != nil {
			l.Logger.Warn("rate limit not applied", "err", err)
		}
		return 0
	}
	return d
}

// addressKey names a client address in keys: a hash of the address, or
// of its /64 for IPv6 (one subscriber usually holds a whole /64), so that
// the store does not keep addresses.
func addressKey(ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil {
		a = a.Unmap().WithZone("")
		if a.Is6() {
			p, _ := a.Prefix(64)
			ip = p.String()
		} else {
			ip = a.String()
		}
	}
	h := sha256.Sum256([]byte(ip))
	return hex.EncodeToString(h[:12])
}
