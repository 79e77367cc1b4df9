package ratelimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys is Memory.MaxKeys when unset: about 100 bytes each, the
// buckets then take some 10 MB at most.
const DefaultMaxKeys = 100_000

// sweepInterval is how often at most Memory forgets idle buckets.
const sweepInterval = time.Minute

// Memory keeps the buckets in this process's memory, for a single node.
// Its memory is bounded: a bucket that has been idle long enough to be
// full again is forgotten (nothing changes: a new one starts full), and
// when MaxKeys buckets are in use the oldest-idle are forgotten first.
type Memory struct {
	// MaxKeys bounds how many buckets are kept; 0 means DefaultMaxKeys.
	MaxKeys int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	full time.Duration // time from empty to full
	last time.Time
}

var _ Buckets = (*Memory)(nil)

// Take takes a token from the bucket key at now.
func (m *Memory) Take(_ context.Context, key string, rule Rule, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.buckets == nil {
		m.buckets = map[string]*bucket{}
	}
	if now.Sub(m.lastSweep) >= sweepInterval {
		m.sweep(now, false)
	}
	b := m.buckets[key]
	if b == nil {
		if len(m.buckets) >= m.maxKeys() {
			m.sweep(now, true)
		}
		burst := max(rule.Burst, 1)
		b = &bucket{lim: rate.NewLimiter(rate.Limit(rule.Rate), burst), full: time.Duration(burst) * rule.Interval()}
		m.buckets[key] = b
	}
	b.last = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return rule.Interval(), nil
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, nil
	}
	return 0, nil
}

// Len returns how many buckets are kept.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.buckets)
}

func (m *Memory) maxKeys() int {
	if m.MaxKeys > 0 {
		return m.MaxKeys
	}
	return DefaultMaxKeys
}

// sweep forgets the buckets full again at now; with crowded set and still
// MaxKeys of them, it also forgets the idlest until a quarter is free.
func (m *Memory) sweep(now time.Time, crowded bool) {
	m.lastSweep = now
	var oldest time.Time
	for k, b := range m.buckets {
		if now.Sub(b.last) >= b.full {
			delete(m.buckets, k)
		} else if oldest.IsZero() || b.last.Before(oldest) {
			oldest = b.last
		}
	}
	if !crowded || len(m.buckets) < m.maxKeys() {
		return
	}
	// Forget those idle for more than a half, then a quarter, ... of the
	// time since the idlest was last used, until enough are gone.
	target := m.maxKeys() * 3 / 4
	for span := now.Sub(oldest) / 2; len(m.buckets) > target; span /= 2 {
		for k, b := range m.buckets {
			if now.Sub(b.last) >= span {
				delete(m.buckets, k)
			}
		}
		if span == 0 {
			break
		}
	}
}
