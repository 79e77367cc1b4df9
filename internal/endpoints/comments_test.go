package endpoints_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

const comments = "/api/svc/v2/comments"

// commentEnv is an env whose clock moves a minute forward on every
// comment created through mkComment, so that the flood rule only bites
// where a test wants it to.
type commentEnv struct {
	*env
	mu  sync.Mutex
	now time.Time
}

func newCommentEnv(t *testing.T, mutate ...func(*configT)) *commentEnv {
	ce := &commentEnv{env: newEnv(t, mutate...), now: time.Now().UTC().Add(-24 * time.Hour)}
	ce.site.SetClock(func() time.Time {
		ce.mu.Lock()
		defer ce.mu.Unlock()
		return ce.now
	})
	return ce
}

func (ce *commentEnv) tick() {
	ce.mu.Lock()
	ce.now = ce.now.Add(time.Minute)
	ce.mu.Unlock()
}

// mkComment creates a comment as login and returns its id.
func (ce *commentEnv) mkComment(login string, body map[string]any) int64 {
	ce.T.Helper()
	ce.tick()
	r := ce.do("POST", comments, login, body)
	if r.Status != 201 {
		ce.T.Fatalf("create comment as %q: %d %s", login, r.Status, r.Body)
	}
	return int64(r.Object()["id"].(float64))
}

func (ce *commentEnv) comment(id int64) *store.Comment {
	ce.T.Helper()
	c, err := ce.db.GetComment(context.Background(), id)
	if err != nil {
		ce.T.Fatal(err)
	}
	return c
}

func (ce *commentEnv) commentCount(post int64) int64 {
	ce.T.Helper()
	p, err := ce.db.GetPost(context.Background(), post)
	if err != nil {
		ce.T.Fatal(err)
	}
	return p.CommentCount
}

func cpath(id int64) string { return fmt.Sprintf("%s/%d", comments, id) }

func TestCreateCommentAnonymousDefaultsAndOrigin(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	e.tick()
	r := e.do("POST", comments, "", map[string]any{"post": p.ID, "content": "Hello <script>x</script>there", "author_name": " Guest ", "author_email": "guest@example.com"},
		"User-Agent", "folio-test/1.0", "X-Forwarded-For", "203.0.113.9")
	r.WantStatus(201)
	m := r.Object()
	id := int64(m["id"].(float64))
	if r.Header.Get("Location") != e.URL+cpath(id) {
		t.Fatalf("Location = %q", r.Header.Get("Location"))
	}
	// Anonymous callers get the view context: no email, no IP.
	for _, k := range []string{"author_email", "author_ip", "karma"} {
		if _, ok := m[k]; ok {
			t.Errorf("view context response has %s", k)
		}
	}
	if m["status"] != "hold" {
		t.Errorf("first comment of a guest: status %v, want hold", m["status"])
	}
	if m["author"] != float64(0) || m["author_name"] != "Guest" || m["type"] != "comment" || m["parent"] != float64(0) {
		t.Errorf("fields: %s", r.Body)
	}
	c := e.comment(id)
	if c.AuthorIP != "127.0.0.1" || c.AuthorUserAgent != "folio-test/1.0" {
		t.Errorf("origin = %q %q; the connection's address and the request's user agent are stored", c.AuthorIP, c.AuthorUserAgent)
	}
	if strings.Contains(c.Content, "script") {
		t.Errorf("content not filtered: %q", c.Content)
	}
	if c.DateGMT.IsZero() {
		t.Error("date_gmt defaults to now")
	}
	ed := e.do("GET", cpath(id)+"?context=edit", "editor").Object()
	if ed["author_ip"] != "127.0.0.1" || ed["author_user_agent"] != "folio-test/1.0" || ed["author_email"] != "guest@example.com" {
		t.Errorf("edit context: %v", ed)
	}
	content := ed["content"].(map[string]any)
	if content["raw"] == nil || !strings.Contains(content["rendered"].(string), "<p>") {
		t.Errorf("content = %v", content)
	}
	if _, ok := ed["author_avatar_urls"].(map[string]any)["48"]; !ok {
		t.Errorf("avatars missing: %v", ed["author_avatar_urls"])
	}
	if !strings.HasSuffix(ed["link"].(string), fmt.Sprintf("#comment-%d", id)) {
		t.Errorf("link = %v", ed["link"])
	}

	// Empty defaults: no name, no content.
	e.tick()
	r = e.do("POST", comments, "", map[string]any{"post": p.ID})
	r.WantStatus(201)
	c = e.comment(int64(r.Object()["id"].(float64)))
	if c.AuthorName != "" || c.AuthorEmail != "" || c.AuthorURL != "" || c.Content != "" || c.Type != "comment" {
		t.Errorf("defaults: %+v", c)
	}
}

