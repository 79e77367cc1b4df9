package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store/storetest"
)

// The tests in this file check sign-in throttling and the client address
// and scheme behind proxies through the HTTP handler, on the store the
// environment selects (issue #16, items 6 and 7).

// from returns a request modifier that sends the request from addr with
// the given extra headers.
func from(addr string, headers ...string) func(*http.Request) {
	return func(r *http.Request) {
		r.RemoteAddr = addr + ":50000"
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
}

// withDevice adds a device cookie to a request modifier.
func withDevice(c *http.Cookie, mod func(*http.Request)) func(*http.Request) {
	return func(r *http.Request) {
		mod(r)
		r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
}

// freezeClock stops the throttle's clock (shared by the sign-in form
// and Basic authentication) at now, so that waits are exact. Call it
// before any request.
func (l *loginSite) freezeClock(now time.Time) *loginSite {
	l.s.sessions.Throttle.Now = func() time.Time { return now }
	return l
}

// frozenAt is the throttle clock of the tests in this file: a slow run
// (bcrypt under the race detector) must not see a wait run out.
var frozenAt = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

var alertRE = regexp.MustCompile(`role="alert">([^<]*)<`)

// login posts the sign-in form for login and password with mod.
func (l *loginSite) login(login, password string, mod func(*http.Request)) *httptest.ResponseRecorder {
	l.t.Helper()
	return l.req("POST", "/login", "log="+login+"&pwd="+password, mod)
}

func TestLoginThrottledAnswers429WithRetryAfterAndNoHintOfTheLogin(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	var messages []string
	for _, login := range []string{"ed", "ghost"} {
		for i := range auth.ThrottlePair.Free {
			if rec := l.login(login, "nope", from("203.0.113.66")); rec.Code != http.StatusUnauthorized {
				t.Fatalf("%s failure %d: %d", login, i, rec.Code)
			}
		}
		// Even the right password is not checked now.
		rec := l.login(login, "ed-pass", from("203.0.113.66"))
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "30" || len(rec.Result().Cookies()) != 0 {
			t.Fatalf("%s throttled: %d Retry-After %q %v", login, rec.Code, rec.Header().Get("Retry-After"), rec.Result().Cookies())
		}
		m := alertRE.FindStringSubmatch(rec.Body.String())
		if m == nil || !strings.Contains(m[1], "30 seconds") {
			t.Fatalf("%s throttled page: %s", login, rec.Body)
		}
		messages = append(messages, m[1])
	}
	if messages[0] != messages[1] {
		t.Fatalf("messages differ between a login that exists and one that does not: %q", messages)
	}
}

func TestLoginOwnerFromAnotherAddressIsNotLockedOut(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	for range auth.ThrottlePair.Free {
		l.login("ed", "nope", from("203.0.113.66"))
	}
	if rec := l.login("ed", "ed-pass", from("203.0.113.66")); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("attacker's address: %d", rec.Code)
	}
	if rec := l.login("ed", "ed-pass", from("192.0.2.50")); rec.Code != http.StatusFound {
		t.Fatalf("owner from another address: %d %s", rec.Code, rec.Body)
	}
}

func TestLoginOwnersKnownBrowserBehindTheAttackersAddressSignsIn(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	_, device := sessionCookies(l.login("ed", "ed-pass", from("192.0.2.50")))
	if device == nil {
		t.Fatal("no device cookie")
	}
	const shared = "203.0.113.1"
	for range auth.ThrottlePair.Free {
		l.login("ed", "nope", from(shared))
	}
	if rec := l.login("ed", "ed-pass", from(shared)); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("unknown browser behind the address: %d", rec.Code)
	}
	if rec := l.login("ed", "ed-pass", withDevice(device, from(shared))); rec.Code != http.StatusFound {
		t.Fatalf("owner's known browser behind the address: %d %s", rec.Code, rec.Body)
	}
}

func TestLoginParallelWrongPasswordsAreCheckedAtMostTheAllowance(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	counts := parallelWrongPasswords(t, []*loginSite{l}, 30)
	if counts[http.StatusUnauthorized] != int(auth.ThrottlePair.Free) || counts[http.StatusTooManyRequests] != 30-int(auth.ThrottlePair.Free) {
		t.Fatalf("answers %v: want %d checked (401) and the rest 429", counts, auth.ThrottlePair.Free)
	}
}

