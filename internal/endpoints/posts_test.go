package endpoints_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

const posts = "/api/svc/v2/posts"

func TestCreatePostPermissionsByRole(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		role   string
		body   map[string]any
		status int
		code   string
	}{
		{"administrator", map[string]any{"title": "A", "status": "publish"}, 201, ""},
		{"editor", map[string]any{"title": "A", "status": "publish"}, 201, ""},
		{"author", map[string]any{"title": "A", "status": "publish"}, 201, ""},
		{"contributor", map[string]any{"title": "A", "status": "publish"}, 403, "rest_cannot_publish"},
		{"contributor", map[string]any{"title": "A", "status": "private"}, 403, "rest_cannot_publish"},
		{"contributor", map[string]any{"title": "A", "status": "pending"}, 201, ""},
		{"contributor", map[string]any{"title": "A"}, 201, ""},
		{"contributor", map[string]any{"title": "A", "password": "x"}, 403, "rest_cannot_publish"},
		{"subscriber", map[string]any{"title": "A"}, 403, "rest_cannot_create"},
		{"", map[string]any{"title": "A"}, 401, "rest_cannot_create"},
		{"author", map[string]any{"title": "A", "author": 1}, 403, "rest_cannot_edit_others"},
		{"author", map[string]any{"title": "A", "sticky": true}, 403, "rest_cannot_assign_sticky"},
		{"editor", map[string]any{"title": "A", "sticky": true}, 201, ""},
		{"", map[string]any{"title": "A", "sticky": true}, 401, "rest_cannot_assign_sticky"},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, tc.role), func(t *testing.T) {
			r := e.do("POST", posts, tc.role, tc.body)
			if tc.code != "" {
				r.WantError(tc.status, tc.code)
				return
			}
			r.WantStatus(tc.status)
			m := r.Object()
			if r.Header.Get("Location") != e.URL+posts+"/"+fmt.Sprint(m["id"]) {
				t.Fatalf("Location = %q", r.Header.Get("Location"))
			}
			// Create responses are in edit context.
			if _, ok := m["status"]; !ok {
				t.Fatalf("create response lacks edit-context field status: %s", r.Body)
			}
			if m["author"] != float64(e.ID(tc.role)) {
				t.Fatalf("author = %v, want %d", m["author"], e.ID(tc.role))
			}
		})
	}
}

func TestCreatePostDefaultsAndValidation(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", posts, "editor", map[string]any{"title": "Hello world"})
	r.WantStatus(201)
	m := r.Object()
	if m["status"] != "draft" {
		t.Errorf("default status = %v, want draft", m["status"])
	}
	if m["date_gmt"] != nil {
		t.Errorf("draft date_gmt = %v, want null", m["date_gmt"])
	}
	if m["slug"] != "" {
		t.Errorf("draft without slug got slug %v", m["slug"])
	}
	if m["format"] != "standard" || m["sticky"] != false || m["comment_status"] != "open" {
		t.Errorf("defaults: format %v sticky %v comment_status %v", m["format"], m["sticky"], m["comment_status"])
	}

	e.do("POST", posts, "editor", map[string]any{"id": 3, "title": "x"}).WantError(400, "rest_post_exists")
	e.do("POST", posts, "editor", "id=3&title=x").WantError(400, "rest_post_exists")
	e.do("POST", posts, "editor", map[string]any{"title": "x", "author": 9999}).WantError(400, "rest_invalid_author")
	e.do("POST", posts, "editor", map[string]any{"title": "", "content": "", "excerpt": ""}).WantError(400, "empty_content")
	e.do("POST", posts, "editor", map[string]any{}).WantError(400, "empty_content")
	e.do("POST", posts, "editor", map[string]any{"title": "x", "featured_media": 12345}).WantError(400, "rest_invalid_featured_media")
	e.do("POST", posts, "editor", map[string]any{"title": "x", "sticky": true, "password": "pw"}).WantError(400, "rest_invalid_field")

	bad := e.do("POST", posts, "editor", map[string]any{"title": "x", "status": "bogus", "format": "nope", "comment_status": "maybe"}).WantError(400, "rest_invalid_param")
	params := bad["data"].(map[string]any)["params"].(map[string]any)
	for _, name := range []string{"status", "format", "comment_status"} {
		if _, ok := params[name]; !ok {
			t.Errorf("params lacks %s: %v", name, params)
		}
	}
	if !strings.HasPrefix(params["status"].(string), "status is not one of publish, future, draft, pending, private") {
		t.Errorf("status reason = %q", params["status"])
	}
	d := e.do("POST", posts, "editor", map[string]any{"title": "x", "date": "2020-02-30T10:00:00"}).WantError(400, "rest_invalid_param")
	if d["data"].(map[string]any)["params"].(map[string]any)["date"] != "The date you provided is invalid." {
		t.Errorf("date reason: %v", d["data"])
	}
	e.do("POST", posts, "editor", map[string]any{"title": "x", "author": "abc"}).WantError(400, "rest_invalid_param")
}

func TestCreateAcceptsRawObjectsAndFiltersHTML(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", posts, "editor", map[string]any{
		"title":   map[string]any{"raw": "Raw <b>title</b>"},
		"content": map[string]any{"raw": "Hello<script>alert(1)</script> world"},
		"excerpt": "Short",
		"status":  "publish",
	})
	r.WantStatus(201)
	m := r.Object()
	title := m["title"].(map[string]any)
	if title["raw"] != "Raw <b>title</b>" {
		t.Errorf("title.raw = %v", title["raw"])
	}
	c := m["content"].(map[string]any)
	if strings.Contains(c["raw"].(string), "script") {
		t.Errorf("script survived the HTML filter: %v", c["raw"])
	}
	if !strings.Contains(c["rendered"].(string), "<p>") {
		t.Errorf("content not auto-paragraphed: %v", c["rendered"])
	}
	if m["slug"] != "raw-title" {
		t.Errorf("slug = %v, want raw-title", m["slug"])
	}
}

