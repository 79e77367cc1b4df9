package endpoints_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/testkit"
)

// The rules of issue #16 (items 1-5) through HTTP: whatever the item route
// hides from a caller is hidden from search, filters and collections too,
// and a GET never writes.

// total returns the collection total header of r.
func total(r *testkit.Response) string { return r.Header.Get("X-API-Total") }

// TestSearchNeverMatchesProtectedTextForCallersWhoCannotReadIt: a search
// (and filter[s]) matches a protected post's content and excerpt only for
// callers who may edit the post or send its password; the title stays
// searchable, as it is shown to everyone.
func TestSearchNeverMatchesProtectedTextForCallersWhoCannotReadIt(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("author", "post", map[string]any{"title": "Locked box", "content": "the vault code is 4711 walrus", "excerpt": "hidden narwhal", "password": "opensesame"})
	id := strconv.FormatInt(p.ID, 10)
	for _, q := range []string{"search=walrus", "search=narwhal", "filter[s]=walrus", "search=4711&_embed=1"} {
		for _, login := range []string{"", "subscriber", "contributor"} {
			r := e.do("GET", "/api/svc/v2/posts?include="+id+"&"+q, login)
			r.WantStatus(200)
			if n := len(r.Array()); n != 0 || total(r) != "0" {
				t.Errorf("%s as %q: %d posts, total %s; the protected text must not match", q, login, n, total(r))
			}
		}
		for _, login := range []string{"author", "editor", "administrator"} {
			r := e.do("GET", "/api/svc/v2/posts?include="+id+"&"+q, login)
			if n := len(r.Array()); n != 1 || total(r) != "1" {
				t.Errorf("%s as %q (may edit): %d posts, total %s", q, login, n, total(r))
			}
		}
		// The right password unlocks the text for anybody; a wrong one
		// does not.
		if r := e.do("GET", "/api/svc/v2/posts?include="+id+"&password=opensesame&"+q, ""); len(r.Array()) != 1 {
			t.Errorf("%s with the password: %d posts", q, len(r.Array()))
		}
		if r := e.do("GET", "/api/svc/v2/posts?include="+id+"&password=wrong&"+q, ""); len(r.Array()) != 0 {
			t.Errorf("%s with a wrong password: %d posts", q, len(r.Array()))
		}
	}
	if r := e.do("GET", "/api/svc/v2/posts?search=locked", ""); len(r.Array()) != 1 {
		t.Errorf("the title of a protected post is not searchable: %d posts", len(r.Array()))
	}
}

// TestEditContextCollectionsShowUneditableItemsAsView: in a collection
// asked for in edit context, the items the caller may not edit have no
// password and no raw fields, and protected content stays empty, as the
// item route would refuse them (rest_forbidden_context).
func TestEditContextCollectionsShowUneditableItemsAsView(t *testing.T) {
	e := newEnv(t)
	secret := e.createPost("editor", "post", map[string]any{"title": "Editor's", "content": "editor secret text", "password": "ed-pw"})
	own := e.createPost("contributor", "post", map[string]any{"title": "Mine", "content": "my draft", "status": "draft"})
	e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d?context=edit", secret.ID), "contributor").WantError(403, "rest_forbidden_context")
	for _, q := range []string{"context=edit", "context=edit&status=any", "context=edit&_embed=1"} {
		r := e.do("GET", fmt.Sprintf("/api/svc/v2/posts?%s&include=%d,%d", q, secret.ID, own.ID), "contributor")
		r.WantStatus(200)
		got := map[int64]map[string]any{}
		for _, it := range r.Array() {
			m := it.(map[string]any)
			got[int64(m["id"].(float64))] = m
		}
		s := got[secret.ID]
		if s == nil {
			t.Fatalf("%s: the editor's post is not listed: %s", q, r.Body)
		}
		if _, ok := s["password"]; ok {
			t.Errorf("%s: password of a post the contributor cannot edit: %v", q, s["password"])
		}
		c := s["content"].(map[string]any)
		if _, ok := c["raw"]; ok || c["rendered"] != "" || c["protected"] != true {
			t.Errorf("%s: content of a protected post the contributor cannot edit: %v", q, c)
		}
		if o := got[own.ID]; q == "context=edit&status=any" && (o == nil || o["content"].(map[string]any)["raw"] != "my draft") {
			t.Errorf("%s: own draft not in edit context: %v", q, o)
		}
	}
}