func TestCreateCommentLoginRequiredWhenAnonymousCommentsAreOff(t *testing.T) {
	e := newCommentEnv(t, func(c *configT) { c.Site.AllowAnonymousComments = false })
	p := e.createPost("author", "post", nil)
	e.do("POST", comments, "", map[string]any{"post": p.ID, "content": "x"}).WantError(401, "rest_comment_login_required")
	e.mkComment("subscriber", map[string]any{"post": p.ID, "content": "x"})
}

func TestCreateCommentFillsSignedInAuthorAndModeration(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	cases := []struct {
		login  string
		status string
	}{
		{"subscriber", "0"},    // first comment: held
		{"contributor", "0"},   // first comment: held
		{"author", "1"},        // the post's author
		{"editor", "1"},        // moderate_comments
		{"administrator", "1"}, // moderate_comments
	}
	for _, tc := range cases {
		id := e.mkComment(tc.login, map[string]any{"post": p.ID, "content": "by " + tc.login})
		c := e.comment(id)
		if c.AuthorID != e.ID(tc.login) || c.AuthorEmail != tc.login+"@example.com" || c.AuthorName == "" {
			t.Errorf("%s: author details not taken from the user: %+v", tc.login, c)
		}
		if c.Approved != tc.status {
			t.Errorf("%s: approved = %q, want %q", tc.login, c.Approved, tc.status)
		}
	}
	// A guest with an approved comment is approved next time.
	id := e.mkComment("", map[string]any{"post": p.ID, "content": "one", "author_name": "Gus", "author_email": "gus@example.com"})
	e.do("POST", cpath(id), "editor", map[string]any{"status": "approved"}).WantStatus(200)
	id = e.mkComment("", map[string]any{"post": p.ID, "content": "two", "author_name": "Gus", "author_email": "gus@example.com"})
	if e.comment(id).Approved != "1" {
		t.Error("a previously approved author is approved")
	}
	// Given author details are kept.
	id = e.mkComment("subscriber", map[string]any{"post": p.ID, "content": "named", "author_name": "Alias"})
	if c := e.comment(id); c.AuthorID != 0 || c.AuthorName != "Alias" {
		t.Errorf("given name: %+v", c)
	}
}

func TestCreateCommentModerationOptions(t *testing.T) {
	e := newCommentEnv(t, func(c *configT) {
		c.Site.CommentPreviouslyApproved = false
		c.Site.CommentMaxLinks = 2
	})
	p := e.createPost("author", "post", nil)
	id := e.mkComment("", map[string]any{"post": p.ID, "content": "plain", "author_name": "A"})
	if e.comment(id).Approved != "1" {
		t.Error("without the previously-approved rule a guest is approved")
	}
	id = e.mkComment("", map[string]any{"post": p.ID, "content": `<a href="http://a">a</a> <a href="http://b">b</a>`, "author_name": "A"})
	if e.comment(id).Approved != "0" {
		t.Error("two links hold a comment")
	}
	e2 := newCommentEnv(t, func(c *configT) { c.Site.CommentModeration = true })
	p2 := e2.createPost("author", "post", nil)
	id = e2.mkComment("subscriber", map[string]any{"post": p2.ID, "content": "x"})
	if e2.comment(id).Approved != "0" {
		t.Error("comment_moderation holds every comment")
	}
	id = e2.mkComment("editor", map[string]any{"post": p2.ID, "content": "x"})
	if e2.comment(id).Approved != "1" {
		t.Error("moderators are approved even with comment_moderation")
	}
}