func TestPostDates(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", posts, "editor", map[string]any{"title": "d", "status": "publish", "date": "2021-03-04T05:06:07+02:00"})
	r.WantStatus(201)
	m := r.Object()
	if m["date_gmt"] != "2021-03-04T03:06:07" || m["date"] != "2021-03-04T03:06:07" {
		t.Errorf("date %v date_gmt %v", m["date"], m["date_gmt"])
	}
	// date_gmt ignores any offset.
	r = e.do("POST", posts, "editor", map[string]any{"title": "d", "status": "publish", "date_gmt": "2021-03-04T05:06:07+02:00"})
	if m := r.Object(); m["date_gmt"] != "2021-03-04T05:06:07" {
		t.Errorf("date_gmt = %v", m["date_gmt"])
	}
	// date wins over date_gmt.
	r = e.do("POST", posts, "editor", map[string]any{"title": "d", "status": "publish", "date": "2019-01-01 00:00:00", "date_gmt": "2021-03-04T05:06:07"})
	if m := r.Object(); m["date_gmt"] != "2019-01-01T00:00:00" {
		t.Errorf("date_gmt = %v, want date to win", m["date_gmt"])
	}
	// publish with a future date becomes future; future with a past date publish.
	future := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02T15:04:05")
	if m := e.do("POST", posts, "editor", map[string]any{"title": "f", "status": "publish", "date": future}).Object(); m["status"] != "future" {
		t.Errorf("status = %v, want future", m["status"])
	}
	if m := e.do("POST", posts, "editor", map[string]any{"title": "f", "status": "future", "date": "2001-01-01T00:00:00"}).Object(); m["status"] != "publish" {
		t.Errorf("status = %v, want publish", m["status"])
	}
	// Publishing a draft without a date stamps it.
	d := e.do("POST", posts, "editor", map[string]any{"title": "draft"}).Object()
	if d["date_gmt"] != nil {
		t.Fatalf("draft date_gmt %v", d["date_gmt"])
	}
	u := e.do("PUT", fmt.Sprintf("%s/%v", posts, d["id"]), "editor", map[string]any{"status": "publish"}).Object()
	if u["date_gmt"] == nil || u["status"] != "publish" || u["slug"] != "draft" {
		t.Errorf("published draft: date_gmt %v status %v slug %v", u["date_gmt"], u["status"], u["slug"])
	}
}

func TestPostTimezoneDerivesLocalDate(t *testing.T) {
	e := newEnv(t, func(c *configT) { c.Site.Timezone = "Europe/Berlin" })
	m := e.do("POST", posts, "editor", map[string]any{"title": "tz", "status": "publish", "date": "2021-07-01T10:00:00Z"}).Object()
	if m["date"] != "2021-07-01T12:00:00" || m["date_gmt"] != "2021-07-01T10:00:00" {
		t.Errorf("date %v date_gmt %v", m["date"], m["date_gmt"])
	}
}

func TestSlugUniqueness(t *testing.T) {
	e := newEnv(t)
	slug := func(body map[string]any) any { return e.do("POST", posts, "editor", body).Object()["slug"] }
	if s := slug(map[string]any{"title": "Same Title", "status": "publish"}); s != "same-title" {
		t.Fatalf("first slug %v", s)
	}
	if s := slug(map[string]any{"title": "Same Title", "status": "publish"}); s != "same-title-2" {
		t.Fatalf("second slug %v", s)
	}
	if s := slug(map[string]any{"title": "x", "slug": "same-title", "status": "publish"}); s != "same-title-3" {
		t.Fatalf("third slug %v", s)
	}
	// Drafts keep the given slug, even a taken one.
	if s := slug(map[string]any{"title": "x", "slug": "same-title"}); s != "same-title" {
		t.Fatalf("draft slug %v", s)
	}
	// Reserved words get a suffix.
	if s := slug(map[string]any{"title": "Feed", "status": "publish"}); s != "feed-2" {
		t.Fatalf("reserved slug %v", s)
	}
	// Pages: uniqueness is per parent.
	parent := e.createPost("editor", "page", map[string]any{"title": "Parent"})
	a := e.do("POST", "/api/svc/v2/pages", "editor", map[string]any{"title": "Child", "status": "publish", "parent": parent.ID}).Object()
	b := e.do("POST", "/api/svc/v2/pages", "editor", map[string]any{"title": "Child", "status": "publish"}).Object()
	if a["slug"] != "child" || b["slug"] != "child" {
		t.Fatalf("page slugs %v %v", a["slug"], b["slug"])
	}
	if a["link"] != e.URL+"/parent/child/" {
		t.Errorf("child page link %v", a["link"])
	}
	// A contributor's pending post loses its slug.
	if s := e.do("POST", posts, "contributor", map[string]any{"title": "Pending", "slug": "keep-me", "status": "pending"}).Object()["slug"]; s != "" {
		t.Errorf("contributor pending slug %v", s)
	}
}

func TestGetPostNotFoundCodes(t *testing.T) {
	e := newEnv(t)
	page := e.createPost("editor", "page", map[string]any{"title": "A page"})
	e.do("GET", posts+"/999999", "").WantError(404, "rest_post_invalid_id")
	e.do("GET", fmt.Sprintf("%s/%d", posts, page.ID), "").WantError(404, "rest_post_invalid_id")
	e.do("DELETE", posts+"/999999", "editor").WantError(404, "rest_post_invalid_id")
	e.do("PUT", posts+"/999999", "editor", map[string]any{"title": "x"}).WantError(400, "rest_post_invalid_id")
	e.do("POST", fmt.Sprintf("%s/%d", posts, page.ID), "editor", map[string]any{"title": "x"}).WantError(400, "rest_post_invalid_id")
	e.do("POST", "/api/svc/v2/pages", "editor", map[string]any{"title": "x", "parent": 999999}).WantError(400, "rest_post_invalid_id")
}

func TestReadVisibilityByRole(t *testing.T) {
	e := newEnv(t)
	pub := e.createPost("author", "post", map[string]any{"title": "Public"})
	draft := e.createPost("author", "post", map[string]any{"title": "Draft", "status": "draft"})
	priv := e.createPost("editor", "post", map[string]any{"title": "Private", "status": "private"})
	ownPriv := e.createPost("author", "post", map[string]any{"title": "Own private", "status": "private"})
	type want map[string]int
	cases := []struct {
		post *store.Post
		want want
	}{
		{pub, want{"administrator": 200, "editor": 200, "author": 200, "contributor": 200, "subscriber": 200, "": 200}},
		{draft, want{"administrator": 200, "editor": 200, "author": 200, "contributor": 403, "subscriber": 403, "": 403}},
		{priv, want{"administrator": 200, "editor": 200, "author": 403, "contributor": 403, "subscriber": 403, "": 403}},
		{ownPriv, want{"administrator": 200, "editor": 200, "author": 200, "contributor": 403, "subscriber": 403, "": 403}},
	}
	for _, tc := range cases {
		for _, role := range allRoles {
			r := e.do("GET", fmt.Sprintf("%s/%d", posts, tc.post.ID), role)
			if w := tc.want[role]; w == 403 {
				// decisions #1: the authorization-required rule, also for rest_forbidden.
				if role == "" {
					w = 401
				}
				r.WantError(w, "rest_forbidden")
			} else {
				r.WantStatus(w)
			}
		}
	}
	// Private titles get the prefix.
	if tt := e.do("GET", fmt.Sprintf("%s/%d", posts, priv.ID), "editor").Object()["title"].(map[string]any)["rendered"]; tt != "Private: Private" {
		t.Errorf("private title %v", tt)
	}
	// context=edit needs edit_post.
	e.do("GET", fmt.Sprintf("%s/%d?context=edit", posts, pub.ID), "contributor").WantError(403, "rest_forbidden_context")
	e.do("GET", fmt.Sprintf("%s/%d?context=edit", posts, pub.ID), "").WantError(401, "rest_forbidden_context")
	e.do("GET", fmt.Sprintf("%s/%d?context=edit", posts, pub.ID), "author").WantStatus(200)
	e.do("GET", fmt.Sprintf("%s/%d?context=bogus", posts, pub.ID), "").WantError(400, "rest_invalid_param")
}

