package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
)

func TestOpenAPIDescriptionIsPublicWithAnETagInBothModes(t *testing.T) {
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			c := newCompatSite(t, m.compat)
			target := c.names.Prefix + "/openapi.json"
			rec := c.req("GET", target, "", nil)
			if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
				t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Header())
			}
			var doc struct {
				OpenAPI string                    `json:"openapi"`
				Servers []struct{ URL string }    `json:"servers"`
				Paths   map[string]map[string]any `json:"paths"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.OpenAPI != "3.1.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != c.names.Prefix {
				t.Errorf("openapi %q, servers %+v", doc.OpenAPI, doc.Servers)
			}
			for _, p := range []string{"/" + c.names.Namespace + "/posts", "/" + c.names.Namespace + "/posts/{id}", "/batch/v1"} {
				if doc.Paths[p] == nil {
					t.Errorf("%s is not described", p)
				}
			}
			if !strings.Contains(rec.Body.String(), `"`+c.names.TotalHeader()+`"`) {
				t.Errorf("the pagination header %s is not described", c.names.TotalHeader())
			}
			if rec.Body.String() != string(c.s.OpenAPI()) {
				t.Error("the served description differs from Server.OpenAPI")
			}
			tag := rec.Header().Get("ETag")
			if tag == "" || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("headers %v", rec.Header())
			}
			if again := c.req("GET", target, "", func(r *http.Request) { r.Header.Set("If-None-Match", tag) }); again.Code != 304 {
				t.Errorf("If-None-Match with the current tag: %d", again.Code)
			}
			if head := c.req("HEAD", target, "", nil); head.Code != 200 || head.Body.Len() != 0 {
				t.Errorf("HEAD: %d with %d bytes", head.Code, head.Body.Len())
			}
			if post := c.req("POST", target, "", nil); post.Code != 405 {
				t.Errorf("POST: %d", post.Code)
			}
			// Signed in or not, the description is the same document.
			if signed := c.req("GET", target, "", c.basic()); signed.Body.String() != rec.Body.String() {
				t.Error("the description depends on the caller")
			}
		})
	}
}

func TestOpenAPIDescriptionFollowsTheConfiguredTypes(t *testing.T) {
	c := newLoginSite(t, func(cfg *config.Config) {
		cfg.Site.Title = "Books & Co"
		cfg.PostTypes = append(cfg.PostTypes, config.PostType{Name: "book", RestBase: "books", Supports: []string{"title", "editor"}})
		cfg.Taxonomies = append(cfg.Taxonomies, config.Taxonomy{Name: "genre", RestBase: "genres", Hierarchical: true, ObjectTypes: []string{"book"}})
	})
	var doc struct {
		Info struct {
			Title string `json:"title"`
		} `json:"info"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(c.s.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.Title != "Books & Co REST API" {
		t.Errorf("title %q", doc.Info.Title)
	}
	for _, p := range []string{"/svc/v2/books", "/svc/v2/books/{id}", "/svc/v2/genres"} {
		if doc.Paths[p] == nil {
			t.Errorf("%s is not described", p)
		}
	}
	book := doc.Components.Schemas["Book"]
	if book.Properties["genres"] == nil || book.Properties["title"] == nil {
		t.Errorf("Book schema lacks the genre terms or the title: %v", book.Properties)
	}
	if _, ok := doc.Paths["/svc/v2/books"]["post"]; !ok {
		t.Error("no create operation for books")
	}
}

// scriptRE matches a script element and its src attribute, if any.
var scriptRE = regexp.MustCompile(`<script([^>]*)>`)

func TestAPIDocsPageHasAStrictCSPAndNoInlineScript(t *testing.T) {
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			c := newCompatSite(t, m.compat)
			rec := c.req("GET", c.names.Prefix+"/docs", "", nil)
			if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				t.Fatalf("docs page: %d %v", rec.Code, rec.Header())
			}
			csp := rec.Header().Get("Content-Security-Policy")
			if !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe-") || !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("CSP %q", csp)
			}
			page := rec.Body.String()
			if !strings.Contains(page, `data-spec-url="`+c.names.Prefix+`/openapi.json"`) {
				t.Errorf("the page does not name the description: %s", page)
			}
			if strings.Contains(page, "data-nonce=") {
				t.Error("an anonymous page carries a nonce")
			}
			scripts := scriptRE.FindAllStringSubmatch(page, -1)
			if len(scripts) != 2 {
				t.Fatalf("%d scripts, want the renderer and its start: %s", len(scripts), page)
			}
			for _, s := range scripts {
				src := regexp.MustCompile(`src="([^"]+)"`).FindStringSubmatch(s[1])
				if src == nil {
					t.Fatalf("inline script: %s", s[0])
				}
				if a := c.req("GET", strings.ReplaceAll(src[1], "&amp;", "&"), "", nil); a.Code != 200 || !strings.HasPrefix(a.Header().Get("Content-Type"), "text/javascript") {
					t.Errorf("%s: %d %s", src[1], a.Code, a.Header().Get("Content-Type"))
				}
			}
			if !strings.Contains(page, `/assets/swagger-ui.css?ver=`) {
				t.Error("no style sheet")
			}
			if slash := c.req("GET", c.names.Prefix+"/docs/", "", nil); slash.Code != 200 {
				t.Errorf("docs/ : %d", slash.Code)
			}
			if post := c.req("POST", c.names.Prefix+"/docs", "", nil); post.Code != 405 {
				t.Errorf("POST docs: %d", post.Code)
			}

			// A signed-in browser's page carries its nonce, and the nonce
			// works.
			cookie := c.signIn()
			signed := c.req("GET", c.names.Prefix+"/docs", "", withCookie(cookie))
			nonce := regexp.MustCompile(`data-nonce="([0-9a-f]{10})"`).FindStringSubmatch(signed.Body.String())
			if nonce == nil || signed.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("signed-in page: %v %s", signed.Header(), signed.Body)
			}
			if me := c.req("GET", c.api("/users/me"), "", withCookie(cookie, c.names.NonceHeader(), nonce[1])); me.Code != 200 {
				t.Errorf("the page's nonce: %d %s", me.Code, me.Body)
			}
		})
	}
}