func TestCreateCommentPermissionRules(t *testing.T) {
	e := newCommentEnv(t)
	open := e.createPost("author", "post", nil)
	closed := e.createPost("author", "post", map[string]any{"comment_status": "closed"})
	draft := e.createPost("author", "post", map[string]any{"status": "draft"})
	private := e.createPost("editor", "post", map[string]any{"status": "private"})
	protected := e.createPost("author", "post", map[string]any{"password": "sesame"})
	cases := []struct {
		name   string
		login  string
		body   map[string]any
		status int
		code   string
	}{
		{"author of another", "subscriber", map[string]any{"post": open.ID, "author": e.ID("editor")}, 403, "rest_comment_invalid_author"},
		{"author anon", "", map[string]any{"post": open.ID, "author": e.ID("editor")}, 401, "rest_comment_invalid_author"},
		{"karma", "author", map[string]any{"post": open.ID, "karma": 5}, 403, "rest_comment_invalid_karma"},
		{"status", "author", map[string]any{"post": open.ID, "status": "approved"}, 403, "rest_comment_invalid_status"},
		{"closed", "editor", map[string]any{"post": closed.ID}, 403, "rest_comment_closed"},
		{"closed anon", "", map[string]any{"post": closed.ID}, 403, "rest_comment_closed"},
		{"draft anon", "", map[string]any{"post": draft.ID}, 401, "rest_cannot_read_post"},
		{"draft other", "contributor", map[string]any{"post": draft.ID}, 403, "rest_cannot_read_post"},
		{"private", "author", map[string]any{"post": private.ID}, 403, "rest_cannot_read_post"},
		{"protected", "subscriber", map[string]any{"post": protected.ID}, 403, "rest_cannot_read_post"},
		{"protected wrong", "", map[string]any{"post": protected.ID, "password": "nope"}, 401, "rest_cannot_read_post"},
		{"existing", "editor", map[string]any{"post": open.ID, "id": 5}, 400, "rest_comment_exists"},
		{"bad email", "", map[string]any{"post": open.ID, "author_email": "nope"}, 400, "rest_invalid_param"},
		{"bad parent", "editor", map[string]any{"post": open.ID, "parent": 999}, 400, "rest_comment_invalid_parent"},
		{"unknown user", "editor", map[string]any{"post": open.ID, "author": 999}, 400, "rest_comment_author_invalid"},
	}
	for _, tc := range cases {
		e.tick()
		body := map[string]any{"content": "c " + tc.name}
		for k, v := range tc.body {
			body[k] = v
		}
		e.do("POST", comments, tc.login, body).WantError(tc.status, tc.code)
	}
	ok := []struct {
		login string
		body  map[string]any
	}{
		{"editor", map[string]any{"post": open.ID, "status": "hold", "karma": 3, "author": e.ID("subscriber")}},
		{"author", map[string]any{"post": draft.ID}},
		{"editor", map[string]any{"post": private.ID}},
		{"", map[string]any{"post": protected.ID, "password": "sesame"}},
		{"author", map[string]any{"post": protected.ID}},
		{"subscriber", map[string]any{"post": 999999}}, // an unknown post is not checked
	}
	for i, tc := range ok {
		body := map[string]any{"content": fmt.Sprintf("ok %d", i)}
		for k, v := range tc.body {
			body[k] = v
		}
		e.mkComment(tc.login, body)
	}
	c := e.comment(e.mkComment("editor", map[string]any{"post": open.ID, "content": "moderated", "status": "hold", "karma": 3}))
	if c.Approved != "0" || c.Karma != 3 {
		t.Errorf("moderator status and karma: %+v", c)
	}
}

// TestCommentFloodAndDuplicate: comments from one client address and
// user come at most one per 15 seconds (moderators exempt), whatever date
// they carry; duplicates are refused.
func TestCommentFloodAndDuplicate(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	e.mkComment("", map[string]any{"post": p.ID, "content": "first", "author_name": "G"})
	// Same IP within 15 seconds: flood, whoever the guest claims to be.
	r := e.do("POST", comments, "", map[string]any{"post": p.ID, "content": "second", "author_name": "H", "author_email": "h@example.com"},
		"X-Forwarded-For", "198.51.100.7")
	r.WantError(429, "comment_flood")
	if ra := r.Header.Get("Retry-After"); ra != "15" {
		t.Errorf("comment_flood Retry-After %q, want 15", ra)
	}
	// The flood is counted per (address, user): a signed-in user at the
	// guest's address is not held back by the guest, but by their own
	// comments.
	e.do("POST", comments, "subscriber", map[string]any{"post": p.ID, "content": "third"}).WantStatus(201)
	e.do("POST", comments, "subscriber", map[string]any{"post": p.ID, "content": "third again"}).WantError(429, "comment_flood")
	e.do("POST", comments, "author", map[string]any{"post": p.ID, "content": "third by another"}).WantStatus(201)
	// Moderators are exempt.
	e.do("POST", comments, "editor", map[string]any{"post": p.ID, "content": "fourth"}).WantStatus(201)
	e.do("POST", comments, "editor", map[string]any{"post": p.ID, "content": "fifth"}).WantStatus(201)
	// A client-supplied future date does not lock anybody out.
	e.tick()
	e.do("POST", comments, "subscriber", map[string]any{"post": p.ID, "content": "dated", "date": "2999-01-01T00:00:00"}).WantStatus(201)
	e.tick()
	e.do("POST", comments, "", map[string]any{"post": p.ID, "content": "later", "author_name": "G"}).WantStatus(201)

	// Duplicates: same post, parent, author and content.
	e.tick()
	e.do("POST", comments, "editor", map[string]any{"post": p.ID, "content": "fourth"}).WantError(409, "comment_duplicate")
	e.do("POST", comments, "editor", map[string]any{"post": p.ID, "content": "fourth!"}).WantStatus(201)
}