// TestUserSearchMatchesEmailsAndLoginsOnlyWithListUsers: emails and logins
// are shown only in edit context (list_users) or to oneself, so only
// list_users may search them.
func TestUserSearchMatchesEmailsAndLoginsOnlyWithListUsers(t *testing.T) {
	e := newEnv(t)
	e.createPost("author", "post", nil) // the author is listed publicly
	for _, q := range []string{"author@example", "example.com", "auth", "a@e"} {
		for _, login := range []string{"", "subscriber", "editor"} {
			r := e.do("GET", "/api/svc/v2/users?search="+url.QueryEscape(q), login)
			r.WantStatus(200)
			for _, it := range r.Array() {
				m := it.(map[string]any)
				name, _ := m["name"].(string)
				slug, _ := m["slug"].(string)
				if q == "auth" && (name == "Author" || slug == "author") {
					continue // matched by its public name
				}
				t.Errorf("search %q as %q found %v through a hidden field", q, login, m["id"])
			}
		}
	}
	if r := e.do("GET", "/api/svc/v2/users?search=author%40example.com", "administrator"); len(r.Array()) != 1 || total(r) != "1" {
		t.Errorf("list_users cannot search emails: %s", r.Body)
	}
}

// TestCommentSearchMatchesEmailsAndAddressesOnlyForModerators: the author
// email and IP of a comment are hidden from everyone but moderators, so
// only moderators' searches and filters may match them.
func TestCommentSearchMatchesEmailsAndAddressesOnlyForModerators(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("author", "post", nil)
	c := &store.Comment{PostID: p.ID, AuthorName: "Visitor", AuthorEmail: "quiet.person@example.org", AuthorIP: "198.51.100.77",
		Content: "a public remark", Approved: store.CommentApproved, Type: "comment", Date: time.Now().UTC(), DateGMT: time.Now().UTC()}
	if err := e.db.InsertComment(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"quiet.person", "198.51.100", "@example.org"} {
		for _, login := range []string{"", "subscriber", "author"} {
			r := e.do("GET", "/api/svc/v2/comments?search="+url.QueryEscape(q), login)
			r.WantStatus(200)
			if len(r.Array()) != 0 || total(r) != "0" {
				t.Errorf("search %q as %q matched a hidden field: total %s", q, login, total(r))
			}
		}
		r := e.do("GET", "/api/svc/v2/comments?search="+url.QueryEscape(q), "editor")
		if len(r.Array()) != 1 {
			t.Errorf("a moderator's search %q found %d", q, len(r.Array()))
		}
	}
	if r := e.do("GET", "/api/svc/v2/comments?search=remark", ""); len(r.Array()) != 1 {
		t.Errorf("the content is not searchable: %s", r.Body)
	}
	e.do("GET", "/api/svc/v2/comments?author_email=quiet.person%40example.org", "author").WantError(403, "rest_forbidden_param")
}

// TestGetAndHeadNeverWriteThroughMethodOverride: _method and
// X-HTTP-Method-Override are honoured on POST only.
func TestGetAndHeadNeverWriteThroughMethodOverride(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("editor", "post", map[string]any{"title": "Keep me"})
	item := "/api/svc/v2/posts/" + strconv.FormatInt(p.ID, 10)
	before := len(e.do("GET", "/api/svc/v2/posts?status=any&per_page=100", "administrator").Array())
	for _, tc := range []struct {
		method, target string
		hdr            []any
	}{
		{"GET", item + "?_method=DELETE&force=true", nil},
		{"GET", item, []any{"X-HTTP-Method-Override", "DELETE"}},
		{"HEAD", item + "?_method=DELETE&force=true", nil},
		{"GET", "/api/svc/v2/posts?_method=POST&title=x&status=publish", nil},
		{"GET", item + "?_method=PUT&title=Changed", nil},
		{"GET", "/api/svc/v2/users/me/application-passwords?_method=POST&name=minted", nil},
	} {
		args := append([]any{nil}, tc.hdr...)
		r := e.do(tc.method, tc.target, "administrator", args...)
		if r.Status != 200 {
			t.Errorf("%s %s: %d %s", tc.method, tc.target, r.Status, r.Body)
		}
	}
	got := e.do("GET", item+"?context=edit", "administrator").Object()
	if got["title"].(map[string]any)["raw"] != "Keep me" || got["status"] != "publish" {
		t.Errorf("the post changed: %v", got)
	}
	if after := len(e.do("GET", "/api/svc/v2/posts?status=any&per_page=100", "administrator").Array()); after != before {
		t.Errorf("%d posts before, %d after", before, after)
	}
	if n := len(e.do("GET", "/api/svc/v2/users/me/application-passwords", "administrator").Array()); n != 1 {
		t.Errorf("%d application passwords, want the 1 the test made", n)
	}
	// POST still honours it.
	e.do("POST", item+"?_method=DELETE&force=true", "administrator").WantStatus(200)
	e.do("GET", item, "administrator").WantError(404, "rest_post_invalid_id")
}