func TestUpdatePostByRole(t *testing.T) {
	e := newEnv(t)
	own := e.createPost("author", "post", map[string]any{"title": "Author's"})
	others := e.createPost("editor", "post", map[string]any{"title": "Editor's"})
	cases := []struct {
		role   string
		post   *store.Post
		status int
		code   string
	}{
		{"author", own, 200, ""},
		{"author", others, 403, "rest_cannot_edit"},
		{"editor", own, 200, ""},
		{"administrator", others, 200, ""},
		{"contributor", own, 403, "rest_cannot_edit"},
		{"subscriber", own, 403, "rest_cannot_edit"},
		{"", own, 401, "rest_cannot_edit"},
	}
	for _, tc := range cases {
		for _, method := range []string{"POST", "PUT", "PATCH"} {
			r := e.do(method, fmt.Sprintf("%s/%d", posts, tc.post.ID), tc.role, map[string]any{"excerpt": "changed by " + tc.role})
			if tc.code != "" {
				r.WantError(tc.status, tc.code)
				continue
			}
			r.WantStatus(tc.status)
			m := r.Object()
			if m["excerpt"].(map[string]any)["raw"] != "changed by "+tc.role || m["title"].(map[string]any)["raw"] != tc.post.Title {
				t.Fatalf("%s %s: partial update lost data: %s", method, tc.role, r.Body)
			}
			if r.Header.Get("Location") != "" {
				t.Fatalf("update sent Location")
			}
		}
	}
	// Sticky and password conflicts on update.
	sticky := e.createPost("editor", "post", map[string]any{"title": "Sticky", "sticky": true})
	e.do("PUT", fmt.Sprintf("%s/%d", posts, sticky.ID), "editor", map[string]any{"password": "pw"}).WantError(400, "rest_invalid_field")
	pw := e.createPost("editor", "post", map[string]any{"title": "Pw", "password": "pw"})
	e.do("PUT", fmt.Sprintf("%s/%d", posts, pw.ID), "editor", map[string]any{"sticky": true}).WantError(400, "rest_invalid_field")
	// Private posts cannot keep a password.
	if m := e.do("PUT", fmt.Sprintf("%s/%d", posts, pw.ID), "editor", map[string]any{"status": "private"}).Object(); m["password"] != "" {
		t.Errorf("private post kept password %v", m["password"])
	}
	// A body id overrides the path id (reference §3.2).
	r := e.do("PUT", fmt.Sprintf("%s/%d", posts, own.ID), "editor", map[string]any{"id": others.ID, "excerpt": "via body id"})
	if r.Object()["id"] != float64(others.ID) {
		t.Errorf("body id did not override path id: %s", r.Body)
	}
}

func TestDeletePostTrashAndForce(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("author", "post", map[string]any{"title": "Doomed"})
	path := fmt.Sprintf("%s/%d", posts, p.ID)
	e.do("DELETE", path, "contributor").WantError(403, "rest_cannot_delete")
	e.do("DELETE", path, "").WantError(401, "rest_cannot_delete")
	r := e.do("DELETE", path, "author")
	r.WantStatus(200)
	if m := r.Object(); m["status"] != "publish" || m["id"] != float64(p.ID) {
		t.Fatalf("trash response should be the pre-trash record: %s", r.Body)
	}
	if got, _ := e.db.GetPost(context.Background(), p.ID); got.Status != "trash" {
		t.Fatalf("status after trash %q", got.Status)
	}
	e.do("DELETE", path, "author").WantError(410, "rest_already_trashed")
	e.do("DELETE", path+"?force=false", "author").WantError(410, "rest_already_trashed")
	e.do("DELETE", path+"?force=maybe", "author").WantError(400, "rest_invalid_param")
	r = e.do("DELETE", path+"?force=true", "author")
	r.WantStatus(200)
	if m := r.Object(); m["status"] != "trash" {
		t.Fatalf("force delete response %s", r.Body)
	}
	if _, err := e.db.GetPost(context.Background(), p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("post still there after force: %v", err)
	}
	e.do("DELETE", path+"?force=true", "author").WantError(404, "rest_post_invalid_id")
	// `_method` override through POST.
	q := e.createPost("editor", "post", map[string]any{"title": "Overridden"})
	e.do("POST", fmt.Sprintf("%s/%d?_method=DELETE&force=1", posts, q.ID), "editor").WantStatus(200)
	if _, err := e.db.GetPost(context.Background(), q.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("_method=DELETE did not delete: %v", err)
	}
}

func TestPasswordProtectedPosts(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("editor", "post", map[string]any{"title": "Secret", "content": "The content", "excerpt": "The excerpt", "password": "open sesame"})
	path := fmt.Sprintf("%s/%d", posts, p.ID)
	for _, role := range []string{"", "subscriber", "editor"} {
		m := e.do("GET", path, role).Object()
		c, x := m["content"].(map[string]any), m["excerpt"].(map[string]any)
		if c["protected"] != true || x["protected"] != true || c["rendered"] != "" || x["rendered"] != "" {
			t.Errorf("%q sees protected content without password: %v %v", role, c, x)
		}
		if _, ok := m["password"]; ok {
			t.Errorf("password shown in view context")
		}
		if m["title"].(map[string]any)["rendered"] != "Protected: Secret" {
			t.Errorf("title %v", m["title"])
		}
	}
	m := e.do("GET", path+"?password=open+sesame", "").Object()
	if !strings.Contains(m["content"].(map[string]any)["rendered"].(string), "The content") {
		t.Errorf("right password does not unlock: %v", m["content"])
	}
	e.do("GET", path+"?password=wrong", "").WantError(403, "rest_post_incorrect_password")
	ed := e.do("GET", path+"?context=edit", "editor").Object()
	if ed["password"] != "open sesame" || !strings.Contains(ed["content"].(map[string]any)["rendered"].(string), "The content") {
		t.Errorf("edit context must show password and content: %v", ed)
	}
	// Listed and counted for everyone.
	r := e.do("GET", posts, "")
	if r.Header.Get("X-API-Total") != "1" || len(r.Array()) != 1 {
		t.Errorf("protected post not listed: total %s", r.Header.Get("X-API-Total"))
	}
}