func TestCommentRoleMatrix(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	type want struct{ get, edit, update, del int }
	cases := map[string]want{
		"administrator": {200, 200, 200, 200},
		"editor":        {200, 200, 200, 200},
		"author":        {200, 403, 403, 403}, // the post's author cannot edit comments
		"contributor":   {403, 403, 403, 403},
		"subscriber":    {200, 403, 403, 403}, // wrote the comment
		"":              {401, 401, 401, 401},
	}
	for _, role := range allRoles {
		w := cases[role]
		t.Run(role, func(t *testing.T) {
			id := e.mkComment("subscriber", map[string]any{"post": p.ID, "content": "held by " + role})
			if e.comment(id).Approved != "0" {
				t.Fatal("want a held comment")
			}
			check := func(what string, r *testkit.Response, status int, code string) {
				t.Helper()
				if status == 200 {
					r.WantStatus(200)
					return
				}
				r.WantError(status, code)
			}
			check("get", e.do("GET", cpath(id), role), w.get, "rest_cannot_read")
			check("edit", e.do("GET", cpath(id)+"?context=edit", role), w.edit, map[bool]string{true: "rest_cannot_read", false: "rest_forbidden_context"}[w.get != 200])
			check("update", e.do("POST", cpath(id), role, map[string]any{"content": "changed"}), w.update, "rest_cannot_edit")
			check("delete", e.do("DELETE", cpath(id)+"?force=true", role), w.del, "rest_cannot_delete")
		})
	}
	e.do("GET", cpath(999999), "").WantError(404, "rest_comment_invalid_id")
	e.do("POST", cpath(999999), "editor", map[string]any{"content": "x"}).WantError(404, "rest_comment_invalid_id")
	e.do("DELETE", cpath(999999), "").WantError(404, "rest_comment_invalid_id")
	// A comment whose post is gone.
	id := e.mkComment("editor", map[string]any{"post": 888888, "content": "orphan"})
	e.do("GET", cpath(id), "editor").WantError(404, "rest_post_invalid_id")
}

func TestCommentsOnUnreadablePostsAreHidden(t *testing.T) {
	e := newCommentEnv(t)
	pub := e.createPost("author", "post", nil)
	draft := e.createPost("author", "post", map[string]any{"status": "draft"})
	private := e.createPost("editor", "post", map[string]any{"status": "private"})
	protected := e.createPost("author", "post", map[string]any{"password": "sesame"})
	var want []int64
	want = append(want, e.mkComment("editor", map[string]any{"post": pub.ID, "content": "public"}))
	onDraft := e.mkComment("editor", map[string]any{"post": draft.ID, "content": "draft"})
	onPrivate := e.mkComment("editor", map[string]any{"post": private.ID, "content": "private"})
	onProtected := e.mkComment("editor", map[string]any{"post": protected.ID, "content": "protected"})
	for _, role := range []string{"", "subscriber", "contributor"} {
		r := e.do("GET", comments, role)
		r.WantStatus(200)
		if got := ids(r.Array()); !reflect.DeepEqual(got, want) || r.Header.Get("X-API-Total") != "1" {
			t.Errorf("%q: got %v total %s, want %v", role, got, r.Header.Get("X-API-Total"), want)
		}
	}
	r := e.do("GET", comments, "author")
	if got := ids(r.Array()); !reflect.DeepEqual(got, []int64{want[0], onDraft, onProtected}) || r.Header.Get("X-API-Total") != "3" {
		t.Errorf("post author: got %v total %s", got, r.Header.Get("X-API-Total"))
	}
	r = e.do("GET", comments, "editor")
	if got := ids(r.Array()); len(got) != 4 || r.Header.Get("X-API-Total") != "4" {
		t.Errorf("editor: got %v", got)
	}
	// With a page of one, the totals are counted (a visitor's and an
	// editor's from the kept comment counts), not taken from the page,
	// and stay the same.
	for role, want := range map[string]string{"": "1", "subscriber": "1", "contributor": "1", "author": "3", "editor": "4", "administrator": "4"} {
		if total := e.do("GET", comments+"?per_page=1", role).Header.Get("X-API-Total"); total != want {
			t.Errorf("%q: X-API-Total %s with a page of one, want %s", role, total, want)
		}
	}
	// Comments waiting for moderation, on a published post and on a draft:
	// the moderators' totals of them, and nobody else's.
	for _, p := range []int64{pub.ID, draft.ID} {
		held := e.mkComment("editor", map[string]any{"post": p, "content": "held"})
		e.do("POST", cpath(held), "editor", map[string]any{"status": "hold"}).WantStatus(200)
	}
	for role, want := range map[string]string{"editor": "2", "administrator": "2"} {
		r := e.do("GET", comments+"?per_page=1&status=hold", role).WantStatus(200)
		if total := r.Header.Get("X-API-Total"); total != want {
			t.Errorf("%q: X-API-Total %s of held comments, want %s", role, total, want)
		}
	}
	for role, want := range map[string]string{"": "1", "author": "3", "editor": "4"} {
		if total := e.do("GET", comments+"?per_page=1", role).Header.Get("X-API-Total"); total != want {
			t.Errorf("%q: X-API-Total %s beside held comments, want %s", role, total, want)
		}
	}
	e.do("GET", cpath(onDraft), "").WantError(401, "rest_cannot_read_post")
	e.do("GET", cpath(onPrivate), "author").WantError(403, "rest_cannot_read_post")
	e.do("GET", cpath(onProtected), "").WantError(401, "rest_cannot_read_post")
	e.do("GET", cpath(onProtected)+"?password=sesame", "").WantStatus(200)
	e.do("GET", fmt.Sprintf("%s?post=%d", comments, draft.ID), "").WantError(401, "rest_cannot_read_post")
	e.do("GET", fmt.Sprintf("%s?post=%d", comments, protected.ID), "subscriber").WantError(403, "rest_cannot_read_post")
	r = e.do("GET", fmt.Sprintf("%s?post=%d&password=sesame", comments, protected.ID), "")
	if got := ids(r.Array()); !reflect.DeepEqual(got, []int64{onProtected}) {
		t.Errorf("with the password: %v", got)
	}
}