// parallelWrongPasswords sends n wrong passwords for ed from one address
// at once, spread over the sites (nodes), and counts the answers by
// status.
func parallelWrongPasswords(t *testing.T, sites []*loginSite, n int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := httptest.NewRequest("POST", "/login", strings.NewReader("log=ed&pwd=nope"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			from("203.0.113.77")(r)
			rec := httptest.NewRecorder()
			sites[i%len(sites)].s.Handler().ServeHTTP(rec, r)
			mu.Lock()
			counts[rec.Code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return counts
}

func TestLoginFailuresFromOneAddressForManyAccountsDoNotLockOutOthers(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	for i := range 25 {
		if rec := l.login(fmt.Sprintf("user%d", i), "nope", from("203.0.113.1")); rec.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, rec.Code)
		}
	}
	if rec := l.login("ed", "ed-pass", from("192.0.2.99")); rec.Code != http.StatusFound {
		t.Fatalf("another account's owner from another address: %d", rec.Code)
	}
	if rec := l.login("ed", "ed-pass", from("203.0.113.1")); rec.Code != http.StatusFound {
		t.Fatalf("another account's owner behind the same address: %d", rec.Code)
	}
}

func TestLoginXForwardedForIsIgnoredFromUntrustedPeers(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt) // no trusted proxies
	for i := range auth.ThrottlePair.Free {
		// A new made-up address each time does not make a new pair.
		l.login("ed", "nope", from("203.0.113.66", "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i)))
	}
	if rec := l.login("ed", "ed-pass", from("203.0.113.66", "X-Forwarded-For", "198.51.100.200")); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("spoofed X-Forwarded-For escaped the throttle: %d", rec.Code)
	}
	rec := l.login("ed", "ed-pass", from("192.0.2.50", "X-Forwarded-For", "198.51.100.9"))
	if rec.Code != http.StatusFound {
		t.Fatalf("sign in: %d", rec.Code)
	}
	if ip := l.sessionIP(); ip != "192.0.2.50" {
		t.Fatalf("session address %q, want the connection's", ip)
	}
}

// sessionIP returns the address recorded with ed's latest session.
func (l *loginSite) sessionIP() string {
	l.t.Helper()
	list, err := l.s.Store().ListSessions(context.Background(), l.uid)
	if err != nil || len(list) == 0 {
		l.t.Fatalf("sessions: %v %v", list, err)
	}
	return list[len(list)-1].IP
}

func TestLoginXForwardedForIsHonouredFromTrustedProxies(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) { c.Server.TrustedProxies = []string{"10.0.0.0/8"} }).freezeClock(frozenAt)
	const proxy = "10.0.0.1"
	for range auth.ThrottlePair.Free {
		l.login("ed", "nope", from(proxy, "X-Forwarded-For", "203.0.113.66"))
	}
	if rec := l.login("ed", "ed-pass", from(proxy, "X-Forwarded-For", "203.0.113.66")); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("attacker behind the proxy: %d", rec.Code)
	}
	// The attacker cannot pass as someone else by writing the header
	// himself: the proxy appends his real address.
	if rec := l.login("ed", "ed-pass", from(proxy, "X-Forwarded-For", "198.51.100.5, 203.0.113.66")); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("attacker prepending an address: %d", rec.Code)
	}
	// Everyone behind the proxy is not one client.
	rec := l.login("ed", "ed-pass", from(proxy, "X-Forwarded-For", "198.51.100.5, 10.0.0.7"))
	if rec.Code != http.StatusFound {
		t.Fatalf("owner behind the proxy: %d %s", rec.Code, rec.Body)
	}
	if ip := l.sessionIP(); ip != "198.51.100.5" {
		t.Fatalf("session address %q, want the forwarded client's", ip)
	}
}

func TestSecureCookiesAndLinksBehindATrustedTLSProxy(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) { c.Server.TrustedProxies = []string{"10.0.0.1"} }).freezeClock(frozenAt)
	for _, tc := range []struct {
		name   string
		mod    func(*http.Request)
		secure bool
	}{
		{"trusted proxy terminating TLS", from("10.0.0.1", "X-Forwarded-For", "198.51.100.5", "X-Forwarded-Proto", "https"), true},
		{"trusted proxy over plain HTTP", from("10.0.0.1", "X-Forwarded-For", "198.51.100.5", "X-Forwarded-Proto", "http"), false},
		{"untrusted peer claiming https", from("192.0.2.1", "X-Forwarded-Proto", "https"), false},
	} {
		rec := l.login("ed", "ed-pass", tc.mod)
		session, device := sessionCookies(rec)
		if rec.Code != http.StatusFound || session == nil || session.Secure != tc.secure || device == nil || device.Secure != tc.secure {
			t.Errorf("%s: %d cookies %+v", tc.name, rec.Code, rec.Result().Cookies())
			continue
		}
		scheme := "http"
		if tc.secure {
			scheme = "https"
		}
		signedIn := func(r *http.Request) {
			tc.mod(r)
			r.AddCookie(&http.Cookie{Name: session.Name, Value: session.Value})
		}
		page := l.req("GET", "/", "", signedIn).Body.String()
		if !strings.Contains(page, `"root":"`+scheme+`://example.com/api/"`) {
			t.Errorf("%s: root page settings: %s", tc.name, page)
		}
		var index struct{ URL, Home string }
		if err := json.Unmarshal(l.req("GET", "/api/", "", tc.mod).Body.Bytes(), &index); err != nil || index.URL != scheme+"://example.com" {
			t.Errorf("%s: API index url %q (%v), want %s://example.com", tc.name, index.URL, err, scheme)
		}
		if gone, _ := sessionCookies(l.req("POST", "/logout", "", signedIn)); gone == nil || gone.MaxAge >= 0 || gone.Secure != tc.secure {
			t.Errorf("%s: sign-out cookie %+v", tc.name, gone)
		}
	}
}

