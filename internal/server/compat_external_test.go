package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/rest"
)

// The tests in this file check, in the default mode and in the
// WordPress-compatibility mode, what the existing WordPress clients
// (wpapi, @wordpress/api-fetch, wp-api.js) rely on (issue #11).

var compatModes = []struct{ name, compat string }{{"default", ""}, {"wordpress", config.CompatWordPress}}

// compatSite is a login site with its names and an allowed CORS origin.
type compatSite struct {
	*loginSite
	names rest.Names
}

func newCompatSite(t *testing.T, compat string) *compatSite {
	t.Helper()
	l := newLoginSite(t, func(c *config.Config) {
		c.Compat = compat
		c.CORS.AllowedOrigins = []string{"https://front.example"}
	})
	return &compatSite{loginSite: l, names: l.s.Names()}
}

// api returns the path of route under the API root and namespace.
func (c *compatSite) api(route string) string {
	return c.names.Prefix + "/" + c.names.Namespace + route
}

// basic returns a request modifier with the editor's application password
// and the given extra headers.
func (c *compatSite) basic(headers ...string) func(*http.Request) {
	return func(r *http.Request) {
		r.Header.Set("Authorization", "Basic "+basicCred(ed, c.appPwd))
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
}

func (c *compatSite) json(method, target, body string, mod func(*http.Request)) (*httptest.ResponseRecorder, any) {
	c.t.Helper()
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	if mod != nil {
		mod(r)
	}
	rec := httptest.NewRecorder()
	c.s.Handler().ServeHTTP(rec, r)
	var v any
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.Body.Len() > 0 {
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			c.t.Fatalf("%s %s: invalid JSON %s", method, target, rec.Body)
		}
	}
	return rec, v
}

// createPosts creates n published posts and returns their ids.
func (c *compatSite) createPosts(n int) []int64 {
	c.t.Helper()
	var ids []int64
	for i := 0; i < n; i++ {
		rec, v := c.json("POST", c.api("/posts"), fmt.Sprintf(`{"title":"Post %d","content":"Body %d","status":"publish"}`, i, i), c.basic())
		if rec.Code != 201 {
			c.t.Fatalf("create post: %d %s", rec.Code, rec.Body)
		}
		ids = append(ids, int64(v.(map[string]any)["id"].(float64)))
	}
	return ids
}

func idsOf(v any) []int64 {
	var out []int64
	list, _ := v.([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, int64(m["id"].(float64)))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func TestCompatDiscoveryByLinkHeader(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			want := fmt.Sprintf(`<http://example.com%s/>; rel="%s"`, c.names.Prefix, c.names.RelBase)
			for _, method := range []string{"HEAD", "GET"} {
				rec := c.req(method, "/", "", nil)
				if rec.Code != 200 {
					t.Errorf("%s /: status %d, want 200 (no redirect)", method, rec.Code)
				}
				if got := rec.Header().Get("Link"); got != want {
					t.Errorf("%s /: Link %q, want %q", method, got, want)
				}
			}
			if m.compat != "" && c.names.RelBase != "https://api.w.org/" {
				t.Errorf("compat rel base %q", c.names.RelBase)
			}
		})
	}
}

// routeKeyRE is the route-key grammar clients parse (wpapi's route tree,
// wp-api.js): literal segments and named groups without slashes inside,
// holding at most one level of non-capturing group, as WordPress's own
// `(?P<user_id>(?:[\d]+|me))`.
var routeKeyRE = regexp.MustCompile(`^(/([A-Za-z0-9_.-]+|\(\?P<[a-z_]+>([^/()]|\(\?:[^/()]+\))+\)))+$`)

func TestCompatIndexRouteKeysAndItemMethods(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			rec, v := c.json("GET", c.names.Prefix+"/", "", nil)
			if rec.Code != 200 {
				t.Fatalf("index: %d %s", rec.Code, rec.Body)
			}
			idx := v.(map[string]any)
			if !slices.Contains(idx["namespaces"].([]any), any(c.names.Namespace)) {
				t.Errorf("namespaces %v lack %s", idx["namespaces"], c.names.Namespace)
			}
			routes := idx["routes"].(map[string]any)
			for key := range routes {
				if key != "/" && !routeKeyRE.MatchString(key) {
					t.Errorf("route key %q is not parseable by clients", key)
				}
			}
			for _, base := range []string{"posts", "pages", "media", "comments", "users", "categories", "tags"} {
				key := "/" + c.names.Namespace + "/" + base + `/(?P<id>[\d]+)`
				rt, ok := routes[key].(map[string]any)
				if !ok {
					t.Errorf("no item route %s", key)
					continue
				}
				for _, want := range []string{"GET", "POST", "PUT", "DELETE"} {
					if !slices.Contains(rt["methods"].([]any), any(want)) {
						t.Errorf("%s: methods %v lack %s", key, rt["methods"], want)
					}
				}
			}
		})
	}
}