func TestContextFiltering(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("editor", "post", map[string]any{"title": "Ctx", "content": "Body"})
	path := fmt.Sprintf("%s/%d", posts, p.ID)
	cases := []struct {
		ctx  string
		want []string
	}{
		{"view", []string{"id", "date", "date_gmt", "guid", "modified", "modified_gmt", "slug", "type", "link", "title", "content", "excerpt", "author", "featured_media", "comment_status", "ping_status", "sticky", "format", "categories", "tags", "_links"}},
		{"embed", []string{"id", "date", "slug", "type", "link", "title", "excerpt", "author", "_links"}},
		{"edit", []string{"id", "date", "date_gmt", "guid", "modified", "modified_gmt", "password", "slug", "status", "type", "link", "title", "content", "excerpt", "author", "featured_media", "comment_status", "ping_status", "sticky", "format", "categories", "tags", "_links"}},
	}
	for _, tc := range cases {
		m := e.do("GET", path+"?context="+tc.ctx, "editor").Object()
		got := keys(m)
		sort.Strings(got)
		want := slices.Clone(tc.want)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fields %v, want %v", tc.ctx, got, want)
		}
		title := m["title"].(map[string]any)
		if _, hasRaw := title["raw"]; hasRaw != (tc.ctx == "edit") {
			t.Errorf("%s: title.raw presence %v", tc.ctx, hasRaw)
		}
	}
	// Pages have their own field set.
	pg := e.createPost("editor", "page", map[string]any{"title": "Pg"})
	m := e.do("GET", fmt.Sprintf("/api/svc/v2/pages/%d", pg.ID), "").Object()
	for _, f := range []string{"parent", "menu_order", "template"} {
		if _, ok := m[f]; !ok {
			t.Errorf("page lacks %s", f)
		}
	}
	for _, f := range []string{"sticky", "format"} {
		if _, ok := m[f]; ok {
			t.Errorf("page has %s", f)
		}
	}
}

func TestPostLinks(t *testing.T) {
	e := newEnv(t)
	parent := e.createPost("editor", "page", map[string]any{"title": "Top"})
	child := e.createPost("editor", "page", map[string]any{"title": "Sub", "parent": parent.ID})
	m := e.do("GET", fmt.Sprintf("/api/svc/v2/pages/%d", child.ID), "").Object()
	links := m["_links"].(map[string]any)
	href := func(rel string) string {
		l, ok := links[rel].([]any)
		if !ok || len(l) == 0 {
			t.Fatalf("no %s link in %v", rel, links)
		}
		return l[0].(map[string]any)["href"].(string)
	}
	base := e.URL + "/api/svc/v2/"
	checks := map[string]string{
		"self":            fmt.Sprintf("%spages/%d", base, child.ID),
		"collection":      base + "pages",
		"about":           base + "types/page",
		"author":          fmt.Sprintf("%susers/%d", base, e.ID("editor")),
		"replies":         fmt.Sprintf("%scomments?post=%d", base, child.ID),
		"version-history": fmt.Sprintf("%spages/%d/revisions", base, child.ID),
		"up":              fmt.Sprintf("%spages/%d", base, parent.ID),
		"wp:attachment":   fmt.Sprintf("%smedia?parent=%d", base, child.ID),
	}
	for rel, want := range checks {
		if got := href(rel); got != want {
			t.Errorf("%s = %s, want %s", rel, got, want)
		}
	}
	if links["author"].([]any)[0].(map[string]any)["embeddable"] != true {
		t.Errorf("author link not embeddable")
	}
	curies, ok := links["curies"].([]any)
	if !ok || curies[0].(map[string]any)["name"] != "wp" || curies[0].(map[string]any)["templated"] != true {
		t.Errorf("curies missing: %v", links["curies"])
	}
}

func TestEmbedParentPage(t *testing.T) {
	e := newEnv(t)
	parent := e.createPost("editor", "page", map[string]any{"title": "Top"})
	e.createPost("editor", "page", map[string]any{"title": "Sub", "parent": parent.ID})
	e.createPost("editor", "page", map[string]any{"title": "Sub 2", "parent": parent.ID})
	r := e.do("GET", "/api/svc/v2/pages?_embed&parent="+fmt.Sprint(parent.ID), "")
	r.WantStatus(200)
	items := r.Array()
	if len(items) != 2 {
		t.Fatalf("got %d children", len(items))
	}
	for _, it := range items {
		emb := it.(map[string]any)["_embedded"].(map[string]any)
		up := emb["up"].([]any)[0].(map[string]any)
		if up["id"] != float64(parent.ID) {
			t.Errorf("embedded up = %v", up["id"])
		}
		if _, ok := up["content"]; ok {
			t.Errorf("embedded item is not in embed context")
		}
		if _, ok := up["_embedded"]; ok {
			t.Errorf("nested _embedded")
		}
	}
}

func TestCollectionPagination(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 25; i++ {
		e.createPost("editor", "post", map[string]any{"title": fmt.Sprintf("P%02d", i), "date": fmt.Sprintf("2020-01-%02dT00:00:00", i+1)})
	}
	link := func(r *testkit.Response) string { return r.Header.Get("Link") }
	base := e.URL + posts
	cases := []struct {
		query    string
		n        int
		prev     string
		next     string
		firstTtl string
	}{
		{"per_page=10", 10, "", base + "?page=2&per_page=10", "P24"},
		{"per_page=10&page=2", 10, base + "?page=1&per_page=10", base + "?page=3&per_page=10", "P14"},
		{"per_page=10&page=3", 5, base + "?page=2&per_page=10", "", "P04"},
		{"per_page=10&page=7", 0, base + "?page=3&per_page=10", "", ""},
	}
	for _, tc := range cases {
		r := e.do("GET", posts+"?"+tc.query, "")
		r.WantStatus(200)
		items := r.Array()
		if len(items) != tc.n {
			t.Errorf("%s: %d items, want %d", tc.query, len(items), tc.n)
		}
		if r.Header.Get("X-API-Total") != "25" || r.Header.Get("X-API-TotalPages") != "3" {
			t.Errorf("%s: totals %s/%s", tc.query, r.Header.Get("X-API-Total"), r.Header.Get("X-API-TotalPages"))
		}
		l := link(r)
		if (tc.prev != "") != strings.Contains(l, `rel="prev"`) || (tc.next != "") != strings.Contains(l, `rel="next"`) {
			t.Errorf("%s: Link %q", tc.query, l)
		}
		for _, want := range []string{tc.prev, tc.next} {
			if want == "" {
				continue
			}
			if !linkHas(t, l, want) {
				t.Errorf("%s: Link %q lacks %s", tc.query, l, want)
			}
		}
		if tc.n > 0 && items[0].(map[string]any)["title"].(map[string]any)["rendered"] != tc.firstTtl {
			t.Errorf("%s: first item %v", tc.query, items[0].(map[string]any)["title"])
		}
	}
	// Parameters are kept in the Link URLs.
	r := e.do("GET", posts+"?per_page=5&search=P&orderby=title&order=asc", "")
	if !linkHas(t, r.Header.Get("Link"), base+"?order=asc&orderby=title&page=2&per_page=5&search=P") {
		t.Errorf("Link lost the query: %q", r.Header.Get("Link"))
	}
	e.do("GET", posts+"?per_page=0", "").WantError(400, "rest_invalid_param")
	e.do("GET", posts+"?per_page=101", "").WantError(400, "rest_invalid_param")
	e.do("GET", posts+"?page=0", "").WantError(400, "rest_invalid_param")
	// offset overrides page for the window.
	if got := ids(e.do("GET", posts+"?per_page=2&offset=24", "").Array()); len(got) != 1 {
		t.Errorf("offset window %v", got)
	}
}

