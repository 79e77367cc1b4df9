package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlite"
)

// sessionEnv is a SessionAuth over a fresh database with one user "ada"
// (password "secret") and an adjustable clock.
type sessionEnv struct {
	a   *SessionAuth
	db  *sqlite.DB
	now time.Time
	uid int64
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	hash, err := HashPassword("secret")
	if err != nil {
		t.Fatal(err)
	}
	u := &store.User{Login: "ada", Email: "ada@example.com", Nicename: "ada", PassHash: hash, Roles: []string{"editor"}}
	if err := db.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	e := &sessionEnv{db: db, now: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), uid: u.ID}
	nonces := NewNonces([]byte("0123456789abcdef0123456789abcdef"))
	nonces.Now = func() time.Time { return e.now }
	e.a = &SessionAuth{Sessions: db, Users: db, Nonces: nonces, NonceHeader: "X-API-Nonce", NonceParam: "_wpnonce", Now: func() time.Time { return e.now }}
	return e
}

func (e *sessionEnv) request(token string, mod func(*http.Request)) *http.Request {
	r := httptest.NewRequest("GET", "/api/svc/v2/users/me", nil)
	if token != "" {
		r.AddCookie(&http.Cookie{Name: DefaultSessionCookie, Value: token})
	}
	if mod != nil {
		mod(r)
	}
	return r
}

func TestSignInStoresOnlyTheTokenHash(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	ctx := context.Background()
	token, s, err := e.a.SignIn(ctx, "ada", "secret", "10.0.0.1", "test-agent", false)
	if err != nil {
		t.Fatal(err)
	}
	if s.TokenHash == token || s.TokenHash != HashSessionToken(token) {
		t.Fatalf("stored hash %q for token %q", s.TokenHash, token)
	}
	list, err := e.db.ListSessions(ctx, e.uid)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions = %v, %v; want one", list, err)
	}
	if got := list[0]; got.IP != "10.0.0.1" || got.UserAgent != "test-agent" || !got.Expires.Equal(e.now.Add(DefaultSessionLifetime)) {
		t.Errorf("session = %+v", got)
	}
	// Email works as the login too.
	if _, _, err := e.a.SignIn(ctx, "ADA@example.com", "secret", "10.0.0.1", "", true); err != nil {
		t.Errorf("sign in by email: %v", err)
	}
}

func TestSignInFailureDoesNotRevealTheLogin(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	ctx := context.Background()
	_, _, errWrongPass := e.a.SignIn(ctx, "ada", "nope", "10.0.0.1", "", false)
	_, _, errNoUser := e.a.SignIn(ctx, "nobody", "nope", "10.0.0.1", "", false)
	_, _, errEmpty := e.a.SignIn(ctx, "ada", "", "10.0.0.1", "", false)
	for _, err := range []error{errWrongPass, errNoUser, errEmpty} {
		if !errors.Is(err, ErrLoginFailed) {
			t.Errorf("err = %v, want ErrLoginFailed", err)
		}
	}
}

