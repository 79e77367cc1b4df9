package frontend_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// env is a running site on the store FOLIO_TEST_DATABASE_URL names, with
// a user per role, each with an application password (for the API) and
// the account password "<login>-password-1" (for browser sessions).
type env struct {
	t    *testing.T
	srv  *server.Server
	http *httptest.Server
	apps map[string]string
	ids  map[string]int64
	// skew is how far (ns) the site's clock runs ahead, moved on by later.
	skew atomic.Int64
}

// later moves the site's clock a minute on, past the comment flood
// interval.
func (e *env) later() {
	e.skew.Add(int64(time.Minute))
}

var roles = map[string]string{"admin": "administrator", "editor": "editor", "author": "author", "subscriber": "subscriber"}

func newEnv(t *testing.T, mod func(*config.Config)) *env {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	if storetest.Backend() == "postgres" {
		cfg.DatabaseURL = storetest.PostgresURL(t)
	}
	off := false
	cfg.Cache.Responses = &off
	cfg.Limits.RateLimits = &off // the suite reads faster than any person
	cfg.PostTypes = []config.PostType{{Name: "book", RestBase: "books", Supports: []string{"title", "editor", "author", "comments"}}}
	cfg.Taxonomies = []config.Taxonomy{{Name: "genre", RestBase: "genres", Hierarchical: true, ObjectTypes: []string{"book"}}}
	if mod != nil {
		mod(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	e := &env{t: t, srv: srv, apps: map[string]string{}, ids: map[string]int64{}}
	srv.Site().SetClock(func() time.Time { return time.Now().Add(time.Duration(e.skew.Load())) })
	e.http = httptest.NewServer(srv.Handler())
	t.Cleanup(e.http.Close)
	ctx := context.Background()
	for _, login := range []string{"admin", "editor", "author", "subscriber"} {
		hash, err := auth.HashPassword(login + "-password-1")
		if err != nil {
			t.Fatal(err)
		}
		u := &store.User{Login: login, Email: login + "-zqmailx@example.com", Nicename: login, DisplayName: "The " + login,
			PassHash: hash, Registered: time.Now().UTC(), Roles: []string{roles[login]}}
		if err := srv.Store().InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		plain, phash, err := auth.GenerateAppPassword()
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Store().InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-" + login, UserID: u.ID, Name: "t", Hash: phash, Created: time.Now().UTC()}); err != nil {
			t.Fatal(err)
		}
		e.apps[login], e.ids[login] = plain, u.ID
	}
	return e
}

// api calls the REST API as login ("" = anonymous) and decodes the JSON
// answer into out (when not nil); it returns the status.
func (e *env) api(method, path, login string, body any, out any) int {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.http.URL+"/api/svc/v2"+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if login != "" {
		req.SetBasicAuth(login, e.apps[login])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
	}
	return res.StatusCode
}

// create makes a resource through the API and returns its id and link.
func (e *env) create(base, login string, body map[string]any) (int64, string) {
	e.t.Helper()
	var out map[string]any
	if st := e.api("POST", "/"+base, login, body, &out); st != 201 {
		e.t.Fatalf("create %s %v: %d %v", base, body, st, out)
	}
	link, _ := out["link"].(string)
	return int64(out["id"].(float64)), link
}

// browser is a visitor with a cookie jar that does not follow redirects.
type browser struct {
	e      *env
	client *http.Client
	login  string
}

// browser returns an anonymous visitor, or one signed in as login through
// the sign-in form.
func (e *env) browser(login string) *browser {
	e.t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	b := &browser{e: e, client: c, login: login}
	if login != "" {
		res, err := c.PostForm(e.http.URL+"/login", url.Values{"log": {login}, "pwd": {login + "-password-1"}})
		if err != nil {
			e.t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusFound {
			e.t.Fatalf("sign in as %s: %d", login, res.StatusCode)
		}
	}
	return b
}

// page is a fetched page.
type page struct {
	status int
	header http.Header
	body   string
}

// get fetches a site path or absolute URL.
func (b *browser) get(target string) page {
	b.e.t.Helper()
	return b.do("GET", target, nil, nil)
}

// post sends a form to a site path or absolute URL.
func (b *browser) post(target string, form url.Values, header map[string]string) page {
	b.e.t.Helper()
	return b.do("POST", target, strings.NewReader(form.Encode()), func(r *http.Request) {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			r.Header.Set(k, v)
		}
	})
}

func (b *browser) do(method, target string, body io.Reader, mod func(*http.Request)) page {
	b.e.t.Helper()
	if strings.HasPrefix(target, "/") {
		target = b.e.http.URL + target
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	if mod != nil {
		mod(req)
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

var nonceRE = regexp.MustCompile(`name="_folio_nonce" value="([^"]+)"`)

// nonce reads the comment form's nonce from a page.
func (p page) nonce(t *testing.T) string {
	t.Helper()
	m := nonceRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no comment form on the page (%d):\n%s", p.status, p.body)
	}
	return m[1]
}

// comment fills and posts the comment form of the page at target.
func (b *browser) comment(target string, fields url.Values) page {
	b.e.t.Helper()
	p := b.get(target)
	form := url.Values{"_folio_nonce": {p.nonce(b.e.t)}, "comment_parent": {"0"}}
	for k, v := range fields {
		form[k] = v
	}
	return b.post(target, form, nil)
}

func itoa(n int64) string { return fmt.Sprint(n) }