// linkHas reports whether the Link header carries a URL equal (query order
// aside) to want.
func linkHas(t *testing.T, header, want string) bool {
	t.Helper()
	w, err := url.Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(header, ", <") {
		part = strings.TrimPrefix(part, "<")
		u := part[:strings.Index(part, ">")]
		got, err := url.Parse(u)
		if err != nil {
			continue
		}
		if got.Path == w.Path && reflect.DeepEqual(got.Query(), w.Query()) {
			return true
		}
	}
	return false
}

func TestCollectionParameters(t *testing.T) {
	e := newEnv(t)
	a := e.createPost("author", "post", map[string]any{"title": "Apple pie", "content": "sweet fruit", "date": "2020-01-01T00:00:00"})
	b := e.createPost("editor", "post", map[string]any{"title": "Banana bread", "content": "sweet loaf", "date": "2020-02-01T00:00:00"})
	c := e.createPost("editor", "post", map[string]any{"title": "Cherry tart", "excerpt": "sour fruit", "date": "2020-03-01T00:00:00"})
	d := e.createPost("editor", "post", map[string]any{"title": "Draft", "status": "draft"})
	get := func(q, role string) []int64 {
		t.Helper()
		r := e.do("GET", posts+"?"+q, role)
		r.WantStatus(200)
		return ids(r.Array())
	}
	cases := []struct {
		q    string
		role string
		want []int64
	}{
		{"", "", []int64{c.ID, b.ID, a.ID}},
		{"order=asc", "", []int64{a.ID, b.ID, c.ID}},
		{"orderby=title&order=asc", "", []int64{a.ID, b.ID, c.ID}},
		{"orderby=id&order=desc", "", []int64{c.ID, b.ID, a.ID}},
		{"orderby=slug&order=desc", "", []int64{c.ID, b.ID, a.ID}},
		{"orderby=include&include=" + fmt.Sprintf("%d,%d,%d", b.ID, a.ID, c.ID), "", []int64{b.ID, a.ID, c.ID}},
		{"search=sweet", "", []int64{b.ID, a.ID}},
		{"search=SWEET+fruit", "", []int64{a.ID}},
		{"search=fruit", "", []int64{c.ID, a.ID}},
		{"include=" + fmt.Sprint(a.ID), "", []int64{a.ID}},
		{"exclude=" + fmt.Sprintf("%d,%d", a.ID, b.ID), "", []int64{c.ID}},
		{"exclude[]=" + fmt.Sprint(a.ID) + "&exclude[]=" + fmt.Sprint(b.ID), "", []int64{c.ID}},
		{"author=" + fmt.Sprint(e.ID("author")), "", []int64{a.ID}},
		{"author_exclude=" + fmt.Sprint(e.ID("author")), "", []int64{c.ID, b.ID}},
		{"slug=banana-bread", "", []int64{b.ID}},
		{"after=2020-01-15T00:00:00", "", []int64{c.ID, b.ID}},
		{"before=2020-02-01T00:00:00", "", []int64{a.ID}},
		{"offset=1&per_page=1", "", []int64{b.ID}},
		{"status=draft", "editor", []int64{d.ID}},
		{"status=draft", "author", []int64{}},
		{"status=any&orderby=id&order=asc", "editor", []int64{a.ID, b.ID, c.ID, d.ID}},
		{"filter[year]=2020&filter[monthnum]=2", "", []int64{b.ID}},
		{"filter[s]=sour", "", []int64{c.ID}},
		{"filter[orderby]=title&filter[order]=asc", "", []int64{a.ID, b.ID, c.ID}},
		{"filter[posts_per_page]=1", "", []int64{c.ID}},
		{"filter[author_name]=author", "", []int64{a.ID}},
		{"filter[post_status]=draft", "", []int64{c.ID, b.ID, a.ID}},
		{"filter[post_status]=draft", "editor", []int64{d.ID}},
		{"filter[unknown]=1", "", []int64{c.ID, b.ID, a.ID}},
	}
	for _, tc := range cases {
		if got := get(tc.q, tc.role); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("?%s as %q = %v, want %v", tc.q, tc.role, got, tc.want)
		}
	}
	// Non-publish statuses need edit_posts: a validation error, not a filter.
	r := e.do("GET", posts+"?status=draft", "subscriber").WantError(400, "rest_invalid_param")
	if r["data"].(map[string]any)["params"].(map[string]any)["status"] != "Status is forbidden" {
		t.Errorf("status reason %v", r["data"])
	}
	e.do("GET", posts+"?status=draft", "").WantError(400, "rest_invalid_param")
	e.do("GET", posts+"?context=edit", "subscriber").WantError(403, "rest_forbidden_context")
	e.do("GET", posts+"?context=edit", "").WantError(401, "rest_forbidden_context")
	e.do("GET", posts+"?orderby=nope", "").WantError(400, "rest_invalid_param")
	e.do("GET", posts+"?order=up", "").WantError(400, "rest_invalid_param")
	e.do("GET", posts+"?after=yesterday", "").WantError(400, "rest_invalid_param")
	// Sticky posts float only with filter[ignore_sticky_posts]=0.
	s := e.createPost("editor", "post", map[string]any{"title": "Sticky old", "sticky": true, "date": "2010-01-01T00:00:00"})
	if got := get("per_page=1", ""); got[0] == s.ID {
		t.Errorf("sticky floated without the filter")
	}
	if got := get("per_page=1&filter[ignore_sticky_posts]=0", ""); got[0] != s.ID {
		t.Errorf("sticky did not float with ignore_sticky_posts=0: %v", got)
	}
}

