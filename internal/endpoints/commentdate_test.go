package endpoints_test

import (
	"fmt"
	"testing"

	"github.com/folio-server/folio/internal/config"
)

// TestCommentDateOnCreateIsStoredAndReturned: a date (or date_gmt) given
// when a comment is created is stored and returned as given, for every
// caller allowed to create comments (guests included), in both naming
// modes; one that is not a date is rest_invalid_param.
func TestCommentDateOnCreateIsStoredAndReturned(t *testing.T) {
	for _, mode := range []struct{ compat, base string }{{"", "/api/svc/v2"}, {config.CompatWordPress, "/wp-json/wp/v2"}} {
		t.Run("compat="+mode.compat, func(t *testing.T) {
			e := newCommentEnv(t, func(c *config.Config) { c.Compat = mode.compat })
			pr := e.do("POST", mode.base+"/posts", "author", map[string]any{"title": "Commented", "status": "publish"})
			pr.WantStatus(201)
			post := pr.Object()["id"]
			for _, login := range []string{"", "subscriber", "author", "editor"} {
				for _, field := range []string{"date", "date_gmt"} {
					e.tick()
					body := map[string]any{"post": post, "content": fmt.Sprintf("dated by %q, %s", login, field), field: "2014-11-07T10:14:25"}
					if login == "" {
						body["author_name"] = "Guest"
						body["author_email"] = "guest@example.com"
					}
					r := e.do("POST", mode.base+"/comments", login, body)
					r.WantStatus(201)
					m := r.Object()
					if m["date"] != "2014-11-07T10:14:25" || m["date_gmt"] != "2014-11-07T10:14:25" {
						t.Errorf("caller %q, %s: created with date %v, date_gmt %v", login, field, m["date"], m["date_gmt"])
					}
					got := e.do("GET", fmt.Sprintf("%s/comments/%v?context=edit", mode.base, m["id"]), "editor")
					got.WantStatus(200)
					if g := got.Object(); g["date"] != "2014-11-07T10:14:25" || g["date_gmt"] != "2014-11-07T10:14:25" {
						t.Errorf("caller %q, %s: stored date %v, date_gmt %v", login, field, g["date"], g["date_gmt"])
					}
				}
			}
			for _, field := range []string{"date", "date_gmt"} {
				e.tick()
				e.do("POST", mode.base+"/comments", "subscriber", map[string]any{"post": post, "content": "bad date", field: "not a date"}).
					WantError(400, "rest_invalid_param")
			}
		})
	}
}
