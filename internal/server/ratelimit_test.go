package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store/storetest"
)

// tinyRates sets budgets of burst tokens that come back once every 1000
// seconds, so that a test's requests never see one come back.
func tinyRates(burst int) func(*config.Config) {
	r := config.Rate{Rate: 0.001, Burst: burst}
	b := config.RateBudgets{Read: r, Write: r, Search: r, Upload: r}
	return func(c *config.Config) {
		c.Limits.Anonymous = b
		c.Limits.User = b
	}
}

// TestRateLimitsAnswer429WithRetryAfter checks the API rate limits: past
// its burst a caller gets 429 rest_too_many_requests with Retry-After;
// reads, searches and writes have separate budgets; a signed-in user has
// a budget of their own, apart from their address's; other addresses
// (through a trusted proxy) have their own; pages outside the API are not
// counted.
func TestRateLimitsAnswer429WithRetryAfter(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) {
		tinyRates(3)(c)
		c.Server.TrustedProxies = []string{"192.0.2.0/24"}
	})
	from := func(ip string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("X-Forwarded-For", ip) }
	}
	get := func(target string, mod func(*http.Request)) int {
		return l.req("GET", target, "", mod).Code
	}
	for i := range 3 {
		if c := get("/api/svc/v2/posts", nil); c != 200 {
			t.Fatalf("read %d: %d", i, c)
		}
	}
	rec := l.req("GET", "/api/svc/v2/posts", "", nil)
	if rec.Code != http.StatusTooManyRequests || errorCode(t, rec) != "rest_too_many_requests" {
		t.Fatalf("fourth read: %d %s", rec.Code, rec.Body)
	}
	if ra, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || ra < 900 || ra > 1000 {
		t.Fatalf("Retry-After %q", rec.Header().Get("Retry-After"))
	}
	if body := rec.Body.String(); !strings.Contains(body, `"status":429`) {
		t.Fatalf("error body %s", body)
	}
	// Searches have a budget of their own.
	for i := range 3 {
		if c := get("/api/svc/v2/posts?search=x", nil); c != 200 {
			t.Fatalf("search %d: %d", i, c)
		}
	}
	if c := get("/api/svc/v2/search?search=x", nil); c != http.StatusTooManyRequests {
		t.Fatalf("fourth search: %d", c)
	}
	// Another client address behind the trusted proxy has its own.
	if c := get("/api/svc/v2/posts", from("203.0.113.7")); c != 200 {
		t.Fatalf("read from another address: %d", c)
	}
	// A signed-in user has their own budget, from the same address.
	basic := func(r *http.Request) { r.SetBasicAuth("ed", l.appPwd) }
	for i := range 3 {
		if c := get("/api/svc/v2/posts?context=edit", basic); c != 200 {
			t.Fatalf("signed-in read %d: %d", i, c)
		}
	}
	if c := get("/api/svc/v2/posts?context=edit", basic); c != http.StatusTooManyRequests {
		t.Fatalf("fourth signed-in read: %d", c)
	}
	// Writes are counted apart from reads.
	for i := range 3 {
		rec := l.req("POST", "/api/svc/v2/posts", `title=t`, basic)
		if rec.Code != http.StatusCreated {
			t.Fatalf("write %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if rec := l.req("POST", "/api/svc/v2/posts", `title=t`, basic); rec.Code != http.StatusTooManyRequests || errorCode(t, rec) != "rest_too_many_requests" {
		t.Fatalf("fourth write: %d %s", rec.Code, rec.Body)
	}
	// The login page is not an API request.
	if c := get("/login", nil); c != 200 {
		t.Fatalf("login page: %d", c)
	}
	// Each refusal is counted by budget for the operator.
	want := map[string]float64{"read": 2, "search": 1, "write": 1}
	got := map[string]float64{}
	families, err := l.s.metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "folio_rate_limited_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("folio_rate_limited_total = %v, want %v", got, want)
	}
}

// TestRateLimitsCanBeTurnedOff checks limits.rate_limits = false.
func TestRateLimitsCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	off := false
	l := newLoginSite(t, func(c *config.Config) {
		tinyRates(1)(c)
		c.Limits.RateLimits = &off
	})
	for i := range 5 {
		if c := l.req("GET", "/api/svc/v2/posts", "", nil).Code; c != 200 {
			t.Fatalf("read %d: %d", i, c)
		}
	}
}

// TestRateLimitsAreOneBudgetAcrossNodes checks that two nodes on one
// PostgreSQL database enforce one budget, and that rate_per_node gives
// each node its own.
func TestRateLimitsAreOneBudgetAcrossNodes(t *testing.T) {
	t.Parallel()
	if storetest.Backend() != "postgres" {
		t.Skip("a SQLite site is one node; " + storetest.SkipReason())
	}
	for _, perNode := range []bool{false, true} {
		t.Run("per_node="+strconv.FormatBool(perNode), func(t *testing.T) {
			dbs := storetest.OpenN(t, 2)
			mod := func(c *config.Config) {
				tinyRates(4)(c)
				c.Limits.RatePerNode = perNode
			}
			a, b := newLoginSiteOn(t, dbs[0], mod), newLoginSiteOn(t, dbs[1], mod)
			ok := 0
			for i := range 8 {
				n := a
				if i%2 == 1 {
					n = b
				}
				switch c := n.req("GET", "/api/svc/v2/posts?search=q", "", nil).Code; c {
				case 200:
					ok++
				case http.StatusTooManyRequests:
				default:
					t.Fatalf("request %d: %d", i, c)
				}
			}
			want := 4
			if perNode {
				want = 8
			}
			if ok != want {
				t.Fatalf("%d of 8 requests over two nodes served, want %d", ok, want)
			}
		})
	}
}