func TestCommentCollectionForbiddenParams(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	held := e.mkComment("subscriber", map[string]any{"post": p.ID, "content": "held"})
	approved := e.mkComment("editor", map[string]any{"post": p.ID, "content": "ok", "karma": 2})
	for _, q := range []string{"author=1", "author_exclude=1", "karma=2", "author_email=a@example.com", "type=pings", "status=hold", "status=all", "type=all"} {
		m := e.do("GET", comments+"?"+q, "").WantError(401, "rest_forbidden_param")
		name := strings.SplitN(q, "=", 2)[0]
		if !strings.Contains(m["message"].(string), name) {
			t.Errorf("%s: message %v does not name it", q, m["message"])
		}
		e.do("GET", comments+"?"+q, "subscriber").WantError(403, "rest_forbidden_param")
		// Emails and karma are shown only to moderators, so only they may
		// filter on them.
		if name == "karma" || name == "author_email" {
			e.do("GET", comments+"?"+q, "contributor").WantError(403, "rest_forbidden_param")
			e.do("GET", comments+"?"+q, "author").WantError(403, "rest_forbidden_param")
			e.do("GET", comments+"?"+q, "editor").WantStatus(200)
			continue
		}
		e.do("GET", comments+"?"+q, "contributor").WantStatus(200)
	}
	m := e.do("GET", comments+"?status=hold&author=1", "subscriber").WantError(403, "rest_forbidden_param")
	if m["message"] != "Query parameter not permitted: author, status" {
		t.Errorf("message = %v", m["message"])
	}
	e.do("GET", comments+"?karma=0&status=approve&type=comment", "").WantStatus(200)
	e.do("GET", comments+"?context=edit", "author").WantError(403, "rest_forbidden_context")
	e.do("GET", comments+"?context=edit", "").WantError(401, "rest_forbidden_context")
	e.do("GET", comments+"?post=0", "author").WantError(403, "rest_cannot_read")
	e.do("GET", comments+"?post=0", "editor").WantStatus(200)
	e.do("GET", comments+"?context=nope", "").WantError(400, "rest_invalid_param")
	e.do("GET", comments+"?per_page=101", "").WantError(400, "rest_invalid_param")

	// What the filters select.
	cases := []struct {
		q    string
		want []int64
	}{
		{"status=hold", []int64{held}},
		{"status=all", []int64{held, approved}},
		{"status=approved", []int64{}},
		{"karma=2", []int64{approved}},
		{fmt.Sprintf("author=%d&status=any", e.ID("subscriber")), []int64{held}},
		{fmt.Sprintf("author_exclude=%d&status=any", e.ID("subscriber")), []int64{approved}},
		{"author_email=EDITOR@example.com&status=any", []int64{approved}},
		{"status=any&order=desc", []int64{approved, held}},
		{"status=any&orderby=id&order=desc", []int64{approved, held}},
		{fmt.Sprintf("status=any&include=%d,%d&orderby=include", approved, held), []int64{approved, held}},
		{fmt.Sprintf("status=any&exclude=%d", held), []int64{approved}},
		{"status=any&search=held", []int64{held}},
		{fmt.Sprintf("status=any&post=%d", p.ID), []int64{held, approved}},
		{"status=any&parent=0&per_page=1&page=2", []int64{approved}},
		{"status=any&offset=1", []int64{approved}},
		{"type=pings&status=any", []int64{}},
	}
	for _, tc := range cases {
		r := e.do("GET", comments+"?"+tc.q, "editor")
		r.WantStatus(200)
		if got := ids(r.Array()); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.q, got, tc.want)
		}
	}
	r := e.do("GET", comments+"?status=any&per_page=1", "editor")
	if r.Header.Get("X-API-Total") != "2" || r.Header.Get("X-API-TotalPages") != "2" || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Errorf("paging headers: %v", r.Header)
	}
	// A contributor (edit_posts) sees held comments only where it may.
	r = e.do("GET", comments+"?status=hold", "contributor")
	if got := ids(r.Array()); len(got) != 0 || r.Header.Get("X-API-Total") != "0" {
		t.Errorf("contributor held: %v", got)
	}
}