func TestLoginThrottleCountersAreSharedByNodesOnOneDatabase(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	nodes := []*loginSite{newLoginSiteOn(t, dbs[0], nil).freezeClock(frozenAt), newLoginSiteOn(t, dbs[1], nil).freezeClock(frozenAt)}
	counts := parallelWrongPasswords(t, nodes, 30)
	if counts[http.StatusUnauthorized] != int(auth.ThrottlePair.Free) || counts[http.StatusTooManyRequests] != 30-int(auth.ThrottlePair.Free) {
		t.Fatalf("two nodes answered %v: want %d checked (401) in all and the rest 429", counts, auth.ThrottlePair.Free)
	}
	for i, n := range nodes {
		if rec := n.login("ed", "ed-pass", from("203.0.113.77")); rec.Code != http.StatusTooManyRequests {
			t.Errorf("node %d, the attacker's address: %d", i, rec.Code)
		}
		if rec := n.login("ed", "ed-pass", from("192.0.2.50")); rec.Code != http.StatusFound {
			t.Errorf("node %d, the owner: %d", i, rec.Code)
		}
	}
}

func TestBasicAuthThrottledWith429AndRetryAfter(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	basic := func(pw, addr string) func(*http.Request) {
		return from(addr, "Authorization", "Basic "+basicCred("ed", pw))
	}
	for range auth.ThrottlePair.Free {
		if rec := l.req("GET", "/api/svc/v2/users/me", "", basic("wrong", "203.0.113.1")); rec.Code != http.StatusUnauthorized {
			t.Fatalf("wrong application password: %d", rec.Code)
		}
	}
	rec := l.req("GET", "/api/svc/v2/users/me", "", basic(l.appPwd, "203.0.113.1"))
	var body struct {
		Code string
		Data struct{ Status int }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusTooManyRequests ||
		body.Code != "rest_authentication_throttled" || body.Data.Status != 429 || rec.Header().Get("Retry-After") != "30" {
		t.Fatalf("throttled Basic: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	// Uploaded files are served after the same authentication.
	if rec := l.req("GET", "/uploads/2026/03/x.png", "", basic(l.appPwd, "203.0.113.1")); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "30" {
		t.Fatalf("throttled Basic on an upload: %d Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := l.req("GET", "/api/svc/v2/users/me", "", basic(l.appPwd, "192.0.2.1")); rec.Code != http.StatusOK {
		t.Fatalf("the account's client at another address: %d %s", rec.Code, rec.Body)
	}
}

func TestCommentAuthorIPAndAppPasswordUseComeFromTheForwardedClient(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, func(c *config.Config) { c.Server.TrustedProxies = []string{"10.0.0.1"} }).freezeClock(frozenAt)
	via := func(headers ...string) func(*http.Request) {
		return from("10.0.0.1", append([]string{"Authorization", "Basic " + basicCred("ed", l.appPwd), "X-Forwarded-For", "198.51.100.23"}, headers...)...)
	}
	rec := l.req("POST", "/api/svc/v2/posts", "title=Hello&status=publish", via())
	var post struct{ ID int64 }
	if err := json.Unmarshal(rec.Body.Bytes(), &post); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("create post: %d %s", rec.Code, rec.Body)
	}
	rec = l.req("POST", "/api/svc/v2/comments", fmt.Sprintf("post=%d&content=Nice", post.ID), via())
	var comment struct{ ID int64 }
	if err := json.Unmarshal(rec.Body.Bytes(), &comment); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("create comment: %d %s", rec.Code, rec.Body)
	}
	rec = l.req("GET", fmt.Sprintf("/api/svc/v2/comments/%d?context=edit", comment.ID), "", via())
	var got struct {
		AuthorIP string `json:"author_ip"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.AuthorIP != "198.51.100.23" {
		t.Fatalf("author_ip = %q (%v), want the forwarded client", got.AuthorIP, err)
	}
	apps, err := l.s.Store().ListAppPasswords(context.Background(), l.uid)
	if err != nil || len(apps) != 1 || apps[0].LastIP != "198.51.100.23" {
		t.Fatalf("application password last address: %+v %v", apps, err)
	}
}

func TestLoginAndBasicWithNULOrInvalidUTF8LoginsAreRefusedNotErrors(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil).freezeClock(frozenAt)
	for _, login := range []string{"ed%00", "%ff%fe", "e%00d@example.com", strings.Repeat("x", 300)} {
		if rec := l.login(login, "ed-pass", from("192.0.2.60")); rec.Code != http.StatusUnauthorized {
			t.Errorf("sign in as %q: %d", login, rec.Code)
		}
	}
	for _, login := range []string{"ed\x00", "\xff\xfe", strings.Repeat("x", 300)} {
		rec := l.req("GET", "/api/svc/v2/users/me", "", from("192.0.2.61", "Authorization", "Basic "+basicCred(login, l.appPwd)))
		if rec.Code != http.StatusUnauthorized || errorCode(t, rec) != "rest_authentication_failed" {
			t.Errorf("Basic as %q: %d %s", login, rec.Code, rec.Body)
		}
	}
}