func TestPageParameters(t *testing.T) {
	e := newEnv(t)
	top := e.createPost("editor", "page", map[string]any{"title": "Top", "menu_order": 3})
	a := e.createPost("editor", "page", map[string]any{"title": "A", "parent": top.ID, "menu_order": 2})
	b := e.createPost("editor", "page", map[string]any{"title": "B", "parent": top.ID, "menu_order": 1})
	get := func(q string) []int64 {
		r := e.do("GET", "/api/svc/v2/pages?"+q, "")
		r.WantStatus(200)
		return ids(r.Array())
	}
	cases := map[string][]int64{
		"parent=" + fmt.Sprint(top.ID) + "&orderby=menu_order&order=asc": {b.ID, a.ID},
		"parent=0":                             {top.ID},
		"parent_exclude=" + fmt.Sprint(top.ID): {top.ID},
		"menu_order=2":                         {a.ID},
		"orderby=menu_order&order=desc":        {top.ID, a.ID, b.ID},
	}
	for q, want := range cases {
		if got := get(q); !reflect.DeepEqual(got, want) {
			t.Errorf("?%s = %v, want %v", q, got, want)
		}
	}
	// Authors cannot create pages at all.
	e.do("POST", "/api/svc/v2/pages", "author", map[string]any{"title": "x"}).WantError(403, "rest_cannot_create")
}

func TestCollectionHidesUnreadableAndCountsMatch(t *testing.T) {
	e := newEnv(t)
	e.createPost("editor", "post", map[string]any{"title": "Pub"})
	e.createPost("editor", "post", map[string]any{"title": "Priv", "status": "private"})
	e.createPost("author", "post", map[string]any{"title": "Own priv", "status": "private"})
	cases := map[string]int{"": 1, "subscriber": 1, "author": 1, "editor": 1}
	for role, n := range cases {
		r := e.do("GET", posts, role)
		if len(r.Array()) != n || r.Header.Get("X-API-Total") != fmt.Sprint(n) {
			t.Errorf("%q: %d items, total %s", role, len(r.Array()), r.Header.Get("X-API-Total"))
		}
	}
	cases = map[string]int{"author": 1, "editor": 2, "administrator": 2}
	for role, n := range cases {
		r := e.do("GET", posts+"?status=private", role)
		if len(r.Array()) != n || r.Header.Get("X-API-Total") != fmt.Sprint(n) {
			t.Errorf("private as %q: %d items, total %s", role, len(r.Array()), r.Header.Get("X-API-Total"))
		}
	}
}

func TestListStatementsDoNotGrowWithPerPage(t *testing.T) {
	e := newEnv(t)
	parent := e.createPost("editor", "page", map[string]any{"title": "Root"})
	// Terms with a parent chain, so that term arrays, term links and
	// embedded terms (with their up links) are part of every page.
	top := e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": "Top"}).Object()["id"]
	mid := e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": "Mid", "parent": top}).Object()["id"]
	tag := e.do("POST", "/api/svc/v2/tags", "editor", map[string]any{"name": "Tag"}).Object()["id"]
	for i := 0; i < 60; i++ {
		cat := e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": fmt.Sprintf("Leaf %d", i), "parent": mid}).Object()["id"]
		e.createPost("editor", "post", map[string]any{"title": fmt.Sprintf("Post %d", i), "categories": []any{cat, top}, "tags": []any{tag}})
		e.createPost("editor", "page", map[string]any{"title": fmt.Sprintf("Page %d", i), "parent": parent.ID})
	}
	count := func(path string) int64 {
		// A write first, so that no cached count hides a statement; dated
		// in the past, it stays off the first page.
		e.createPost("editor", "post", map[string]any{"title": "Bump", "date": "2001-01-01T00:00:00"})
		before := e.Statements()
		e.do("GET", path, "").WantStatus(200)
		return e.Statements() - before
	}
	for _, base := range []string{posts + "?", "/api/svc/v2/pages?", posts + "?_embed&", "/api/svc/v2/categories?_embed&"} {
		small := count(base + "per_page=2")
		large := count(base + "per_page=50")
		if small != large {
			t.Errorf("%s: %d statements for 2 items, %d for 50", base, small, large)
		}
	}
}

func TestTypesAndStatuses(t *testing.T) {
	e := newEnv(t, func(c *configT) {
		c.PostTypes = append(c.PostTypes, postTypeT{Name: "book", RestBase: "books", Supports: []string{"title", "editor", "author"}})
	})
	r := e.do("GET", "/api/svc/v2/types", "")
	r.WantStatus(200)
	m := r.Object()
	for _, name := range []string{"post", "page", "attachment", "book"} {
		ty, ok := m[name].(map[string]any)
		if !ok {
			t.Fatalf("types lacks %s: %s", name, r.Body)
		}
		if _, ok := ty["capabilities"]; ok {
			t.Errorf("capabilities in view context")
		}
	}
	if r.Header.Get("X-API-Total") != "" {
		t.Errorf("types collection is paged")
	}
	book := e.do("GET", "/api/svc/v2/types/book?context=edit", "editor").Object()
	caps := book["capabilities"].(map[string]any)
	if caps["edit_posts"] != "edit_posts" || book["slug"] != "book" {
		t.Errorf("book type %v", book)
	}
	page := e.do("GET", "/api/svc/v2/types/page?context=edit", "administrator").Object()
	if page["capabilities"].(map[string]any)["edit_posts"] != "edit_pages" || page["hierarchical"] != true {
		t.Errorf("page type %v", page)
	}
	e.do("GET", "/api/svc/v2/types/nope", "").WantError(404, "rest_type_invalid")
	e.do("GET", "/api/svc/v2/types?context=edit", "subscriber").WantError(403, "rest_cannot_view")
	e.do("GET", "/api/svc/v2/types?context=edit", "").WantError(401, "rest_cannot_view")
	e.do("GET", "/api/svc/v2/types/page?context=edit", "author").WantError(403, "rest_forbidden_context")
	if l := e.do("GET", "/api/svc/v2/types/book", "").Object()["_links"].(map[string]any); l["wp:items"] == nil {
		t.Errorf("type lacks items link: %v", l)
	}

	anon := e.do("GET", "/api/svc/v2/statuses", "").Object()
	if len(anon) != 1 || anon["publish"] == nil {
		t.Errorf("anonymous statuses %v", keys(anon))
	}
	author := e.do("GET", "/api/svc/v2/statuses", "author").Object()
	got := keys(author)
	sort.Strings(got)
	if want := []string{"draft", "future", "pending", "private", "publish", "trash"}; !reflect.DeepEqual(got, want) {
		t.Errorf("author statuses %v", got)
	}
	e.do("GET", "/api/svc/v2/statuses/bogus", "").WantError(404, "rest_status_invalid")
	e.do("GET", "/api/svc/v2/statuses/draft", "").WantError(401, "rest_cannot_read_status")
	e.do("GET", "/api/svc/v2/statuses/inherit", "administrator").WantError(403, "rest_cannot_read_status")
	e.do("GET", "/api/svc/v2/statuses/draft", "author").WantStatus(200)
	e.do("GET", "/api/svc/v2/statuses?context=edit", "subscriber").WantError(403, "rest_cannot_view")
	pub := e.do("GET", "/api/svc/v2/statuses/publish", "").Object()
	if pub["public"] != true || pub["queryable"] != true || pub["name"] != "Published" {
		t.Errorf("publish status %v", pub)
	}
	if _, ok := pub["private"]; ok {
		t.Errorf("private field in view context")
	}

	// The custom type has its own routes.
	bk := e.do("POST", "/api/svc/v2/books", "editor", map[string]any{"title": "Dune", "status": "publish"})
	bk.WantStatus(201)
	if bk.Object()["type"] != "book" {
		t.Errorf("book type field %v", bk.Object()["type"])
	}
	if _, ok := bk.Object()["excerpt"]; ok {
		t.Errorf("book without excerpt support has excerpt")
	}
	if got := ids(e.do("GET", "/api/svc/v2/books", "").Array()); len(got) != 1 {
		t.Errorf("books list %v", got)
	}
}