// TestCommonWordSearchHidesProtectedTextOnEveryPlan: a word in every post
// (on PostgreSQL after ANALYZE, whose statistics then call it common, so
// that its pages come from a window of the newest posts and its total
// from the search index) matches a protected post's content only for a
// caller who may edit the post or sends its password, in the page, the
// total, a later page and _embed alike; the title stays searchable.
func TestCommonWordSearchHidesProtectedTextOnEveryPlan(t *testing.T) {
	e := newEnv(t)
	var open, locked []int64
	for i := range 30 {
		fields := map[string]any{"title": fmt.Sprintf("Note %d", i), "content": "the walrus sleeps"}
		if i%10 == 4 {
			fields["title"], fields["password"] = fmt.Sprintf("Locked %d", i), "opensesame"
			locked = append(locked, e.createPost("author", "post", fields).ID)
			continue
		}
		open = append(open, e.createPost("author", "post", fields).ID)
	}
	if e.cfg.DatabaseURL != "" {
		if err := postgres.Analyze(context.Background(), e.cfg.DatabaseURL); err != nil {
			t.Fatal(err)
		}
	}
	newestFirst := func(ids []int64) []int64 {
		out := slices.Clone(ids)
		slices.Reverse(out)
		return out
	}
	all := append(slices.Clone(open), locked...)
	slices.Sort(all)
	for _, c := range []struct {
		name, login, query string
		want               []int64
	}{
		{"anonymous", "", "", newestFirst(open)},
		{"a subscriber", "subscriber", "", newestFirst(open)},
		{"a contributor", "contributor", "", newestFirst(open)},
		{"a wrong password", "", "&password=wrong", newestFirst(open)},
		{"the password", "", "&password=opensesame", newestFirst(all)},
		{"the author", "author", "", newestFirst(all)},
		{"an editor", "editor", "", newestFirst(all)},
	} {
		var got []int64
		for page := 1; page <= 3; page++ {
			r := e.do("GET", fmt.Sprintf("/api/svc/v2/posts?search=walrus&per_page=10&page=%d%s", page, c.query), c.login)
			r.WantStatus(200)
			if total(r) != strconv.Itoa(len(c.want)) {
				t.Errorf("%s, page %d: total %s, want %d", c.name, page, total(r), len(c.want))
			}
			got = append(got, ids(r.Array())...)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		r := e.do("GET", "/api/svc/v2/posts?search=walrus&_embed=1&per_page=100"+c.query, c.login)
		if n := len(r.Array()); n != len(c.want) || total(r) != strconv.Itoa(len(c.want)) {
			t.Errorf("%s, _embed: %d posts, total %s, want %d", c.name, n, total(r), len(c.want))
		}
	}
	// The title of a protected post is searchable by everyone.
	if r := e.do("GET", "/api/svc/v2/posts?search=locked+walrus", ""); len(r.Array()) != 0 || total(r) != "0" {
		t.Errorf("a protected post's content matched beside its title: %s", r.Body)
	}
	if r := e.do("GET", "/api/svc/v2/posts?search=locked", ""); len(r.Array()) != len(locked) || total(r) != strconv.Itoa(len(locked)) {
		t.Errorf("protected titles: %d posts, total %s, want %d", len(r.Array()), total(r), len(locked))
	}
}
