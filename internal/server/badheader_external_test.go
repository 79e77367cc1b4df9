package server_test

import (
	"net/http"
	"testing"

	"github.com/folio-server/folio/internal/testkit"
)

// TestInvalidUTF8InHeadersIsNeverA5xx: header text that ends up stored (a
// session's or a comment's user agent) is made valid UTF-8 first, so no
// store refuses it (PostgreSQL does).
func TestInvalidUTF8InHeadersIsNeverA5xx(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	ua := func(r *http.Request) { r.Header.Set("User-Agent", "agent \xff\xfe\x00 x") }
	if rec := l.req("POST", "/login", "log="+ed+"&pwd="+edPass, ua); rec.Code != http.StatusFound {
		t.Errorf("sign in with a bad user agent: %d %s", rec.Code, rec.Body)
	}
	comment := func(r *http.Request) {
		ua(r)
		r.Header.Set("Content-Type", "application/json")
	}
	rec := l.req("POST", "/api/svc/v2/comments", `{"post":0,"content":"hi","author_name":"a","author_email":"a@example.org"}`, comment)
	if rec.Code >= 500 {
		t.Errorf("comment with a bad user agent: %d %s", rec.Code, rec.Body)
	}
}

// TestInvalidUTF8InAnUploadNameIsNeverA5xx: the file name of an upload
// (Content-Disposition) becomes the stored name and the default title.
func TestInvalidUTF8InAnUploadNameIsNeverA5xx(t *testing.T) {
	t.Parallel()
	l := newLoginSite(t, nil)
	for _, name := range []string{"bad\xff\xfe.png", "nul\x00.png", "\xc3.png"} {
		up := func(r *http.Request) {
			r.Header.Set("Authorization", "Basic "+basicCred(ed, l.appPwd))
			r.Header.Set("Content-Type", "image/png")
			r.Header.Set("Content-Disposition", `attachment; filename="`+name+`"`)
		}
		rec := l.req("POST", "/api/svc/v2/media", string(testkit.PNG(4, 4)), up)
		if rec.Code >= 500 {
			t.Errorf("upload named %q: %d %s", name, rec.Code, rec.Body)
		}
	}
}