func TestCompatPagingByFollowingNextLinks(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			want := c.createPosts(5)
			next := "http://example.com" + c.api("/posts") + "?per_page=2&orderby=id&order=asc&search=Post"
			var got []int64
			pages := 0
			for next != "" {
				pages++
				if pages > 5 {
					t.Fatal("paging does not end")
				}
				u, err := url.Parse(next)
				if err != nil || u.Scheme != "http" || u.Host != "example.com" {
					t.Fatalf("next link %q is not absolute", next)
				}
				rec, v := c.json("GET", next, "", nil)
				if rec.Code != 200 {
					t.Fatalf("GET %s: %d %s", next, rec.Code, rec.Body)
				}
				// Spelled as the mode names them (X-WP-Total), not as Go
				// canonicalises them.
				h := rec.Header()
				if total, pages := h[c.names.TotalHeader()], h[c.names.TotalPagesHeader()]; !slices.Equal(total, []string{"5"}) || !slices.Equal(pages, []string{"3"}) {
					t.Errorf("totals: %v", h)
				}
				got = append(got, idsOf(v)...)
				next = ""
				for _, part := range strings.Split(rec.Header().Get("Link"), ", ") {
					if strings.HasSuffix(part, `rel="next"`) {
						next = strings.TrimSuffix(strings.TrimPrefix(part, "<"), `>; rel="next"`)
						q, _ := url.Parse(next)
						if q.Query().Get("orderby") != "id" || q.Query().Get("search") != "Post" || q.Query().Get("per_page") != "2" {
							t.Errorf("next link %q lost the query", next)
						}
					}
				}
			}
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			if !slices.Equal(got, want) || pages != 3 {
				t.Errorf("followed %d pages to %v, want 3 pages of %v", pages, got, want)
			}
		})
	}
}

func TestCompatArraysInQueries(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			ids := c.createPosts(3)
			a, b := ids[0], ids[2]
			for _, q := range []string{
				fmt.Sprintf("include[]=%d&include[]=%d", a, b),
				fmt.Sprintf("include[0]=%d&include[1]=%d", a, b),
				fmt.Sprintf("include=%d,%d", a, b),
				fmt.Sprintf("include=%d&include=%d", a, b),
			} {
				rec, v := c.json("GET", c.api("/posts")+"?"+q, "", nil)
				if rec.Code != 200 {
					t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
				}
				if got := idsOf(v); !slices.Equal(got, []int64{a, b}) {
					t.Errorf("%s: ids %v, want [%d %d]", q, got, a, b)
				}
			}
		})
	}
}

func TestCompatEmbedAndFields(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			id := c.createPosts(1)[0]
			item := c.api(fmt.Sprintf("/posts/%d", id))
			embeddedKeys := func(q string) string {
				rec, v := c.json("GET", item+"?"+q, "", nil)
				if rec.Code != 200 {
					t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
				}
				emb, _ := v.(map[string]any)["_embedded"].(map[string]any)
				var k []string
				for key := range emb {
					k = append(k, key)
				}
				sort.Strings(k)
				return strings.Join(k, ",")
			}
			for q, want := range map[string]string{
				"_embed=author":                      "author",
				"_embed=wp%3Aterm,author":            "author,wp:term",
				"_embed=wp:term":                     "wp:term",
				"_embed=" + c.names.RelBase + "term": "wp:term",
				"_embed=true":                        "author,wp:term",
				"_embed":                             "author,wp:term",
			} {
				if got := embeddedKeys(q); got != want {
					t.Errorf("%s: embedded %q, want %q", q, got, want)
				}
			}
			rec, v := c.json("GET", c.api("/posts")+"?_fields=id,title", "", nil)
			if rec.Code != 200 {
				t.Fatalf("_fields: %d %s", rec.Code, rec.Body)
			}
			for _, it := range v.([]any) {
				if k := keys(it); k != "id,title" {
					t.Errorf("_fields=id,title: keys %s", k)
				}
			}
			_, v = c.json("GET", item+"?_fields=id,title.rendered,_links", "", nil)
			if k := keys(v); k != "_links,id,title" || keys(v.(map[string]any)["title"]) != "rendered" {
				t.Errorf("_fields=id,title.rendered,_links: %v", v)
			}
		})
	}
}

