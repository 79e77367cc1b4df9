package frontend_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/testkit"
)

// env is a running site (internal/testkit) on the store
// FOLIO_TEST_DATABASE_URL names, with a user per role (login = role) and a
// custom post type "book" with its taxonomy "genre".
type env struct {
	*testkit.Site
}

func newEnv(t *testing.T, mod func(*config.Config)) *env {
	t.Helper()
	return &env{testkit.New(t, testkit.Config(func(c *config.Config) {
		off := false
		c.Cache.Responses = &off
		c.PostTypes = []config.PostType{{Name: "book", RestBase: "books", Supports: []string{"title", "editor", "author", "comments"}}}
		c.Taxonomies = []config.Taxonomy{{Name: "genre", RestBase: "genres", Hierarchical: true, ObjectTypes: []string{"book"}}}
		if mod != nil {
			mod(c)
		}
	}))}
}

// create makes a resource through the API and returns its id and link.
func (e *env) create(base, login string, body map[string]any) (int64, string) {
	e.T.Helper()
	out := e.Create(login, "/"+base, body)
	link, _ := out["link"].(string)
	return int64(out["id"].(float64)), link
}

// browser is a visitor of the reader: anonymous, or signed in through the
// sign-in form.
type browser struct {
	*testkit.Browser
}

// browser returns an anonymous visitor ("") or one signed in as login.
func (e *env) browser(login string) *browser {
	e.T.Helper()
	if login == "" {
		return &browser{e.Browser()}
	}
	return &browser{e.SignIn(login)}
}

// page is a fetched page.
type page struct {
	status int
	header http.Header
	body   string
}

func pageOf(r *testkit.Response) page {
	return page{status: r.Status, header: r.Header, body: string(r.Body)}
}

// get fetches a site path or absolute URL.
func (b *browser) get(target string) page {
	b.Site.T.Helper()
	return pageOf(b.Do("GET", target))
}

// post sends a form to a site path or absolute URL, with extra headers.
func (b *browser) post(target string, form url.Values, header map[string]string) page {
	b.Site.T.Helper()
	args := []any{form.Encode()}
	for k, v := range header {
		args = append(args, k, v)
	}
	return pageOf(b.Do("POST", target, args...))
}

var nonceRE = regexp.MustCompile(`name="_folio_nonce" value="([^"]+)"`)

// nonce reads the comment form's nonce from a page.
func (p page) nonce(t testing.TB) string {
	t.Helper()
	m := nonceRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no comment form on the page (%d):\n%s", p.status, p.body)
	}
	return m[1]
}

// comment fills and posts the comment form of the page at target.
func (b *browser) comment(target string, fields url.Values) page {
	b.Site.T.Helper()
	p := b.get(target)
	form := url.Values{"_folio_nonce": {p.nonce(b.Site.T)}, "comment_parent": {"0"}}
	for k, v := range fields {
		form[k] = v
	}
	return b.post(target, form, nil)
}

// email returns the email address of the user login, as the API tells an
// administrator.
func (e *env) email(login string) string {
	e.T.Helper()
	m := e.Do("GET", e.API("/users/%d?context=edit", e.ID(login)), "administrator").WantStatus(200).Object()
	email, _ := m["email"].(string)
	if email == "" {
		e.T.Fatalf("user %s has no email: %v", login, m)
	}
	return email
}

func itoa(n int64) string { return fmt.Sprint(n) }