func TestDeleteCommentTrashAndForce(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	id := e.mkComment("editor", map[string]any{"post": p.ID, "content": "bye"})
	if e.commentCount(p.ID) != 1 {
		t.Fatalf("count = %d", e.commentCount(p.ID))
	}
	r := e.do("DELETE", cpath(id), "editor")
	r.WantStatus(200)
	m := r.Object()
	if m["id"] != float64(id) || m["status"] != "approved" {
		t.Errorf("trash response is the comment as it was, unwrapped: %s", r.Body)
	}
	if _, ok := m["author_ip"]; !ok {
		t.Error("delete response is in edit context")
	}
	if e.comment(id).Approved != "trash" || e.commentCount(p.ID) != 0 {
		t.Errorf("after trash: %q count %d", e.comment(id).Approved, e.commentCount(p.ID))
	}
	e.do("DELETE", cpath(id), "editor").WantError(410, "rest_already_trashed")
	e.do("DELETE", cpath(id)+"?force=false", "editor").WantError(410, "rest_already_trashed")
	// Untrash restores the status it had.
	r = e.do("POST", cpath(id), "editor", map[string]any{"status": "untrash"})
	r.WantStatus(200)
	if r.Object()["status"] != "approved" || e.commentCount(p.ID) != 1 {
		t.Errorf("untrash: %s count %d", r.Body, e.commentCount(p.ID))
	}
	r = e.do("DELETE", cpath(id)+"?force=true", "administrator")
	r.WantStatus(200)
	if r.Object()["id"] != float64(id) {
		t.Errorf("force response: %s", r.Body)
	}
	e.do("GET", cpath(id), "editor").WantError(404, "rest_comment_invalid_id")
	if e.commentCount(p.ID) != 0 {
		t.Error("count after delete")
	}
	// A trashed comment is removed with force.
	id = e.mkComment("editor", map[string]any{"post": p.ID, "content": "again"})
	e.do("DELETE", cpath(id), "editor").WantStatus(200)
	e.do("DELETE", cpath(id)+"?force=1", "editor").WantStatus(200)

	// Trashing switched off by the rest_comment_type_trashable point.
	e.site.Hooks().CommentTrashable.BindFunc(func(ev *events.CommentTrashableEvent) error {
		ev.Trashable = false
		return ev.Next()
	})
	id = e.mkComment("editor", map[string]any{"post": p.ID, "content": "stays"})
	e.do("DELETE", cpath(id), "editor").WantError(501, "rest_trash_not_supported")
	e.do("DELETE", cpath(id)+"?force=true", "editor").WantStatus(200)
}

func TestUpdateCommentRulesAndStatuses(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	other := e.createPost("author", "post", nil)
	id := e.mkComment("subscriber", map[string]any{"post": p.ID, "content": "text"})
	e.do("POST", cpath(id), "editor", map[string]any{"type": "pingback"}).WantError(404, "rest_comment_invalid_type")
	e.do("POST", cpath(id), "editor", map[string]any{"type": "comment", "content": "text"}).WantStatus(200)
	// Setting the status the comment already has fails.
	e.do("POST", cpath(id), "editor", map[string]any{"status": "hold"}).WantError(500, "rest_comment_failed_edit")
	steps := []struct {
		status, want string
		count        int64
	}{
		{"approve", "approved", 1},
		{"spam", "spam", 0},
		{"unspam", "approved", 1},
		{"0", "hold", 0},
		{"1", "approved", 1},
		{"trash", "trash", 0},
		{"untrash", "approved", 1},
	}
	for _, s := range steps {
		r := e.do("PUT", cpath(id), "editor", map[string]any{"status": s.status})
		r.WantStatus(200)
		if got := r.Object()["status"]; got != s.want || e.commentCount(p.ID) != s.count {
			t.Errorf("status=%s: %v count %d, want %s %d", s.status, got, e.commentCount(p.ID), s.want, s.count)
		}
	}
	// Moving to another post keeps both counts right.
	r := e.do("PATCH", cpath(id), "editor", map[string]any{"post": other.ID, "content": "moved", "karma": 4, "date": "2020-05-01T10:00:00"})
	r.WantStatus(200)
	m := r.Object()
	if m["post"] != float64(other.ID) || m["karma"] != float64(4) || m["date"] != "2020-05-01T10:00:00" || e.commentCount(p.ID) != 0 || e.commentCount(other.ID) != 1 {
		t.Errorf("move: %s counts %d %d", r.Body, e.commentCount(p.ID), e.commentCount(other.ID))
	}
	e.do("POST", cpath(id), "editor", map[string]any{"post": 777777}).WantError(403, "rest_comment_invalid_post_id")
	e.do("POST", cpath(id), "editor", map[string]any{"parent": id}).WantError(400, "rest_comment_invalid_parent")
}

