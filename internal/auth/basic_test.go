package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// fakeUsers is an in-memory store.UserStore for the lookups BasicAuth does;
// the embedded interface is nil, so any other method panics.
type fakeUsers struct {
	store.UserStore
	users []*store.User
	err   error
}

func (f *fakeUsers) GetUserByLogin(_ context.Context, login string) (*store.User, error) {
	if f.err != nil {
		return nil, f.err
	}
	for _, u := range f.users {
		if u.Login == login {
			return u, nil
		}
	}
	return nil, store.ErrNotFound
}

func (f *fakeUsers) GetUserByEmail(_ context.Context, email string) (*store.User, error) {
	for _, u := range f.users {
		if u.Email == email {
			return u, nil
		}
	}
	return nil, store.ErrNotFound
}

type touch struct {
	id int64
	at time.Time
	ip string
}

// fakeApps is an in-memory store.AppPasswordStore.
type fakeApps struct {
	mu       sync.Mutex
	pws      []*store.AppPassword
	touches  []touch
	touchErr error
	// frozen keeps LastUsed unchanged on touch, so only BasicAuth's own
	// memory can limit the writes.
	frozen bool
}

func (f *fakeApps) InsertAppPassword(_ context.Context, p *store.AppPassword) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p.ID = int64(len(f.pws) + 1)
	f.pws = append(f.pws, p)
	return nil
}

func (f *fakeApps) ListAppPasswords(_ context.Context, userID int64) ([]*store.AppPassword, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*store.AppPassword
	for _, p := range f.pws {
		if p.UserID == userID {
			c := *p
			out = append(out, &c)
		}
	}
	return out, nil
}

func (f *fakeApps) DeleteAppPassword(_ context.Context, userID int64, uuid string) error {
	return errors.New("fakeApps: delete not supported")
}

func (f *fakeApps) TouchAppPassword(_ context.Context, id int64, at time.Time, ip string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.touchErr != nil {
		return f.touchErr
	}
	f.touches = append(f.touches, touch{id, at, ip})
	if f.frozen {
		return nil
	}
	for _, p := range f.pws {
		if p.ID == id {
			p.LastUsed, p.LastIP = at, ip
		}
	}
	return nil
}

func (f *fakeApps) touchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.touches)
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// accountHash is the bcrypt hash of the fixtures' account password, computed
// once because bcrypt is slow under the race detector.
var accountHash = sync.OnceValues(func() (string, error) { return HashPassword("account-secret") })

type basicFixture struct {
	auth     *BasicAuth
	apps     *fakeApps
	users    *fakeUsers
	clock    *clock
	appPlain string // editor's application password
	account  string // editor's account password
}

func newBasicFixture(t *testing.T) *basicFixture {
	t.Helper()
	account := "account-secret"
	hash, err := accountHash()
	if err != nil {
		t.Fatal(err)
	}
	users := &fakeUsers{users: []*store.User{
		{ID: 2, Login: "editor", Email: "editor@example.com", PassHash: hash, Roles: []string{"editor"}},
		{ID: 3, Login: "author", Email: "author@example.com", Roles: []string{"author"}},
	}}
	apps := &fakeApps{}
	plain, appHash, err := GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	_, otherHash, err := GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_ = apps.InsertAppPassword(ctx, &store.AppPassword{UserID: 2, Name: "other", Hash: otherHash})
	_ = apps.InsertAppPassword(ctx, &store.AppPassword{UserID: 2, Name: "cli", Hash: appHash})
	// The author has a password equal to the editor's account password.
	_ = apps.InsertAppPassword(ctx, &store.AppPassword{UserID: 3, Name: "x", Hash: HashAppPassword(account)})
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	return &basicFixture{
		auth:     &BasicAuth{Users: users, Apps: apps, Roles: DefaultRoles(), Now: clk.Now},
		apps:     apps,
		users:    users,
		clock:    clk,
		appPlain: plain,
		account:  account,
	}
}

func basicHeader(login, pw string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(login+":"+pw))
}

func requestWith(headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/svc/v2/users/me", nil)
	r.RemoteAddr = "192.0.2.7:4711"
	for _, h := range headers {
		r.Header.Add("Authorization", h)
	}
	return r
}