func TestSignInThrottledPerAccount(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	ctx := context.Background()
	for i := 0; i < ThrottleAccountMax; i++ {
		// Different addresses: only the account counter can trip.
		if _, _, err := e.a.SignIn(ctx, "ada", "wrong", "10.0.1."+string(rune('0'+i)), "", false); !errors.Is(err, ErrLoginFailed) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if _, _, err := e.a.SignIn(ctx, "ada", "secret", "10.0.2.1", "", false); !errors.Is(err, ErrLoginThrottled) {
		t.Fatalf("right password while throttled: %v, want ErrLoginThrottled", err)
	}
	// Unknown logins are throttled the same way, so the throttle does not
	// reveal which logins exist.
	for i := 0; i < ThrottleAccountMax; i++ {
		e.a.SignIn(ctx, "ghost", "wrong", "10.0.3."+string(rune('0'+i)), "", false)
	}
	if _, _, err := e.a.SignIn(ctx, "ghost", "x", "10.0.4.1", "", false); !errors.Is(err, ErrLoginThrottled) {
		t.Fatalf("unknown login: %v, want ErrLoginThrottled", err)
	}
	// The window moves on.
	e.now = e.now.Add(ThrottleWindow + time.Second)
	if _, _, err := e.a.SignIn(ctx, "ada", "secret", "10.0.2.1", "", false); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestSignInThrottledPerAddress(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	ctx := context.Background()
	for i := 0; i < ThrottleIPMax; i++ {
		e.a.SignIn(ctx, "user"+string(rune('a'+i)), "wrong", "10.9.9.9", "", false)
	}
	if _, _, err := e.a.SignIn(ctx, "ada", "secret", "10.9.9.9", "", false); !errors.Is(err, ErrLoginThrottled) {
		t.Fatalf("err = %v, want ErrLoginThrottled", err)
	}
	if _, _, err := e.a.SignIn(ctx, "ada", "secret", "10.9.9.10", "", false); err != nil {
		t.Fatalf("another address: %v", err)
	}
}

func TestCookieNonceRule(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	ctx := context.Background()
	token, _, err := e.a.SignIn(ctx, "ada", "secret", "10.0.0.1", "", false)
	if err != nil {
		t.Fatal(err)
	}
	u, _, _ := e.a.Session(e.request(token, nil))
	if u == nil || u.ID() != e.uid {
		t.Fatalf("Session = %v", u)
	}
	good := e.a.Nonce(u, token)

	check := func(name string, r *http.Request, wantUser int64, wantCode string) {
		t.Helper()
		got, err := e.a.Authenticate(r)
		if wantCode != "" {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != wantCode || ae.Status != 403 {
				t.Errorf("%s: err = %v, want %s 403", name, err, wantCode)
			}
			return
		}
		if err != nil {
			t.Errorf("%s: err = %v", name, err)
			return
		}
		if got.ID() != wantUser {
			t.Errorf("%s: user %d, want %d", name, got.ID(), wantUser)
		}
	}
	check("cookie without nonce is anonymous", e.request(token, nil), 0, "")
	check("cookie with nonce header", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), e.uid, "")
	check("nonce in query", e.request(token, func(r *http.Request) { r.URL.RawQuery = "_wpnonce=" + good }), e.uid, "")
	check("query nonce wins over header", e.request(token, func(r *http.Request) {
		r.URL.RawQuery = "_wpnonce=" + good
		r.Header.Set("X-API-Nonce", "0000000000")
	}), e.uid, "")
	check("bad nonce", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", "0000000000") }), 0, "rest_cookie_invalid_nonce")
	check("empty nonce", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", "") }), 0, "rest_cookie_invalid_nonce")
	check("user nonce without cookie", e.request("", func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")
	anon := e.a.Nonces.Create(0, "", RESTNonceAction)
	check("anonymous nonce without cookie", e.request("", func(r *http.Request) { r.Header.Set("X-API-Nonce", anon) }), 0, "")
	check("unknown cookie with user nonce", e.request("forged", func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")
	check("authorization header leaves it to Basic", e.request(token, func(r *http.Request) {
		r.Header.Set("Authorization", "Basic eDp5")
		r.Header.Set("X-API-Nonce", "0000000000")
	}), 0, "")

	// Nonce in a form body, which stays readable afterwards.
	body := "title=x&_wpnonce=" + good
	r := httptest.NewRequest("POST", "/api/svc/v2/posts", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(&http.Cookie{Name: DefaultSessionCookie, Value: token})
	check("nonce in form body", r, e.uid, "")
	if err := r.ParseForm(); err != nil || r.PostForm.Get("title") != "x" {
		t.Errorf("body after nonce lookup: %v %v", r.PostForm, err)
	}

	// Another session of the same user has its own nonces.
	token2, _, err := e.a.SignIn(ctx, "ada", "secret", "10.0.0.1", "", false)
	if err != nil {
		t.Fatal(err)
	}
	check("nonce of another session", e.request(token2, func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")

	// The response hands out a fresh nonce to cookie users only.
	h := e.a.ResponseHeaders(e.request(token, nil), u)
	if v := h.Get("X-API-Nonce"); e.a.Nonces.Verify(v, e.uid, token, RESTNonceAction) != 1 {
		t.Errorf("response nonce %q does not verify", v)
	}
	if h := e.a.ResponseHeaders(e.request(token, func(r *http.Request) { r.Header.Set("Authorization", "Basic eDp5") }), u); h != nil {
		t.Errorf("Basic-authenticated response got %v", h)
	}

	// Expiry and sign-out end the session.
	e.now = e.now.Add(DefaultSessionLifetime)
	check("expired session", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")
	e.now = e.now.Add(-DefaultSessionLifetime)
	if err := e.a.SignOut(e.request(token, nil)); err != nil {
		t.Fatal(err)
	}
	check("after sign-out", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")
	if _, err := e.db.GetSession(ctx, HashSessionToken(token)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session still stored after sign-out: %v", err)
	}
}