func TestBatchRouteFollowsTheModeAndTheNonceRule(t *testing.T) {
	for _, m := range compatModes {
		t.Run(m.name, func(t *testing.T) {
			c := newCompatSite(t, m.compat)
			batch := c.names.Prefix + "/batch/v1"
			body := fmt.Sprintf(`{"requests":[{"path":"/%s/posts","body":{"title":"Batched","status":"publish"}}]}`, c.names.Namespace)
			status := func(mod func(*http.Request)) (int, int, string) {
				rec, v := c.json("POST", batch, body, mod)
				if rec.Code != 207 {
					return rec.Code, 0, ""
				}
				en := v.(map[string]any)["responses"].([]any)[0].(map[string]any)
				code, _ := en["body"].(map[string]any)["code"].(string)
				return rec.Code, int(en["status"].(float64)), code
			}
			cookie := c.signIn()
			// The cookie without a nonce is anonymous: the sub-request too.
			if outer, inner, code := status(withCookie(cookie)); outer != 207 || inner != 401 || code != "rest_cannot_create" {
				t.Errorf("cookie without nonce: %d / %d %s", outer, inner, code)
			}
			// A wrong nonce stops the batch itself.
			if rec, _ := c.json("POST", batch, body, withCookie(cookie, c.names.NonceHeader(), "0123456789")); rec.Code != 403 {
				t.Errorf("wrong nonce: %d %s", rec.Code, rec.Body)
			}
			page := c.req("GET", "/", "", withCookie(cookie)).Body.String()
			nonce := nonceRE.FindStringSubmatch(page)[1]
			if outer, inner, _ := status(withCookie(cookie, c.names.NonceHeader(), nonce)); outer != 207 || inner != 201 {
				t.Errorf("cookie + nonce: %d / %d", outer, inner)
			}
			if outer, inner, _ := status(c.basic()); outer != 207 || inner != 201 {
				t.Errorf("application password: %d / %d", outer, inner)
			}
			other := "/wp-json/batch/v1"
			if m.compat != "" {
				other = "/api/batch/v1"
			}
			if rec := c.req("POST", other, body, nil); rec.Code != 404 {
				t.Errorf("%s answers %d in %s mode", other, rec.Code, m.name)
			}
			// Webhooks are managed one at a time.
			rec, v := c.json("POST", batch, `{"requests":[{"path":"/`+c.names.Namespace+`/webhooks","body":{"url":"https://hooks.example/x"}}]}`, c.basic())
			if rec.Code != 207 || !strings.Contains(fmt.Sprint(v), "rest_batch_not_allowed") {
				t.Errorf("webhooks in a batch: %d %v", rec.Code, v)
			}
		})
	}
}
