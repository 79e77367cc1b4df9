package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// clock is a test clock moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time             { return c.t }
func (c *clock) add(d time.Duration)        { c.t = c.t.Add(d) }
func newClock() *clock                      { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func rules(r Rule) Budgets                  { return Budgets{Read: r, Write: r, Search: r, Upload: r} }
func (l *Limiter) allowAnon(ip string) bool { return l.Allow(context.Background(), Read, 0, ip) == 0 }

// TestMemoryBucketAllowsBurstThenRate checks the in-memory token bucket:
// the burst at once, then one request per interval, a refusal saying how
// long to wait.
func TestMemoryBucketAllowsBurstThenRate(t *testing.T) {
	t.Parallel()
	c := newClock()
	m := &Memory{}
	r := Rule{Rate: 10, Burst: 5}
	for i := range 5 {
		if d, _ := m.Take(context.Background(), "k", r, c.now()); d != 0 {
			t.Fatalf("take %d refused: %v", i, d)
		}
	}
	if d, _ := m.Take(context.Background(), "k", r, c.now()); d != 100*time.Millisecond {
		t.Fatalf("sixth take: wait %v", d)
	}
	c.add(50 * time.Millisecond)
	if d, _ := m.Take(context.Background(), "k", r, c.now()); d != 50*time.Millisecond {
		t.Fatalf("half an interval later: wait %v", d)
	}
	c.add(50 * time.Millisecond)
	if d, _ := m.Take(context.Background(), "k", r, c.now()); d != 0 {
		t.Fatalf("an interval later: wait %v", d)
	}
}

// TestMemoryForgetsIdleBucketsAndStaysBounded checks the memory bound:
// buckets full again are forgotten, and never more than MaxKeys are kept
// even under a flood of new addresses.
func TestMemoryForgetsIdleBucketsAndStaysBounded(t *testing.T) {
	t.Parallel()
	c := newClock()
	m := &Memory{MaxKeys: 100}
	r := Rule{Rate: 1, Burst: 10}
	for i := range 1000 {
		if _, err := m.Take(context.Background(), strconv.Itoa(i), r, c.now()); err != nil {
			t.Fatal(err)
		}
		c.add(time.Millisecond)
		if m.Len() > 100 {
			t.Fatalf("%d buckets kept after %d keys", m.Len(), i+1)
		}
	}
	// Ten seconds later every bucket is full again: the next sweep, at
	// most a minute after the last, forgets them all.
	c.add(sweepInterval)
	_, _ = m.Take(context.Background(), "new", r, c.now())
	if m.Len() != 1 {
		t.Fatalf("%d buckets kept after all went idle", m.Len())
	}
}

// TestLimiterKeysByClassUserAndAddress checks which bucket a request
// takes from: one per class, per signed-in user, per anonymous address
// (an IPv6 client's /64 counting as one), and that a zero rate is no
// limit.
func TestLimiterKeysByClassUserAndAddress(t *testing.T) {
	t.Parallel()
	c := newClock()
	l := &Limiter{Anonymous: rules(Rule{Rate: 1, Burst: 1}), User: rules(Rule{Rate: 1, Burst: 1}), Buckets: &Memory{}, Now: c.now}
	ctx := context.Background()
	if !l.allowAnon("192.0.2.1") || l.allowAnon("192.0.2.1") {
		t.Fatal("one address: want the first allowed, the second refused")
	}
	if !l.allowAnon("192.0.2.2") {
		t.Fatal("another address was refused")
	}
	if !l.allowAnon("2001:db8::1") || l.allowAnon("2001:db8::2") {
		t.Fatal("one IPv6 /64: want one bucket")
	}
	if !l.allowAnon("2001:db8:0:1::1") {
		t.Fatal("another /64 was refused")
	}
	for _, cl := range []Class{Write, Search, Upload} {
		if l.Allow(ctx, cl, 0, "192.0.2.1") != 0 {
			t.Fatalf("%s shares the read budget", cl)
		}
	}
	if l.Allow(ctx, Read, 7, "192.0.2.1") != 0 || l.Allow(ctx, Read, 7, "198.51.100.1") == 0 {
		t.Fatal("a user's budget: want the first allowed, the second refused from any address")
	}
	if l.Allow(ctx, Read, 8, "192.0.2.1") != 0 {
		t.Fatal("another user was refused")
	}
	c.add(time.Second)
	if !l.allowAnon("192.0.2.1") {
		t.Fatal("a second later the token did not come back")
	}
	l.Anonymous.Read = Rule{}
	for range 5 {
		if !l.allowAnon("192.0.2.9") {
			t.Fatal("a zero rate limited")
		}
	}
}

// BenchmarkLimiterMemory measures one in-memory take, what each API
// request costs on SQLite.
func BenchmarkLimiterMemory(b *testing.B) {
	l := &Limiter{Anonymous: rules(Rule{Rate: 1e9, Burst: 1000}), Buckets: &Memory{}}
	ctx := context.Background()
	ips := make([]string, 256)
	for i := range ips {
		ips[i] = "192.0.2." + strconv.Itoa(i)
	}
	i := 0
	for b.Loop() {
		i++
		l.Allow(ctx, Read, 0, ips[i%len(ips)])
	}
}