func TestBasicAuthAcceptsApplicationPasswords(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	tests := []struct {
		name   string
		header string
	}{
		{"grouped as shown", basicHeader("editor", f.appPlain)},
		{"without spaces", basicHeader("editor", strings.ReplaceAll(f.appPlain, " ", ""))},
		{"email as login", basicHeader("editor@example.com", f.appPlain)},
		{"scheme is case-insensitive", "basic " + strings.TrimPrefix(basicHeader("editor", f.appPlain), "Basic ")},
	}
	for _, tt := range tests {
		u, err := f.auth.Authenticate(requestWith(tt.header))
		if err != nil {
			t.Errorf("%s: error %v", tt.name, err)
			continue
		}
		if u.ID() != 2 || !u.HasCap("edit_others_posts") || u.HasCap("list_users") {
			t.Errorf("%s: user %d with wrong capabilities", tt.name, u.ID())
		}
	}
}

func TestBasicAuthRejectsBadCredentials(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	b64 := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name    string
		headers []string
	}{
		{"wrong application password", []string{basicHeader("editor", "aaaa bbbb cccc dddd eeee ffff")}},
		{"account password is never accepted", []string{basicHeader("editor", f.account)}},
		{"another user's application password", []string{basicHeader("author", f.appPlain)}},
		{"unknown login", []string{basicHeader("nobody", f.appPlain)}},
		{"unknown email", []string{basicHeader("nobody@example.com", f.appPlain)}},
		{"empty password", []string{basicHeader("editor", "")}},
		{"empty login", []string{basicHeader("", f.appPlain)}},
		{"no colon", []string{b64("editor")}},
		{"bad base64", []string{"Basic !!!not-base64!!!"}},
		{"scheme only", []string{"Basic"}},
		{"bearer token", []string{"Bearer abc.def.ghi"}},
		{"digest", []string{`Digest username="editor"`}},
		{"empty header", []string{""}},
		{"two headers", []string{basicHeader("editor", f.appPlain), basicHeader("editor", f.appPlain)}},
	}
	for _, tt := range tests {
		u, err := f.auth.Authenticate(requestWith(tt.headers...))
		if u != nil {
			t.Errorf("%s: signed in as %d", tt.name, u.ID())
		}
		var ae *Error
		if !errors.As(err, &ae) {
			t.Errorf("%s: error %v, want *Error", tt.name, err)
			continue
		}
		if ae.Code != "rest_authentication_failed" || ae.Status != http.StatusUnauthorized {
			t.Errorf("%s: got %s %d", tt.name, ae.Code, ae.Status)
		}
		if ae.Message != errAuthFailed().Message {
			t.Errorf("%s: message %q differs from the common one", tt.name, ae.Message)
		}
	}
	if n := f.apps.touchCount(); n != 0 {
		t.Errorf("failed attempts recorded %d uses", n)
	}
}

func TestBasicAuthWithoutHeaderIsAnonymous(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	u, err := f.auth.Authenticate(requestWith())
	if u != nil || err != nil {
		t.Errorf("Authenticate() = %v, %v; want nil, nil", u, err)
	}
}

func TestBasicAuthStoreFailureIsNotAnAuthError(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	f.users.err = errBroken
	u, err := f.auth.Authenticate(requestWith(basicHeader("editor", f.appPlain)))
	var ae *Error
	if u != nil || err == nil || errors.As(err, &ae) || !errors.Is(err, errBroken) {
		t.Errorf("Authenticate() = %v, %v; want a wrapped store error", u, err)
	}
}

func TestBasicAuthRecordsUseAtMostOncePerMinute(t *testing.T) {
	t.Parallel()
	for _, frozen := range []bool{false, true} {
		f := newBasicFixture(t)
		f.apps.frozen = frozen
		hdr := basicHeader("editor", f.appPlain)
		steps := []struct {
			advance time.Duration
			want    int // touches so far
		}{
			{0, 1},
			{0, 1},
			{30 * time.Second, 1},
			{29 * time.Second, 1},
			{2 * time.Second, 2},
			{10 * time.Second, 2},
			{time.Hour, 3},
		}
		for i, s := range steps {
			f.clock.Advance(s.advance)
			if _, err := f.auth.Authenticate(requestWith(hdr)); err != nil {
				t.Fatalf("frozen=%v step %d: %v", frozen, i, err)
			}
			if got := f.apps.touchCount(); got != s.want {
				t.Fatalf("frozen=%v step %d: %d touches, want %d", frozen, i, got, s.want)
			}
		}
		last := f.apps.touches[len(f.apps.touches)-1]
		if last.id != 2 || last.ip != "192.0.2.7" || !last.at.Equal(f.clock.Now()) {
			t.Errorf("frozen=%v: last touch = %+v", frozen, last)
		}
	}
}

