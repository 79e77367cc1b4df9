// Package testkit runs a whole Folio site for a test on the store the
// environment selects (SQLite by default, PostgreSQL when
// FOLIO_TEST_DATABASE_URL is set, see internal/store/storetest), with one
// user per role, and gives the test requests, assertions and fixtures.
//
// Only tests import it: it builds internal/server, so a package that server
// imports can use it from its external (_test) package only.
//
//	s := testkit.New(t)
//	id := s.Post("author", map[string]any{"title": "Hello"})
//	s.Do("GET", s.API("/posts/%d", id), "").WantStatus(200)
//	s.Do("DELETE", s.API("/posts/%d", id), "subscriber", nil).WantError(403, "rest_cannot_delete")
package testkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// Roles are the built-in roles; New makes one user of each, whose login is
// the role's name.
var Roles = []string{"administrator", "editor", "author", "contributor", "subscriber"}

// User is a user of the test site with the secrets a test signs in with.
type User struct {
	ID    int64
	Login string
	Role  string
	// Password is the account password (sign-in form), Password(Login).
	Password string
	// AppPassword is an application password (HTTP Basic on the API).
	AppPassword string
}

// Password returns the account password New and AddUser give login.
func Password(login string) string { return login + "-password-1" }

// Site is a running site: the server, its HTTP listener and its users.
type Site struct {
	T      testing.TB
	Server *server.Server
	// HTTP serves Server.Handler(); URL is its base.
	HTTP  *httptest.Server
	URL   string
	Users map[string]*User // by login
	// skew is how far (ns) the site's clock runs ahead of the real one.
	skew atomic.Int64
	// opts are the options New was given and cfg the configuration the
	// server started with, which Node builds a second server from.
	opts []Option
	cfg  *config.Config
}

type options struct {
	mutate []func(*config.Config)
	exts   []extension.Extension
	logger *slog.Logger
	noUser bool
}

// Option changes how New builds the site.
type Option func(*options)

// Config lets f change the configuration before the server starts (after
// the kit's defaults: a fresh data directory and store, rate limits off).
func Config(f func(*config.Config)) Option {
	return func(o *options) { o.mutate = append(o.mutate, f) }
}

// Extensions builds the server with exts registered.
func Extensions(exts ...extension.Extension) Option {
	return func(o *options) { o.exts = append(o.exts, exts...) }
}

// Logger gives the server l instead of a logger that discards.
func Logger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// NoUsers starts the site without the users per role.
func NoUsers() Option {
	return func(o *options) { o.noUser = true }
}

// New starts a site for t on a fresh store of the selected backend, with
// one user per role (see Roles), and closes it when t ends. The API rate
// limits are off: a test calls faster than any person.
func New(t testing.TB, opts ...Option) *Site {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg := config.Default()
	storetest.Configure(t, cfg)
	off := false
	cfg.Limits.RateLimits = &off
	for _, f := range o.mutate {
		f(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := server.NewWith(context.Background(), cfg, o.logger, o.exts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	s := &Site{T: t, Server: srv, Users: map[string]*User{}, opts: opts, cfg: cfg}
	srv.Site().SetClock(func() time.Time { return time.Now().Add(time.Duration(s.skew.Load())) })
	s.HTTP = httptest.NewServer(srv.Handler())
	s.URL = s.HTTP.URL
	t.Cleanup(s.HTTP.Close)
	if !o.noUser {
		for _, role := range Roles {
			s.AddUser(role, role)
		}
	}
	return s
}

// Node starts a second server over the site's store (the same SQLite file
// or PostgreSQL schema, and the same uploads directory), as another node of
// a cluster would be: built with the options New was given, then opts,
// with its own caches and the same users (added to s.Users by either site
// show in both).
func (s *Site) Node(opts ...Option) *Site {
	s.T.Helper()
	dataDir, dbURL := s.cfg.DataDir, s.cfg.DatabaseURL
	all := append(append(append([]Option{}, s.opts...), opts...), NoUsers(), Config(func(c *config.Config) {
		c.DataDir, c.DatabaseURL = dataDir, dbURL
	}))
	n := New(s.T, all...)
	n.Users = s.Users
	return n
}

// Statements returns how many SQL statements the site's store has run so
// far (both stores count them), for tests that assert what a request
// costs: take it before and after the request and compare the difference.
// Only a request's own work counts: New's server runs no background work
// (webhook deliveries and pruning start with Serve only).
func (s *Site) Statements() int64 {
	s.T.Helper()
	c, ok := s.Store().(interface{ Statements() int64 })
	if !ok {
		s.T.Fatalf("testkit: the store %T counts no statements", s.Store())
	}
	return c.Statements()
}

// Later moves the site's clock on by d (past a flood interval, a
// schedule, an expiry).
func (s *Site) Later(d time.Duration) { s.skew.Add(int64(d)) }

// Store is the site's store.
func (s *Site) Store() store.Store { return s.Server.Store() }

// ID returns the id of the user login; the test fails if there is none.
func (s *Site) ID(login string) int64 {
	s.T.Helper()
	return s.user(login).ID
}

func (s *Site) user(login string) *User {
	s.T.Helper()
	u, ok := s.Users[login]
	if !ok {
		s.T.Fatalf("testkit: no user %q", login)
	}
	return u
}

// AddUser stores a user with login and role, the account password
// Password(login) and an application password.
func (s *Site) AddUser(login, role string) *User {
	s.T.Helper()
	ctx := context.Background()
	st := s.Store()
	hash, err := passwordHash(Password(login))
	if err != nil {
		s.T.Fatal(err)
	}
	u := &store.User{Login: login, Email: login + "@example.com", DisplayName: login, Nicename: login,
		PassHash: hash, Registered: time.Now().UTC(), Roles: []string{role}}
	if err := st.InsertUser(ctx, u); err != nil {
		s.T.Fatal(err)
	}
	plain, appHash, err := auth.GenerateAppPassword()
	if err != nil {
		s.T.Fatal(err)
	}
	app := &store.AppPassword{UUID: fmt.Sprintf("uuid-%s-%d", login, u.ID), UserID: u.ID, Name: "testkit", Hash: appHash, Created: time.Now().UTC()}
	if err := st.InsertAppPassword(ctx, app); err != nil {
		s.T.Fatal(err)
	}
	user := &User{ID: u.ID, Login: login, Role: role, Password: Password(login), AppPassword: plain}
	s.Users[login] = user
	return user
}

// hashes keeps one bcrypt hash per password for the whole test binary: the
// passwords are the same in every site, and hashing is slow on purpose.
var hashes sync.Map

func passwordHash(pw string) (string, error) {
	if h, ok := hashes.Load(pw); ok {
		return h.(string), nil
	}
	h, err := auth.HashPassword(pw)
	if err != nil {
		return "", err
	}
	hashes.Store(pw, h)
	return h, nil
}
