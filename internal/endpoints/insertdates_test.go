package endpoints_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
)

// TestOnInsertModifiedEqualsDate: a new post, page, custom post or
// attachment was last modified when it is dated (modified_gmt null with
// date_gmt for an undated draft), as the platform inserts it; only later
// updates move modified to now.
func TestOnInsertModifiedEqualsDate(t *testing.T) {
	e := newMediaEnv(t, func(c *config.Config) {
		c.PostTypes = append(c.PostTypes, config.PostType{Name: "book", RestBase: "books", Supports: []string{"title", "editor"}})
	})
	for _, base := range []string{"posts", "pages", "books"} {
		dated := e.do("POST", "/api/svc/v2/"+base, "editor", map[string]any{"title": "Old", "status": "publish", "date": "2014-11-07T10:14:25"})
		dated.WantStatus(201)
		m := dated.Object()
		if m["modified"] != "2014-11-07T10:14:25" || m["modified_gmt"] != m["date_gmt"] || m["date_gmt"] == nil {
			t.Errorf("%s dated: date %v/%v, modified %v/%v", base, m["date"], m["date_gmt"], m["modified"], m["modified_gmt"])
		}
		draft := e.do("POST", "/api/svc/v2/"+base, "editor", map[string]any{"title": "Draft"})
		draft.WantStatus(201)
		d := draft.Object()
		if d["modified"] != d["date"] || d["modified_gmt"] != nil || d["date_gmt"] != nil {
			t.Errorf("%s draft: date %v/%v, modified %v/%v", base, d["date"], d["date_gmt"], d["modified"], d["modified_gmt"])
		}
		// An update moves modified to now.
		id := int64(m["id"].(float64))
		u := e.do("POST", fmt.Sprintf("/api/svc/v2/%s/%d", base, id), "editor", map[string]any{"title": "Newer"})
		u.WantStatus(200)
		if um := u.Object(); um["modified"] == "2014-11-07T10:14:25" || um["date"] != "2014-11-07T10:14:25" {
			t.Errorf("%s update: date %v, modified %v", base, um["date"], um["modified"])
		}
	}
	up := e.uploadRaw("editor", "", pngOf(t, 4, 4), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="a.png"`)
	up.WantStatus(201)
	if m := up.Object(); m["modified"] != m["date"] || m["modified_gmt"] != m["date_gmt"] {
		t.Errorf("media: date %v/%v, modified %v/%v", m["date"], m["date_gmt"], m["modified"], m["modified_gmt"])
	}
}

// TestMediaCaptionAndDescriptionAreStrings: the spec's media caption and
// description are strings (the stored HTML after the allow-list); the
// WordPress-compatibility mode keeps the {raw, rendered} objects its
// clients read.
func TestMediaCaptionAndDescriptionAreStrings(t *testing.T) {
	for _, mode := range []struct{ compat, base string }{{"", "/api/svc/v2"}, {config.CompatWordPress, "/wp-json/wp/v2"}} {
		e := newMediaEnv(t, func(c *config.Config) { c.Compat = mode.compat })
		up := e.do("POST", mode.base+"/media?caption="+url.QueryEscape("A <b>bold</b> <script>x</script>caption")+"&description=Desc", "editor",
			pngOf(t, 4, 4), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="c.png"`)
		up.WantStatus(201)
		for _, ctx := range []string{"view", "edit"} {
			m := e.do("GET", fmt.Sprintf("%s/media/%v?context=%s", mode.base, up.Object()["id"], ctx), "editor").Object()
			if mode.compat == "" {
				if m["caption"] != "A <b>bold</b> caption" || m["description"] != "Desc" {
					t.Errorf("default names, %s: caption %#v, description %#v", ctx, m["caption"], m["description"])
				}
				continue
			}
			c, ok := m["caption"].(map[string]any)
			if !ok || !strings.Contains(fmt.Sprint(c["rendered"]), "<b>bold</b>") {
				t.Errorf("wordpress names, %s: caption %#v", ctx, m["caption"])
			}
			if _, ok := m["description"].(map[string]any); !ok {
				t.Errorf("wordpress names, %s: description %#v", ctx, m["description"])
			}
		}
	}
}

// TestSlugListsInWordPressMode: WordPress 4.7+ clients send the slug
// filter as a comma list or an array and get every match; the spec's slug
// is one string, so the default names keep that.
func TestSlugListsInWordPressMode(t *testing.T) {
	for _, mode := range []struct{ compat, base string }{{"", "/api/svc/v2"}, {config.CompatWordPress, "/wp-json/wp/v2"}} {
		e := newEnv(t, func(c *config.Config) { c.Compat = mode.compat })
		for _, name := range []string{"Go", "PHP", "Rust"} {
			e.do("POST", mode.base+"/tags", "editor", map[string]any{"name": name}).WantStatus(201)
			e.do("POST", mode.base+"/posts", "editor", map[string]any{"title": name + " post", "slug": strings.ToLower(name), "status": "publish"}).WantStatus(201)
			e.do("POST", mode.base+"/pages", "editor", map[string]any{"title": name + " page", "slug": strings.ToLower(name), "status": "publish"}).WantStatus(201)
		}
		for _, route := range []string{"tags", "posts", "pages"} {
			for _, q := range []string{"slug=go,php", "slug[]=go&slug[]=php", "slug=go%20php"} {
				r := e.do("GET", mode.base+"/"+route+"?"+q, "")
				if mode.compat == "" && strings.Contains(q, "[]") {
					r.WantError(400, "rest_invalid_param") // slug is not of type string
					continue
				}
				r.WantStatus(200)
				want := 2
				if mode.compat == "" {
					want = 0 // one slug: "gophp" or "go-php" matches nothing
				}
				if n := len(r.Array()); n != want {
					t.Errorf("%s %s?%s: %d matches, want %d", mode.compat, route, q, n, want)
				}
			}
			if n := len(e.do("GET", mode.base+"/"+route+"?slug=go", "").Array()); n != 1 {
				t.Errorf("%s %s?slug=go: %d matches", mode.compat, route, n)
			}
		}
		if mode.compat != "" {
			r := e.do("GET", mode.base+"/users?slug=editor,author", "")
			r.WantStatus(200)
			if n := len(r.Array()); n != 1 { // only the editor has published posts
				t.Errorf("users?slug=editor,author: %d, want 1", n)
			}
		}
	}
}