func TestPostRoutesInIndexAndOptions(t *testing.T) {
	e := newEnv(t)
	idx := e.do("GET", "/api/svc/v2", "").Object()
	routes := idx["routes"].(map[string]any)
	for _, k := range []string{"/svc/v2/posts", `/svc/v2/posts/(?P<id>[\d]+)`, "/svc/v2/pages", "/svc/v2/types", `/svc/v2/types/(?P<type>[\w-]+)`, "/svc/v2/statuses"} {
		if routes[k] == nil {
			t.Errorf("index lacks %s", k)
		}
	}
	item := routes[`/svc/v2/posts/(?P<id>[\d]+)`].(map[string]any)
	if !reflect.DeepEqual(item["methods"], []any{"GET", "POST", "PUT", "PATCH", "DELETE"}) {
		t.Errorf("item methods %v", item["methods"])
	}
	coll := routes["/svc/v2/posts"].(map[string]any)
	args := coll["endpoints"].([]any)[0].(map[string]any)["args"].(map[string]any)
	for _, a := range []string{"context", "page", "per_page", "search", "after", "author", "author_exclude", "before", "exclude", "include", "offset", "order", "orderby", "slug", "status", "filter", "categories", "tags"} {
		if args[a] == nil {
			t.Errorf("collection args lack %s", a)
		}
	}
	if ob := args["orderby"].(map[string]any); !reflect.DeepEqual(ob["enum"], []any{"date", "id", "include", "title", "slug", "relevance"}) {
		t.Errorf("orderby enum %v", ob["enum"])
	}
	r := e.do("OPTIONS", posts, "")
	r.WantStatus(200)
	o := r.Object()
	sch := o["schema"].(map[string]any)
	if sch["title"] != "post" {
		t.Errorf("schema title %v", sch["title"])
	}
	props := sch["properties"].(map[string]any)
	// 22 with the categories and tags arrays (reference §10.1).
	if len(props) != 22 {
		t.Errorf("post schema has %d properties: %v", len(props), keys(props))
	}
	if r.Header.Get("Allow") != "GET" {
		t.Errorf("anonymous Allow = %q", r.Header.Get("Allow"))
	}
	p := e.createPost("editor", "post", map[string]any{"title": "Allow"})
	if got := e.do("GET", fmt.Sprintf("%s/%d", posts, p.ID), "editor").Header.Get("Allow"); got != "GET, POST, PUT, PATCH, DELETE" {
		t.Errorf("editor Allow = %q", got)
	}
	if got := e.do("GET", fmt.Sprintf("%s/%d", posts, p.ID), "").Header.Get("Allow"); got != "GET" {
		t.Errorf("anonymous Allow = %q", got)
	}
}

func TestAlternateLinkHeaderOnSinglePost(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("editor", "post", map[string]any{"title": "Alt", "date": "2022-05-06T07:08:09"})
	r := e.do("GET", fmt.Sprintf("%s/%d", posts, p.ID), "")
	want := "<" + e.URL + `/2022/05/06/alt/>; rel="alternate"; type=text/html`
	if !strings.Contains(r.Header.Get("Link"), want) {
		t.Errorf("Link = %q, want %q", r.Header.Get("Link"), want)
	}
}

func TestWrongBasicCredentialsAreRejected(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", posts, "", nil, "Authorization", "Basic "+basic("editor", "wrong"))
	r.WantError(401, "rest_authentication_failed")
}

func TestScheduledPostIsPublishedWhenDue(t *testing.T) {
	e := newEnv(t)
	when := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Second)
	m := e.do("POST", posts, "editor", map[string]any{"title": "Later", "status": "publish", "date_gmt": when.Format("2006-01-02T15:04:05")}).Object()
	if m["status"] != "future" {
		t.Fatalf("status %v, want future", m["status"])
	}
	path := fmt.Sprintf("%s/%v", posts, m["id"])
	e.do("GET", path, "").WantError(401, "rest_forbidden")
	if n, err := e.site.PublishDue(context.Background()); err != nil || n != 0 {
		t.Fatalf("PublishDue before the date: %d, %v", n, err)
	}
	e.site.SetClock(func() time.Time { return when.Add(time.Minute) })
	defer e.site.SetClock(time.Now)
	if n, err := e.site.PublishDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("PublishDue after the date: %d, %v", n, err)
	}
	got := e.do("GET", path, "")
	got.WantStatus(200)
	if got.Object()["date_gmt"] != when.Format("2006-01-02T15:04:05") {
		t.Errorf("publishing changed the date: %v", got.Object()["date_gmt"])
	}
}

func TestTrashableFilterPoint(t *testing.T) {
	e := newEnv(t)
	var seen []int64
	e.site.Hooks().PostTrashable.BindFunc(func(ev *events.PostTrashableEvent) error {
		seen = append(seen, ev.Post.ID)
		ev.Trashable = ev.PostType != "post" && ev.Trashable
		return ev.Next()
	})
	p := e.createPost("editor", "post", map[string]any{"title": "Keep"})
	e.do("DELETE", fmt.Sprintf("%s/%d", posts, p.ID), "editor").WantError(501, "rest_trash_not_supported")
	if len(seen) != 1 || seen[0] != p.ID {
		t.Fatalf("filter saw %v", seen)
	}
	pg := e.createPost("editor", "page", map[string]any{"title": "Trash me"})
	e.do("DELETE", fmt.Sprintf("/api/svc/v2/pages/%d", pg.ID), "editor").WantStatus(200)
	e.do("DELETE", fmt.Sprintf("%s/%d?force=true", posts, p.ID), "editor").WantStatus(200)
}