func TestCommentThreading(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("editor", "page", map[string]any{"comment_status": "open"})
	other := e.createPost("author", "post", nil)
	top := e.mkComment("editor", map[string]any{"post": p.ID, "content": "top"})
	mid := e.mkComment("editor", map[string]any{"post": p.ID, "content": "mid", "parent": top})
	leaf := e.mkComment("editor", map[string]any{"post": p.ID, "content": "leaf", "parent": mid})
	e.tick()
	e.do("POST", comments, "editor", map[string]any{"post": other.ID, "content": "x", "parent": top}).WantError(400, "rest_comment_invalid_parent")

	r := e.do("GET", cpath(mid), "")
	r.WantStatus(200)
	links := r.Object()["_links"].(map[string]any)
	up := links["up"].([]any)[0].(map[string]any)
	if up["href"] != fmt.Sprintf("%s/api/svc/v2/pages/%d", e.URL, p.ID) || up["post_type"] != "page" || up["embeddable"] != true {
		t.Errorf("up = %v", up)
	}
	if links["in-reply-to"].([]any)[0].(map[string]any)["href"] != e.URL+cpath(top) {
		t.Errorf("in-reply-to = %v", links["in-reply-to"])
	}
	if links["children"].([]any)[0].(map[string]any)["href"] != fmt.Sprintf("%s%s?parent=%d", e.URL, comments, mid) {
		t.Errorf("children = %v", links["children"])
	}
	if links["author"] == nil {
		t.Error("author link missing")
	}
	if _, ok := e.do("GET", cpath(leaf), "").Object()["_links"].(map[string]any)["children"]; ok {
		t.Error("a comment without replies has no children link")
	}
	// The post links its replies.
	pl := e.do("GET", fmt.Sprintf("/api/svc/v2/pages/%d", p.ID), "").Object()["_links"].(map[string]any)
	if pl["replies"].([]any)[0].(map[string]any)["href"] != fmt.Sprintf("%s%s?post=%d", e.URL, comments, p.ID) {
		t.Errorf("replies = %v", pl["replies"])
	}
	// Deleting a parent moves its replies up a level.
	e.do("DELETE", cpath(mid)+"?force=true", "editor").WantStatus(200)
	if got := e.comment(leaf).Parent; got != top {
		t.Errorf("leaf parent = %d, want %d", got, top)
	}
}

func TestCommentsEmbeddedAsReplies(t *testing.T) {
	e := newCommentEnv(t)
	var postIDs []int64
	for i := 0; i < 3; i++ {
		p := e.createPost("author", "post", map[string]any{"title": fmt.Sprint("P", i)})
		postIDs = append(postIDs, p.ID)
		for j := 0; j <= i; j++ {
			e.mkComment("editor", map[string]any{"post": p.ID, "content": fmt.Sprintf("c%d-%d", i, j)})
		}
	}
	r := e.do("GET", posts+"?_embed", "")
	r.WantStatus(200)
	for _, it := range r.Array() {
		m := it.(map[string]any)
		id := int64(m["id"].(float64))
		replies := m["_embedded"].(map[string]any)["replies"].([]any)[0].([]any)
		idx := -1
		for i, pid := range postIDs {
			if pid == id {
				idx = i
			}
		}
		if len(replies) != idx+1 {
			t.Errorf("post %d: %d embedded replies, want %d", id, len(replies), idx+1)
		}
		for _, rep := range replies {
			if rep.(map[string]any)["post"] != nil {
				t.Error("embed context has no post field")
			}
		}
	}
	// Statements do not grow with the number of posts.
	count := func(n int) int64 {
		before := e.Statements()
		e.do("GET", fmt.Sprintf("%s?_embed&per_page=%d", posts, n), "").WantStatus(200)
		return e.Statements() - before
	}
	count(1) // warm the cached post totals
	count(3)
	if a, b := count(1), count(3); a != b {
		t.Errorf("embedding replies: %d statements for 1 post, %d for 3", a, b)
	}
}