// keys returns the sorted keys of a decoded JSON object, comma-separated.
func keys(v any) string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestCompatMethodOverrideEmptyDeleteAndErrors(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			ids := c.createPosts(2)
			item := func(id int64) string { return c.api(fmt.Sprintf("/posts/%d", id)) }
			// POST with X-HTTP-Method-Override: PUT updates.
			rec, v := c.json("POST", item(ids[0]), `{"title":"Renamed"}`, c.basic("X-HTTP-Method-Override", "PUT"))
			if rec.Code != 200 || v.(map[string]any)["title"].(map[string]any)["raw"] != "Renamed" {
				t.Errorf("override PUT: %d %s", rec.Code, rec.Body)
			}
			// POST with X-HTTP-Method-Override: DELETE deletes.
			rec, _ = c.json("POST", item(ids[0])+"?force=true", "", c.basic("X-HTTP-Method-Override", "DELETE"))
			if rec.Code != 200 {
				t.Errorf("override DELETE: %d %s", rec.Code, rec.Body)
			}
			if rec, _ := c.json("GET", item(ids[0]), "", c.basic()); rec.Code != 404 {
				t.Errorf("after override DELETE: %d", rec.Code)
			}
			// DELETE with an empty body and a JSON content type, as
			// clients send it.
			r := httptest.NewRequest("DELETE", item(ids[1]), strings.NewReader(""))
			r.Header.Set("Content-Type", "application/json")
			c.basic()(r)
			w := httptest.NewRecorder()
			c.s.Handler().ServeHTTP(w, r)
			if w.Code != 200 {
				t.Errorf("empty-body DELETE: %d %s", w.Code, w.Body)
			}
			// Errors are {code, message, data: {status}}.
			rec, v = c.json("GET", c.api("/posts/999999"), "", nil)
			body, _ := v.(map[string]any)
			if rec.Code != 404 || keys(body) != "code,data,message" || body["code"] != "rest_post_invalid_id" ||
				body["data"].(map[string]any)["status"] != float64(404) {
				t.Errorf("error body: %d %s", rec.Code, rec.Body)
			}
		})
	}
}

func TestCompatOptionsAllowForPermissionChecks(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			id := c.createPosts(1)[0]
			for _, tc := range []struct {
				path  string
				mod   func(*http.Request)
				allow string
			}{
				{c.api("/posts"), nil, "GET"},
				{c.api("/posts"), c.basic(), "GET, POST"},
				{c.api(fmt.Sprintf("/posts/%d", id)), nil, "GET"},
				{c.api(fmt.Sprintf("/posts/%d", id)), c.basic(), "GET, POST, PUT, PATCH, DELETE"},
			} {
				rec, v := c.json("OPTIONS", tc.path, "", tc.mod)
				if rec.Code != 200 || v.(map[string]any)["namespace"] != c.names.Namespace {
					t.Errorf("OPTIONS %s: %d %s", tc.path, rec.Code, rec.Body)
				}
				if got := rec.Header().Get("Allow"); got != tc.allow {
					t.Errorf("OPTIONS %s (signed in %v): Allow %q, want %q", tc.path, tc.mod != nil, got, tc.allow)
				}
			}
		})
	}
}

func TestCompatCORSFromConfig(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			origin := func(o string, extra ...string) func(*http.Request) {
				return func(r *http.Request) {
					r.Header.Set("Origin", o)
					for i := 0; i+1 < len(extra); i += 2 {
						r.Header.Set(extra[i], extra[i+1])
					}
				}
			}
			rec := c.req("GET", c.api("/posts"), "", origin("https://front.example"))
			h := rec.Header()
			if h.Get("Access-Control-Allow-Origin") != "https://front.example" || h.Get("Access-Control-Allow-Credentials") != "true" ||
				h.Get("Access-Control-Expose-Headers") != c.names.TotalHeader()+", "+c.names.TotalPagesHeader()+", Link, Allow" {
				t.Errorf("allowed origin: %v", h)
			}
			rec = c.req("GET", c.api("/posts"), "", origin("https://other.example"))
			if rec.Header().Get("Access-Control-Allow-Origin") != "" || rec.Header().Get("Vary") != "Origin" {
				t.Errorf("other origin: %v", rec.Header())
			}
			// Preflight of a write that needs authentication.
			rec = c.req("OPTIONS", c.api("/posts/1"), "", origin("https://front.example", "Access-Control-Request-Method", "DELETE",
				"Access-Control-Request-Headers", strings.ToLower(c.names.NonceHeader())+",content-type"))
			if rec.Code != 204 || !strings.Contains(rec.Header().Get("Access-Control-Allow-Headers"), c.names.NonceHeader()) ||
				!strings.Contains(rec.Header().Get("Access-Control-Allow-Methods"), "DELETE") {
				t.Errorf("preflight: %d %v", rec.Code, rec.Header())
			}
		})
	}
}

