package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// sessionEnv is a SessionAuth over a fresh store (SQLite, or PostgreSQL
// when FOLIO_TEST_DATABASE_URL is set) with one user "ada" (password
// "secret"), an adjustable clock and a count of password checks.
type sessionEnv struct {
	a      *SessionAuth
	db     store.Store
	clk    *clock
	uid    int64
	checks atomic.Int64
}

// testSecret is the nonce secret of the test environments.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// adaHash is the bcrypt hash of "secret", computed once because bcrypt is
// slow under the race detector.
var adaHash = sync.OnceValues(func() (string, error) { return HashPassword("secret") })

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	return newSessionEnvOn(t, storetest.Open(t))
}

// newSessionEnvOn builds the environment over db, adding ada when she is
// not there yet (a second node over the same database finds her).
func newSessionEnvOn(t *testing.T, db store.Store) *sessionEnv {
	t.Helper()
	ctx := context.Background()
	e := &sessionEnv{db: db, clk: &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}}
	u, err := db.GetUserByLogin(ctx, "ada")
	if errors.Is(err, store.ErrNotFound) {
		hash, herr := adaHash()
		if herr != nil {
			t.Fatal(herr)
		}
		u = &store.User{Login: "ada", Email: "ada@example.com", Nicename: "ada", PassHash: hash, Roles: []string{"editor"}}
		err = db.InsertUser(ctx, u)
	}
	if err != nil {
		t.Fatal(err)
	}
	e.uid = u.ID
	nonces := NewNonces(testSecret)
	nonces.Now = e.clk.Now
	e.a = &SessionAuth{Sessions: db, Users: db, Nonces: nonces, NonceHeader: "X-API-Nonce", NonceParam: "_wpnonce", Now: e.clk.Now}
	e.a.checkPassword = func(hash, pw string) bool {
		e.checks.Add(1)
		return CheckPassword(hash, pw)
	}
	return e
}

// signIn signs in with login and password from ip.
func (e *sessionEnv) signIn(login, password, ip string) (*SignedIn, error) {
	return e.a.SignIn(context.Background(), Attempt{Login: login, Password: password, IP: ip})
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
	in, err := e.a.SignIn(ctx, Attempt{Login: "ada", Password: "secret", IP: "10.0.0.1", UserAgent: "test-agent"})
	if err != nil {
		t.Fatal(err)
	}
	token, s := in.Token, in.Session
	if s.TokenHash == token || s.TokenHash != HashSessionToken(token) {
		t.Fatalf("stored hash %q for token %q", s.TokenHash, token)
	}
	list, err := e.db.ListSessions(ctx, e.uid)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions = %v, %v; want one", list, err)
	}
	if got := list[0]; got.IP != "10.0.0.1" || got.UserAgent != "test-agent" || !got.Expires.Equal(e.clk.Now().Add(DefaultSessionLifetime)) {
		t.Errorf("session = %+v", got)
	}
	// Email works as the login too.
	if _, err := e.a.SignIn(ctx, Attempt{Login: "ADA@example.com", Password: "secret", IP: "10.0.0.1", Remember: true}); err != nil {
		t.Errorf("sign in by email: %v", err)
	}
}

func TestSignInFailureDoesNotRevealTheLogin(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	_, errWrongPass := e.signIn("ada", "nope", "10.0.0.1")
	_, errNoUser := e.signIn("nobody", "nope", "10.0.0.1")
	_, errEmpty := e.signIn("ada", "", "10.0.0.1")
	for _, err := range []error{errWrongPass, errNoUser, errEmpty} {
		if !errors.Is(err, ErrLoginFailed) {
			t.Errorf("err = %v, want ErrLoginFailed", err)
		}
	}
}

func TestCookieNonceRule(t *testing.T) {
	t.Parallel()
	e := newSessionEnv(t)
	ctx := context.Background()
	in, err := e.signIn("ada", "secret", "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	token := in.Token
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
	in2, err := e.signIn("ada", "secret", "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	token2 := in2.Token
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
	e.clk.Advance(DefaultSessionLifetime)
	check("expired session", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")
	e.clk.Advance(-DefaultSessionLifetime)
	if err := e.a.SignOut(e.request(token, nil)); err != nil {
		t.Fatal(err)
	}
	check("after sign-out", e.request(token, func(r *http.Request) { r.Header.Set("X-API-Nonce", good) }), 0, "rest_cookie_invalid_nonce")
	if _, err := e.db.GetSession(ctx, HashSessionToken(token)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session still stored after sign-out: %v", err)
	}
}
