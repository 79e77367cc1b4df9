package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/testkit"
)

// uploadsFixture is a testkit site seen through its handler, with the
// application password of each of its users.
type uploadsFixture struct {
	t    *testing.T
	s    *server.Server
	pass map[string]string // login → application password
}

func newUploadsFixture(t *testing.T, mod ...func(*config.Config)) *uploadsFixture {
	site := newSite(t, mod...)
	f := &uploadsFixture{t: t, s: site.Server, pass: map[string]string{}}
	for login, u := range site.Users {
		f.pass[login] = u.AppPassword
	}
	return f
}

func (f *uploadsFixture) req(method, target, login string, body []byte, headers ...string) *httptest.ResponseRecorder {
	f.t.Helper()
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if login != "" {
		req.SetBasicAuth(login, f.pass[login])
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	f.s.Handler().ServeHTTP(rec, req)
	return rec
}

func (f *uploadsFixture) json(rec *httptest.ResponseRecorder, status int) map[string]any {
	f.t.Helper()
	if rec.Code != status {
		f.t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		f.t.Fatal(err)
	}
	return m
}

// path returns the URL path of a source_url.
func urlPath(u string) string {
	i := strings.Index(u, "/uploads/")
	return u[i:]
}

func TestUploadsServedWithTypeNosniffETagAndRange(t *testing.T) {
	f := newUploadsFixture(t)
	data := testkit.PNG(200, 100)
	m := f.json(f.req("POST", "/api/svc/v2/media", "editor", data, "Content-Type", "image/png", "Content-Disposition", `attachment; filename="pic.png"`), 201)
	p := urlPath(m["source_url"].(string))
	rec := f.req("GET", p, "", nil)
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), data) {
		t.Fatalf("GET %s = %d (%d bytes)", p, rec.Code, rec.Body.Len())
	}
	h := rec.Header()
	if h.Get("Content-Type") != "image/png" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("ETag") == "" || h.Get("Last-Modified") == "" {
		t.Errorf("headers = %v", h)
	}
	if h.Get("Cache-Control") != "public, max-age=86400" {
		t.Errorf("Cache-Control = %q", h.Get("Cache-Control"))
	}
	if rec := f.req("GET", p, "", nil, "If-None-Match", h.Get("ETag")); rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", rec.Code)
	}
	rec = f.req("GET", p, "", nil, "Range", "bytes=0-7")
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), data[:8]) {
		t.Errorf("Range: %d %q", rec.Code, rec.Body.Bytes())
	}
	if rec := f.req("HEAD", p, "", nil); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d", rec.Code)
	}
	if rec := f.req("POST", p, "", nil); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
	// A generated size is served too.
	thumb := urlPath(m["media_details"].(map[string]any)["sizes"].(map[string]any)["thumbnail"].(map[string]any)["source_url"].(string))
	if rec := f.req("GET", thumb, "", nil); rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" {
		t.Errorf("thumbnail: %d", rec.Code)
	}
	// Paths that no attachment owns, or that escape the folder, are 404.
	for _, bad := range []string{"/uploads/", "/uploads/nope.png", "/uploads/../folio.db", "/uploads/" + strings.TrimPrefix(p, "/uploads/") + "x"} {
		if rec := f.req("GET", bad, "", nil); rec.Code != 404 {
			t.Errorf("GET %s = %d, want 404", bad, rec.Code)
		}
	}
	// A wrong Authorization header never falls back to anonymous.
	req := httptest.NewRequest("GET", p, nil)
	req.SetBasicAuth("editor", "wrong password")
	rec = httptest.NewRecorder()
	f.s.Handler().ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Errorf("bad credentials: %d", rec.Code)
	}
	// After a forced delete the files are gone.
	f.json(f.req("DELETE", fmt.Sprintf("/api/svc/v2/media/%v?force=true", m["id"]), "editor", nil), 200)
	if rec := f.req("GET", p, "", nil); rec.Code != 404 {
		t.Errorf("deleted file: %d", rec.Code)
	}
}

func TestUploadsOfPrivateAndDraftPostsAreNotServed(t *testing.T) {
	f := newUploadsFixture(t)
	for _, status := range []string{"private", "draft"} {
		post := f.json(f.req("POST", "/api/svc/v2/posts", "editor", []byte(`{"title":"Secret","status":"`+status+`"}`), "Content-Type", "application/json"), 201)
		m := f.json(f.req("POST", fmt.Sprintf("/api/svc/v2/media?post=%v", post["id"]), "editor", testkit.PNG(300, 300),
			"Content-Type", "image/png", "Content-Disposition", `attachment; filename="secret.png"`), 201)
		files := []string{urlPath(m["source_url"].(string))}
		for _, s := range m["media_details"].(map[string]any)["sizes"].(map[string]any) {
			files = append(files, urlPath(s.(map[string]any)["source_url"].(string)))
		}
		for _, p := range files {
			if rec := f.req("GET", p, "", nil); rec.Code != 404 {
				t.Errorf("%s: anonymous GET %s = %d, want 404", status, p, rec.Code)
			}
			if rec := f.req("GET", p, "subscriber", nil); rec.Code != 404 {
				t.Errorf("%s: subscriber GET %s = %d, want 404", status, p, rec.Code)
			}
			rec := f.req("GET", p, "editor", nil)
			if rec.Code != 200 || rec.Header().Get("Cache-Control") != "private, no-cache" {
				t.Errorf("%s: editor GET %s = %d %q", status, p, rec.Code, rec.Header().Get("Cache-Control"))
			}
		}
		// Publishing the post makes its media public.
		if status == "draft" {
			f.json(f.req("POST", fmt.Sprintf("/api/svc/v2/posts/%v", post["id"]), "editor", []byte(`{"status":"publish"}`), "Content-Type", "application/json"), 200)
			if rec := f.req("GET", files[0], "", nil); rec.Code != 200 {
				t.Errorf("published post's media: %d", rec.Code)
			}
		}
	}
}