func TestNonceEndpointAnswersSignedInBrowsers(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			endpoint := c.names.NonceEndpoint
			if m.compat != "" && endpoint != "/wp-admin/admin-ajax.php?action=rest-nonce" {
				t.Fatalf("compat nonce endpoint %q", endpoint)
			}
			// Not signed in: "0" with 400, as admin-ajax.php answers.
			rec := c.req("GET", endpoint, "", nil)
			if rec.Code != 400 || rec.Body.String() != "0" {
				t.Errorf("anonymous: %d %q", rec.Code, rec.Body)
			}
			cookie := c.signIn()
			rec = c.req("GET", endpoint, "", withCookie(cookie))
			nonce := rec.Body.String()
			if rec.Code != 200 || !regexp.MustCompile(`^[0-9a-f]{10}$`).MatchString(nonce) ||
				!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") || rec.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("signed in: %d %q %v", rec.Code, nonce, rec.Header())
			}
			// The nonce is good for the API under the mode's header name.
			if rec := c.req("GET", c.api("/users/me"), "", withCookie(cookie, c.names.NonceHeader(), nonce)); rec.Code != 200 {
				t.Errorf("users/me with the refreshed nonce: %d %s", rec.Code, rec.Body)
			}
			// POST works too (admin-ajax takes both); other methods do not.
			if rec := c.req("POST", endpoint, "", withCookie(cookie)); rec.Code != 200 {
				t.Errorf("POST: %d %s", rec.Code, rec.Body)
			}
			if rec := c.req("DELETE", endpoint, "", withCookie(cookie)); rec.Code != 405 {
				t.Errorf("DELETE: %d", rec.Code)
			}
			if m.compat != "" {
				for _, bad := range []string{"/wp-admin/admin-ajax.php", "/wp-admin/admin-ajax.php?action=heartbeat"} {
					if rec := c.req("GET", bad, "", withCookie(cookie)); rec.Code != 400 || rec.Body.String() != "0" {
						t.Errorf("%s: %d %q", bad, rec.Code, rec.Body)
					}
				}
				// The action can come in the form body, as jQuery posts it.
				if rec := c.req("POST", "/wp-admin/admin-ajax.php", "action=rest-nonce", withCookie(cookie)); rec.Code != 200 {
					t.Errorf("action in the body: %d %q", rec.Code, rec.Body)
				}
			}
			// The settings object names the endpoint.
			page := c.req("GET", "/", "", withCookie(cookie)).Body.String()
			want := `"nonceEndpoint":"http://example.com` + strings.ReplaceAll(endpoint, "&", `\u0026`) + `"`
			if !strings.Contains(page, want) {
				t.Errorf("settings object lacks %s:\n%s", want, page)
			}
			if m.compat != "" && !strings.Contains(page, "window.wpApiSettings = window.folioApiSettings;") {
				t.Errorf("no wpApiSettings in compat mode:\n%s", page)
			}
			if m.compat == "" && strings.Contains(page, "wpApiSettings") {
				t.Errorf("wpApiSettings in the default mode:\n%s", page)
			}
		})
	}
}

func TestNonceParameterInBothModes(t *testing.T) {
	t.Parallel()
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			c := newCompatSite(t, m.compat)
			cookie := c.signIn()
			nonce := c.req("GET", c.names.NonceEndpoint, "", withCookie(cookie)).Body.String()
			param := c.names.NonceParam
			if param != "_wpnonce" {
				t.Fatalf("nonce parameter %q, want _wpnonce (cli.md)", param)
			}
			if rec := c.req("GET", c.api("/users/me")+"?"+param+"="+nonce, "", withCookie(cookie)); rec.Code != 200 {
				t.Errorf("nonce in the query: %d %s", rec.Code, rec.Body)
			}
			rec := c.req("POST", c.api("/posts"), "title=Form&status=draft&"+param+"="+nonce, withCookie(cookie))
			if rec.Code != 201 {
				t.Errorf("nonce in the form body: %d %s", rec.Code, rec.Body)
			}
			// Without a nonce the cookie alone does not sign in.
			if rec := c.req("POST", c.api("/posts"), "title=NoNonce", withCookie(cookie)); rec.Code != 401 {
				t.Errorf("cookie without nonce: %d %s", rec.Code, rec.Body)
			}
			if rec := c.req("GET", c.api("/users/me")+"?"+param+"=0000000000", "", withCookie(cookie)); rec.Code != 403 || errorCode(t, rec) != "rest_cookie_invalid_nonce" {
				t.Errorf("bad nonce: %d %s", rec.Code, rec.Body)
			}
		})
	}
}