func TestReadsDoNotWriteToTheDatabase(t *testing.T) {
	e := newEnv(t)
	e.createPost("editor", "post", map[string]any{"title": "Read me"})
	ctx := context.Background()
	// The first authenticated request may record the password's last use.
	e.do("GET", posts, "editor").WantStatus(200)
	before, err := e.db.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		e.do("GET", posts+"?context=edit", "editor").WantStatus(200)
		e.do("GET", posts, "").WantStatus(200)
	}
	if after, _ := e.db.Version(ctx); after != before {
		t.Fatalf("reads wrote to the database: version %d -> %d", before, after)
	}
}

// TestCreateStatementsDoNotGrowWithSameTitle: the Nth post with the same
// title gets the slug title-N, and finding it costs the same statements as
// the third (the free suffix is found in one query per batch of
// candidates, not one query per taken suffix). The second may cost one
// more: SQLite's single writer first asks whether a base it has found no
// suffix of is taken.
func TestCreateStatementsDoNotGrowWithSameTitle(t *testing.T) {
	e := newEnv(t)
	create := func(i int) int64 {
		before := e.Statements()
		r := e.do("POST", posts, "editor", map[string]any{"title": "Same Title", "status": "publish"})
		r.WantStatus(201)
		want := "same-title"
		if i > 1 {
			want = fmt.Sprintf("same-title-%d", i)
		}
		if got := r.Object()["slug"]; got != want {
			t.Fatalf("post %d: slug %v, want %s", i, got, want)
		}
		return e.Statements() - before
	}
	var second, third int64
	for i := 1; i <= 15; i++ {
		n := create(i)
		switch {
		case i == 2:
			second = n
		case i == 3:
			third = n
			if second != third && second != third+1 {
				t.Fatalf("the second post with the same title took %d statements, the third %d", second, third)
			}
		case i > 3 && n != third:
			t.Fatalf("post %d with the same title: %d statements, the third took %d", i, n, third)
		}
	}
}

// TestCreateShowsTheTermsItWrote: a create's response shows the terms the
// create linked, in the order a read shows them, without reading them
// back; a rest_insert_<type> handler, which may change them, makes the
// response read them again.
func TestCreateShowsTheTermsItWrote(t *testing.T) {
	e := newEnv(t)
	cat := func(name string) any {
		return e.do("POST", "/api/svc/v2/categories", "editor", map[string]any{"name": name}).WantStatus(201).Object()["id"]
	}
	gamma, beta, alpha := cat("gamma"), cat("beta"), cat("Alpha")
	tag := e.do("POST", "/api/svc/v2/tags", "editor", map[string]any{"name": "Tag"}).WantStatus(201).Object()["id"]
	same := func(created map[string]any) {
		t.Helper()
		got := e.do("GET", fmt.Sprintf("%s/%v?context=edit", posts, created["id"]), "editor").WantStatus(200).Object()
		for _, field := range []string{"categories", "tags"} {
			if !reflect.DeepEqual(created[field], got[field]) {
				t.Errorf("post %v: created with %s %v, read back %v", created["id"], field, created[field], got[field])
			}
		}
	}
	create := func(fields map[string]any) (map[string]any, int64) {
		t.Helper()
		// Every counted create follows a read by the same user, so
		// that each finds the sign-in read in the same state (SQLite
		// skips it while nothing has committed since the last one).
		e.do("GET", posts, "editor").WantStatus(200)
		before := e.Statements()
		m := e.do("POST", posts, "editor", fields).WantStatus(201).Object()
		return m, e.Statements() - before
	}
	// Name order (ASCII case folded), a missing id and a tag's id among
	// the categories skipped.
	for _, status := range []string{"publish", "draft"} {
		m, _ := create(map[string]any{"title": "Terms " + status, "status": status,
			"categories": []any{gamma, beta, 999999, tag, alpha}, "tags": []any{tag}})
		if want := []any{alpha, beta, gamma}; !reflect.DeepEqual(m["categories"], want) {
			t.Errorf("%s: categories %v, want %v", status, m["categories"], want)
		}
		if want := []any{tag}; !reflect.DeepEqual(m["tags"], want) {
			t.Errorf("%s: tags %v, want %v", status, m["tags"], want)
		}
		same(m)
	}
	// The default category, and no tags.
	plain, unhooked := create(map[string]any{"title": "Default", "status": "publish"})
	if c, _ := plain["categories"].([]any); len(c) != 1 || plain["tags"] == nil || len(plain["tags"].([]any)) != 0 {
		t.Errorf("default category: categories %v, tags %v", plain["categories"], plain["tags"])
	}
	same(plain)

	// With a handler bound the response reads the terms back: one
	// statement more.
	noop := e.site.Hooks().InsertPost.BindFor([]string{"post"}, func(ev *events.InsertPostEvent) error { return ev.Next() })
	if _, n := create(map[string]any{"title": "Default too", "status": "publish"}); n != unhooked+1 {
		t.Errorf("a create with a handler bound took %d statements, without %d", n, unhooked)
	}
	e.site.Hooks().InsertPost.Unbind(noop)
	if _, n := create(map[string]any{"title": "Default again", "status": "publish"}); n != unhooked {
		t.Errorf("a create after the handler went took %d statements, before %d", n, unhooked)
	}
	// So does a handler of the Changed hook, which runs in the write.
	moved := e.site.Hooks().Changed.Bind(&hooks.Handler[*events.ChangeEvent]{ID: "mover", Func: func(ev *events.ChangeEvent) error {
		if ev.Change.Kind == "post" && ev.Change.Action == "created" {
			if err := ev.Tx.SetPostTerms(ev.Context, ev.Change.ID, "category", []int64{int64(gamma.(float64))}); err != nil {
				return err
			}
		}
		return ev.Next()
	}})
	changedPost, _ := create(map[string]any{"title": "Changed", "status": "publish", "categories": []any{alpha}})
	if want := []any{gamma}; !reflect.DeepEqual(changedPost["categories"], want) {
		t.Errorf("after the Changed handler: categories %v, want %v", changedPost["categories"], want)
	}
	same(changedPost)
	e.site.Hooks().Changed.Unbind(moved)
	// A handler that moves the post to another category: the response
	// shows the move.
	e.site.Hooks().InsertPost.BindFor([]string{"post"}, func(ev *events.InsertPostEvent) error {
		if ev.Creating {
			id := int64(beta.(float64))
			if err := e.db.SetPostTerms(ev.Context, ev.Post.ID, "category", []int64{id}); err != nil {
				return err
			}
		}
		return ev.Next()
	})
	hookedPost, _ := create(map[string]any{"title": "Hooked", "status": "publish"})
	if want := []any{beta}; !reflect.DeepEqual(hookedPost["categories"], want) {
		t.Errorf("after the hook: categories %v, want %v", hookedPost["categories"], want)
	}
	same(hookedPost)
}
