package endpoints_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/endpoints"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// roles used across the tests; "" is the anonymous caller.
var allRoles = []string{"administrator", "editor", "author", "contributor", "subscriber", ""}

// env is a running Folio API over a fresh SQLite database, with one user per
// role (login = role name) holding an application password.
type env struct {
	t     testing.TB
	srv   *httptest.Server
	site  *content.Site
	db    storetest.Store
	pass  map[string]string // login → application password
	users map[string]int64  // login → id
}

func newEnv(t testing.TB, mutate ...func(*config.Config)) *env {
	t.Helper()
	// SQLite, or PostgreSQL when FOLIO_TEST_DATABASE_URL is set.
	e := envOn(t, storetest.Open(t), mutate...)
	for _, role := range allRoles[:5] {
		e.addUser(role, role)
	}
	return e
}

// node returns a second server over db, another handle on e's database
// (storetest.OpenN), as a second node of a cluster would be: same
// configuration, users and passwords, its own caches.
func (e *env) node(db storetest.Store, mutate ...func(*config.Config)) *env {
	e.t.Helper()
	n := envOn(e.t, db, mutate...)
	n.pass, n.users = e.pass, e.users
	return n
}

// envOn starts a Folio API over db without users.
func envOn(t testing.TB, db storetest.Store, mutate ...func(*config.Config)) *env {
	t.Helper()
	cfg := config.Default()
	cfg.Site.Title = "Test site"
	cfg.Site.Description = "Just testing"
	for _, m := range mutate {
		m(cfg)
	}
	site, err := content.NewSite(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	basic := &auth.BasicAuth{Users: db, Apps: db, Roles: site.Roles(), Now: time.Now}
	var cache *rest.CacheConfig
	if cfg.Cache.ResponsesOn() {
		// As in production: anonymous reads are served from the response
		// cache, so every test also checks that writes retire it.
		cache = &rest.CacheConfig{Version: db.Version}
	}
	names := rest.DefaultNames()
	if cfg.Compat == config.CompatWordPress {
		names = rest.WordPressNames()
	}
	rs := rest.NewServer(rest.Config{
		Names: names,
		// As internal/server: the index names the site with its
		// effective settings.
		SiteInfo: func(ctx context.Context) (rest.SiteInfo, error) {
			set, err := site.Settings(ctx)
			if err != nil {
				return rest.SiteInfo{}, err
			}
			return rest.SiteInfo{Name: set.Title, Description: set.Description, Timezone: set.Location()}, nil
		},
		MaxBodyBytes:   1 << 20,
		MaxUploadBytes: 4 << 20,
		Authenticate:   auth.Chain(basic),
		Cache:          cache,
		Version:        db.Version, // as internal/server: ETags with or without the cache
	})
	endpoints.Register(rs, site)
	mux := http.NewServeMux()
	mux.Handle(names.Prefix+"/", rs)
	mux.Handle(names.Prefix, rs)
	e := &env{t: t, srv: httptest.NewServer(mux), site: site, db: db, pass: map[string]string{}, users: map[string]int64{}}
	t.Cleanup(e.srv.Close)
	return e
}

// addUser creates a user with the given login and role and an application
// password for it.
func (e *env) addUser(login, role string) int64 {
	e.t.Helper()
	ctx := context.Background()
	u := &store.User{Login: login, Email: login + "@example.com", DisplayName: strings.ToUpper(login[:1]) + login[1:],
		Nicename: login, Registered: time.Now().UTC(), Roles: []string{role}}
	if err := e.db.InsertUser(ctx, u); err != nil {
		e.t.Fatal(err)
	}
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.InsertAppPassword(ctx, &store.AppPassword{UUID: fmt.Sprintf("uuid-%d", u.ID), UserID: u.ID, Name: "test", Hash: hash, Created: time.Now().UTC()}); err != nil {
		e.t.Fatal(err)
	}
	e.pass[login] = plain
	e.users[login] = u.ID
	return u.ID
}

type resp struct {
	t      testing.TB
	Status int
	Header http.Header
	Body   []byte
}

func (r *resp) obj() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

func (r *resp) arr() []any {
	r.t.Helper()
	var a []any
	if err := json.Unmarshal(r.Body, &a); err != nil {
		r.t.Fatalf("body is not a JSON array: %v: %s", err, r.Body)
	}
	return a
}

// wantError asserts an error response with status and code.
func (r *resp) wantError(status int, code string) map[string]any {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	m := r.obj()
	if m["code"] != code {
		r.t.Fatalf("code = %v, want %s; body %s", m["code"], code, r.Body)
	}
	data, _ := m["data"].(map[string]any)
	if data == nil || data["status"] != float64(status) {
		r.t.Fatalf("data.status = %v, want %d", m["data"], status)
	}
	if _, ok := m["message"].(string); !ok {
		r.t.Fatalf("no message in %s", r.Body)
	}
	return m
}

func (r *resp) wantStatus(status int) {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// do sends a request as login ("" = anonymous). body may be nil, a string
// (sent as a form), or anything else (sent as JSON).
func (e *env) do(method, path, login string, args ...any) *resp {
	e.t.Helper()
	var body any
	var headers []string
	if len(args) > 0 {
		body = args[0]
		for _, h := range args[1:] {
			headers = append(headers, h.(string))
		}
	}
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
		ctype = "application/x-www-form-urlencoded"
	case []byte:
		rd = bytes.NewReader(b)
		ctype = "application/json"
	default:
		js, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(js)
		ctype = "application/json"
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if login != "" {
		req.SetBasicAuth(login, e.pass[login])
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return &resp{t: e.t, Status: res.StatusCode, Header: res.Header, Body: data}
}

// createPost stores a post directly through the domain layer as login and
// returns it.
func (e *env) createPost(login, typ string, fields map[string]any) *store.Post {
	e.t.Helper()
	pt, ok := e.site.Types().Get(typ)
	if !ok {
		e.t.Fatalf("no type %s", typ)
	}
	body := map[string]any{"title": "Untitled", "status": "publish"}
	for k, v := range fields {
		body[k] = v
	}
	r := e.do("POST", "/api/svc/v2/"+pt.RestBase, login, body)
	if r.Status != 201 {
		e.t.Fatalf("create %s as %s: %d %s", typ, login, r.Status, r.Body)
	}
	id := int64(r.obj()["id"].(float64))
	p, err := e.db.GetPost(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
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