// TestEmbeddedRepliesOfPostsWithoutApprovedComments: a page whose posts
// have no approved comment embeds empty replies without asking the store,
// whoever asks; held comments never appear, and a comment unapproved later
// leaves its post's replies empty again.
func TestEmbeddedRepliesOfPostsWithoutApprovedComments(t *testing.T) {
	e := newCommentEnv(t)
	quiet := e.createPost("author", "post", map[string]any{"title": "Quiet"})
	held := e.createPost("author", "post", map[string]any{"title": "Held"})
	e.mkComment("editor", map[string]any{"post": held.ID, "content": "waiting", "status": "hold"})
	talked := e.createPost("author", "post", map[string]any{"title": "Talked"})
	approved := e.mkComment("editor", map[string]any{"post": talked.ID, "content": "said"})

	replies := func(login string) map[int64]int {
		t.Helper()
		r := e.do("GET", posts+"?_embed&per_page=3", login)
		r.WantStatus(200)
		out := map[int64]int{}
		for _, it := range r.Array() {
			m := it.(map[string]any)
			// An empty replies collection is left out of _embedded.
			n := 0
			if emb, ok := m["_embedded"].(map[string]any)["replies"].([]any); ok {
				n = len(emb[0].([]any))
			}
			out[int64(m["id"].(float64))] = n
		}
		return out
	}
	for _, login := range []string{"", "subscriber", "administrator"} {
		got := replies(login)
		if got[quiet.ID] != 0 || got[held.ID] != 0 || got[talked.ID] != 1 {
			t.Errorf("as %q: replies per post %v, want quiet 0, held 0, talked 1", login, got)
		}
	}
	count := func() int64 {
		before := e.Statements()
		e.do("GET", posts+"?_embed&per_page=3", "subscriber").WantStatus(200) // not from the response cache
		return e.Statements() - before
	}
	count()
	withComments := count()
	e.do("POST", fmt.Sprintf("%s/%d", comments, approved), "editor", map[string]any{"status": "hold"}).WantStatus(200)
	if got := replies("administrator"); got[talked.ID] != 0 {
		t.Errorf("after unapproving: replies per post %v, want none", got)
	}
	count()
	// With the approved comment: the comments' page query and the lookups
	// of its related records. Without: neither.
	if without := count(); without > withComments-2 {
		t.Errorf("a page without approved comments made %d statements, with one %d: want two fewer", without, withComments)
	}
}

func TestCommentHooksFireOnce(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	fired := map[string]int{}
	h := e.site.Hooks()
	h.PreInsertComment.BindFunc(func(ev *events.PreInsertCommentEvent) error {
		fired["pre_insert"]++
		ev.Comment.Content += " [checked]"
		return ev.Next()
	})
	h.InsertComment.BindFunc(func(ev *events.InsertCommentEvent) error {
		fired[fmt.Sprint("insert ", ev.Creating)]++
		return ev.Next()
	})
	h.DeleteComment.BindFunc(func(ev *events.DeleteCommentEvent) error { fired["delete"]++; return ev.Next() })
	h.CommentQuery.BindFunc(func(ev *events.CommentQueryEvent) error {
		fired["query"]++
		return ev.Next()
	})
	id := e.mkComment("editor", map[string]any{"post": p.ID, "content": "hi"})
	if !strings.HasSuffix(e.comment(id).Content, "[checked]") {
		t.Error("rest_pre_insert_comment result is stored")
	}
	e.do("POST", cpath(id), "editor", map[string]any{"content": "changed"}).WantStatus(200)
	e.do("GET", comments, "").WantStatus(200)
	e.do("DELETE", cpath(id), "editor").WantStatus(200)
	want := map[string]int{"pre_insert": 1, "insert true": 1, "insert false": 1, "query": 1, "delete": 1}
	if !reflect.DeepEqual(fired, want) {
		t.Errorf("fired %v, want %v", fired, want)
	}
}

func TestDeletePostRemovesItsComments(t *testing.T) {
	e := newCommentEnv(t)
	p := e.createPost("author", "post", nil)
	id := e.mkComment("editor", map[string]any{"post": p.ID, "content": "gone"})
	e.do("DELETE", fmt.Sprintf("%s/%d?force=true", posts, p.ID), "editor").WantStatus(200)
	if _, err := e.db.GetComment(context.Background(), id); err == nil {
		t.Error("the comments of a deleted post are deleted")
	}
}
