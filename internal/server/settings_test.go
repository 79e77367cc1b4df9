package server

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// settingsNodes are two servers built by New on one database (SQLite file,
// or the PostgreSQL schema FOLIO_TEST_DATABASE_URL gives), each with its
// own store handle and caches, as two nodes behind a load balancer.
type settingsNodes struct {
	t      *testing.T
	a, b   *Server
	appPwd string
}

// compatModes are the two naming modes.
var compatModes = []struct{ name, compat string }{{"default", ""}, {"wordpress", config.CompatWordPress}}

func newSettingsNodes(t *testing.T, compat string) *settingsNodes {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	if storetest.Backend() == "postgres" {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	cfg.Compat = compat
	cfg.Site.Title = "File title"
	cfg.Site.Description = "File tagline"
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	n := &settingsNodes{t: t}
	for _, s := range []**Server{&n.a, &n.b} {
		srv, err := New(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		*s = srv
	}
	ctx := context.Background()
	hash, err := auth.HashPassword("admin-pass")
	if err != nil {
		t.Fatal(err)
	}
	u := &store.User{Login: "admin", Email: "admin@example.com", Nicename: "admin", DisplayName: "Admin", PassHash: hash, Roles: []string{"administrator"}}
	if err := n.a.Store().InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, phash, err := auth.GenerateAppPassword()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.a.Store().InsertAppPassword(ctx, &store.AppPassword{UUID: "u1", UserID: u.ID, Name: "t", Hash: phash}); err != nil {
		t.Fatal(err)
	}
	n.appPwd = plain
	return n
}

// req sends one request to node s; admin signs it with the
// administrator's application password.
func (n *settingsNodes) req(s *Server, method, target, body string, admin bool, mod ...func(*http.Request)) *httptest.ResponseRecorder {
	n.t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if admin {
		r.SetBasicAuth("admin", n.appPwd)
	}
	for _, m := range mod {
		m(r)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, r)
	return rec
}

func TestSettingsChangeShowsOnEveryPageOfAnotherNode(t *testing.T) {
	t.Parallel()
	n := newSettingsNodes(t, "")
	// Node b shows the file's title first (and caches its settings).
	if body := n.req(n.b, "GET", "/", "", false).Body.String(); !strings.Contains(body, "<title>File title</title>") {
		t.Fatalf("root page before: %s", body)
	}
	rec := n.req(n.a, "POST", "/api/svc/v2/settings", `{"title":"Ann's & \"Co\" site","description":"A new tagline"}`, true)
	if rec.Code != 200 {
		t.Fatalf("change on node a: %d %s", rec.Code, rec.Body)
	}
	want := html.EscapeString("Ann's & \"Co\" site")
	pages := map[string]string{
		"/":         "<title>" + want + "</title>",
		"/login":    "<title>Sign in &lsaquo; " + want + "</title>",
		"/api/docs": "<title>API reference &lsaquo; " + want + "</title>",
	}
	for target, fragment := range pages {
		if body := n.req(n.b, "GET", target, "", false).Body.String(); !strings.Contains(body, fragment) {
			t.Errorf("node b %s lacks %q:\n%s", target, fragment, body)
		}
	}
	if body := n.req(n.b, "GET", "/", "", false).Body.String(); !strings.Contains(body, ">A new tagline</p>") {
		t.Errorf("root page description: %s", body)
	}
	// The admin page (signed in on node b, with a session node a made).
	sign := n.req(n.a, "POST", "/login", "log=admin&pwd=admin-pass", false, func(r *http.Request) {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	})
	var cookie *http.Cookie
	for _, c := range sign.Result().Cookies() {
		if c.Name == auth.DefaultSessionCookie {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("sign in: %d %s", sign.Code, sign.Body)
	}
	admin := n.req(n.b, "GET", "/admin/", "", false, withCookie(cookie)).Body.String()
	if !strings.Contains(admin, "<title>Admin &lsaquo; "+want+"</title>") || !strings.Contains(admin, `data-site-title="`+want+`"`) {
		t.Errorf("admin page on node b:\n%s", admin)
	}
	// The API description and the index.
	var doc struct {
		Info struct{ Title, Description string }
	}
	if err := json.Unmarshal(n.req(n.b, "GET", "/api/openapi.json", "", false).Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.Title != "Ann's & \"Co\" site REST API" || !strings.HasPrefix(doc.Info.Description, "A new tagline") {
		t.Errorf("openapi info: %+v", doc.Info)
	}
	var idx struct{ Name, Description string }
	if err := json.Unmarshal(n.req(n.b, "GET", "/api/", "", false).Body.Bytes(), &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Name != "Ann's & \"Co\" site" || idx.Description != "A new tagline" {
		t.Errorf("index: %+v", idx)
	}
	// Putting the file's value back (null) shows it again everywhere.
	if rec := n.req(n.a, "PATCH", "/api/svc/v2/settings", `{"title":null}`, true); rec.Code != 200 {
		t.Fatalf("reset: %d %s", rec.Code, rec.Body)
	}
	if body := n.req(n.b, "GET", "/", "", false).Body.String(); !strings.Contains(body, "<title>File title</title>") {
		t.Errorf("root page after the reset: %s", body)
	}
}

func TestSettingsRouteIsInTheAPIDescriptionInBothModes(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			n := newSettingsNodes(t, m.compat)
			names := n.a.Names()
			var doc struct {
				Paths map[string]map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(n.req(n.a, "GET", names.Prefix+"/openapi.json", "", false).Body.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			p := doc.Paths["/"+names.Namespace+"/settings"]
			for _, method := range []string{"get", "post", "put", "patch"} {
				if p[method] == nil {
					t.Errorf("%s /%s/settings is not described", method, names.Namespace)
				}
			}
			if !strings.Contains(string(p["get"]), `"401"`) || !strings.Contains(string(p["post"]), `"403"`) {
				t.Errorf("the settings route does not describe its refusals: %s", p["get"])
			}
			// Visitors are refused, administrators read.
			if rec := n.req(n.a, "GET", names.Prefix+"/"+names.Namespace+"/settings", "", false); rec.Code != 401 {
				t.Errorf("visitor: %d", rec.Code)
			}
			if rec := n.req(n.a, "GET", names.Prefix+"/"+names.Namespace+"/settings", "", true); rec.Code != 200 {
				t.Errorf("administrator: %d %s", rec.Code, rec.Body)
			}
		})
	}
}

// TestOptionsAndWebhooksChangedOnAnotherNodeReachTheNextWrite: a node
// keeps the settings and the webhooks a signed-in write read for as long
// as the site generation read with the sign-in is theirs; a change of
// either on another node moves it on, so the very next write on this node
// uses the new default category and delivers to the new webhook, and
// stops delivering to one made inactive.
func TestOptionsAndWebhooksChangedOnAnotherNodeReachTheNextWrite(t *testing.T) {
	t.Parallel()
	n := newSettingsNodes(t, "")
	const api = "/api/svc/v2"
	decode := func(rec *httptest.ResponseRecorder, status int, what string) map[string]any {
		t.Helper()
		if rec.Code != status {
			t.Fatalf("%s: %d %s, want %d", what, rec.Code, rec.Body, status)
		}
		var v map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	// create makes a post on node b and returns its categories.
	create := func(title string) []any {
		t.Helper()
		p := decode(n.req(n.b, "POST", api+"/posts", `{"title":"`+title+`","status":"publish"}`, true), 201, "create "+title)
		cats, _ := p["categories"].([]any)
		return cats
	}
	deliveries := func(id any) int {
		t.Helper()
		rec := n.req(n.a, "GET", api+"/webhooks/"+jsonNumber(id)+"/deliveries", "", true)
		if rec.Code != 200 {
			t.Fatalf("deliveries: %d %s", rec.Code, rec.Body)
		}
		var list []any
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Fatal(err)
		}
		return len(list)
	}

	news := decode(n.req(n.a, "POST", api+"/categories", `{"name":"News"}`, true), 201, "category")
	// Node b's first two writes read and keep the settings and the
	// (empty) list of webhooks.
	for _, title := range []string{"First", "Second"} {
		if cats := create(title); len(cats) != 1 || cats[0] != float64(1) {
			t.Fatalf("%s: categories %v, want the default [1]", title, cats)
		}
	}
	decode(n.req(n.a, "POST", api+"/settings", `{"default_category":`+jsonNumber(news["id"])+`}`, true), 200, "settings on node a")
	if cats := create("Third"); len(cats) != 1 || cats[0] != news["id"] {
		t.Fatalf("after node a changed the default category: categories %v, want [%v]", cats, news["id"])
	}

	hook := decode(n.req(n.a, "POST", api+"/webhooks", `{"url":"https://93.184.216.34/hook","events":["post.created"]}`, true), 201, "webhook on node a")
	create("Fourth")
	if got := deliveries(hook["id"]); got != 1 {
		t.Fatalf("after a webhook was added on node a: %d deliveries, want 1", got)
	}
	create("Fifth")
	if got := deliveries(hook["id"]); got != 2 {
		t.Fatalf("a second create: %d deliveries, want 2", got)
	}
	decode(n.req(n.a, "POST", api+"/webhooks/"+jsonNumber(hook["id"]), `{"active":false}`, true), 200, "deactivate on node a")
	create("Sixth")
	if got := deliveries(hook["id"]); got != 2 {
		t.Fatalf("after the webhook was made inactive on node a: %d deliveries, want still 2", got)
	}
}

// jsonNumber formats a decoded JSON number as an integer.
func jsonNumber(v any) string {
	f, _ := v.(float64)
	return strconv.FormatInt(int64(f), 10)
}
