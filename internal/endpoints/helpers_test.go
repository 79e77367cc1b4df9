package endpoints_test

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/endpoints"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// roles used across the tests; "" is the anonymous caller.
var allRoles = append(append([]string{}, testkit.Roles...), "")

// env is a whole Folio site (internal/testkit: the server as production
// builds it, on SQLite or on the PostgreSQL of FOLIO_TEST_DATABASE_URL)
// with one user per role (login = role name), and short names for the
// parts of it the endpoint tests reach into.
type env struct {
	*testkit.Site
	// site is the content domain the endpoints serve, db its store.
	site *content.Site
	db   store.Store
	// cfg is the configuration the server started with.
	cfg *config.Config
	// base is "" for the site's own server, or the URL of a server over
	// a wrapped store (see over) that do sends to instead.
	base string
}

// newEnv starts a site with the configuration the endpoint tests assume
// (a titled site, 1 MiB bodies and 4 MiB uploads), then mutate.
func newEnv(t testing.TB, mutate ...func(*config.Config)) *env {
	t.Helper()
	var cfg *config.Config
	opts := []testkit.Option{testkit.Config(func(c *config.Config) {
		c.Site.Title = "Test site"
		c.Site.Description = "Just testing"
		c.Limits.MaxBodyBytes = 1 << 20
		c.Limits.MaxUploadBytes = 4 << 20
		cfg = c
	})}
	for _, m := range mutate {
		opts = append(opts, testkit.Config(m))
	}
	return wrap(testkit.New(t, opts...), cfg)
}

func wrap(s *testkit.Site, cfg *config.Config) *env {
	return &env{Site: s, site: s.Server.Site(), db: s.Store(), cfg: cfg}
}

// node returns a second server over e's store, as a second node of a
// cluster would be: same configuration and users, its own caches.
func (e *env) node() *env {
	e.T.Helper()
	var cfg *config.Config
	return wrap(e.Node(testkit.Config(func(c *config.Config) { cfg = c })), cfg)
}

// over returns e served over st, a wrapper of e's store that fails on
// demand, and blobs when not nil: internal/server opens its store itself,
// so a test of what the endpoints answer when the store or the upload
// storage fails serves them here with the server's API configuration and
// HTTP Basic authentication. Requests of the returned env (with e's users)
// go to that server; the site's own server is unchanged.
func (e *env) over(st store.Store, blobs media.Blobs) *env {
	e.T.Helper()
	rs, site := e.api(st, blobs)
	srv := httptest.NewServer(rs)
	e.T.Cleanup(srv.Close)
	o := *e
	o.site, o.db, o.base = site, st, srv.URL
	return &o
}

// api returns the REST server (with HTTP Basic authentication only) and
// the domain over which over serves e's site on st.
func (e *env) api(st store.Store, blobs media.Blobs) (*rest.Server, *content.Site) {
	e.T.Helper()
	site, err := content.NewSite(st, e.cfg)
	if err != nil {
		e.T.Fatal(err)
	}
	if blobs == nil {
		blobs = e.site.Blobs()
	}
	site.SetBlobs(blobs)
	rs := rest.NewServer(rest.Config{
		Names:          e.Server.Names(),
		MaxBodyBytes:   e.cfg.Limits.MaxBodyBytes,
		MaxUploadBytes: e.cfg.Limits.MaxUploadBytes,
		Authenticate:   auth.Chain(&auth.BasicAuth{Users: st, Apps: st, Roles: site.Roles(), Now: time.Now}),
		Logger:         slog.New(slog.DiscardHandler),
	})
	endpoints.Register(rs, site)
	return rs, site
}

// do sends a request as login ("" = anonymous), as testkit.Site.Do does, to
// e's server.
func (e *env) do(method, path, login string, args ...any) *testkit.Response {
	e.T.Helper()
	return e.Do(method, e.base+path, login, args...)
}

// createPost creates a post of type typ through the API as login and
// returns it as stored.
func (e *env) createPost(login, typ string, fields map[string]any) *store.Post {
	e.T.Helper()
	pt, ok := e.site.Types().Get(typ)
	if !ok {
		e.T.Fatalf("no type %s", typ)
	}
	body := map[string]any{"title": "Untitled", "status": "publish"}
	for k, v := range fields {
		body[k] = v
	}
	r := e.do("POST", e.API("/"+pt.RestBase), login, body)
	if r.Status != 201 {
		e.T.Fatalf("create %s as %s: %d %s", typ, login, r.Status, r.Body)
	}
	id := int64(r.Object()["id"].(float64))
	p, err := e.db.GetPost(context.Background(), id)
	if err != nil {
		e.T.Fatal(err)
	}
	return p
}

func ids(items []any) []int64 {
	out := make([]int64, 0, len(items))
	for _, it := range items {
		out = append(out, int64(it.(map[string]any)["id"].(float64)))
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

type configT = config.Config
type postTypeT = config.PostType

func basic(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}