func TestBasicAuthSkipsTouchWhenStoredUseIsRecent(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	// Another node recorded a use 20 seconds ago.
	f.apps.pws[1].LastUsed = f.clock.Now().Add(-20 * time.Second)
	hdr := basicHeader("editor", f.appPlain)
	if _, err := f.auth.Authenticate(requestWith(hdr)); err != nil {
		t.Fatal(err)
	}
	if n := f.apps.touchCount(); n != 0 {
		t.Errorf("%d touches, want 0", n)
	}
	f.clock.Advance(41 * time.Second)
	if _, err := f.auth.Authenticate(requestWith(hdr)); err != nil {
		t.Fatal(err)
	}
	if n := f.apps.touchCount(); n != 1 {
		t.Errorf("%d touches after a minute, want 1", n)
	}
}

func TestBasicAuthTouchFailureDoesNotFailAndRetries(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	f.apps.touchErr = errBroken
	hdr := basicHeader("editor", f.appPlain)
	if u, err := f.auth.Authenticate(requestWith(hdr)); err != nil || u.ID() != 2 {
		t.Fatalf("Authenticate() = %v, %v", u, err)
	}
	f.apps.mu.Lock()
	f.apps.touchErr = nil
	f.apps.mu.Unlock()
	if _, err := f.auth.Authenticate(requestWith(hdr)); err != nil {
		t.Fatal(err)
	}
	if n := f.apps.touchCount(); n != 1 {
		t.Errorf("%d touches after the failed one, want 1 (a retry)", n)
	}
}

func TestBasicAuthConcurrentRequestsTouchOnce(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	f.apps.frozen = true
	hdr := basicHeader("editor", f.appPlain)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			if _, err := f.auth.Authenticate(requestWith(hdr)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := f.apps.touchCount(); n != 1 {
		t.Errorf("%d touches, want 1", n)
	}
}

type stubAuth struct {
	u     *User
	err   error
	calls *int
}

func (s stubAuth) Authenticate(*http.Request) (*User, error) {
	*s.calls++
	return s.u, s.err
}

func TestChainFirstDecisionWins(t *testing.T) {
	t.Parallel()
	alice, bob := NewTestUser(1, "editor"), NewTestUser(2, "author")
	authErr := errAuthFailed()
	tests := []struct {
		name      string
		stubs     []stubAuth
		wantUser  *User
		wantErr   error
		wantCalls []int
	}{
		{"nobody has credentials", []stubAuth{{}, {}}, nil, nil, []int{1, 1}},
		{"first user wins", []stubAuth{{u: alice}, {u: bob}}, alice, nil, []int{1, 0}},
		{"second user", []stubAuth{{}, {u: bob}}, bob, nil, []int{1, 1}},
		{"error stops the chain", []stubAuth{{err: authErr}, {u: bob}}, nil, authErr, []int{1, 0}},
		{"error after nothing", []stubAuth{{}, {err: authErr}}, nil, authErr, []int{1, 1}},
		{"empty chain", nil, nil, nil, nil},
	}
	for _, tt := range tests {
		calls := make([]int, len(tt.stubs))
		as := make([]Authenticator, len(tt.stubs))
		for i := range tt.stubs {
			s := tt.stubs[i]
			s.calls = &calls[i]
			as[i] = s
		}
		u, err := Chain(as...)(requestWith())
		if u != tt.wantUser || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("%s: Chain = %v, %v; want %v, %v", tt.name, u, err, tt.wantUser, tt.wantErr)
		}
		for i, want := range tt.wantCalls {
			if calls[i] != want {
				t.Errorf("%s: authenticator %d called %d times, want %d", tt.name, i, calls[i], want)
			}
		}
	}
}

func TestChainWithBasicAuth(t *testing.T) {
	t.Parallel()
	f := newBasicFixture(t)
	chain := Chain(f.auth)
	if u, err := chain(requestWith(basicHeader("editor", f.appPlain))); err != nil || u.ID() != 2 {
		t.Errorf("valid credentials: %v, %v", u, err)
	}
	if u, err := chain(requestWith("Bearer x")); u != nil || err == nil {
		t.Errorf("bad credentials fell back to anonymous: %v, %v", u, err)
	}
}
