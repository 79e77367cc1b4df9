package extension_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

type step struct {
	name   string
	method string
	path   string
	body   any
	status int
	hooks  []string
	events []string // webhook events the step enqueues
}

// runSteps runs each step as the administrator and checks which hooks
// fired, in order and how often, and which webhook events were written to
// the outbox.
func runSteps(t *testing.T, e *env, steps []step) {
	t.Helper()
	seen := 0
	for _, s := range steps {
		e.rec.Reset()
		var r *resp
		if s.method == "UPLOAD" {
			r = e.Upload("administrator", "notes.txt", "text/plain", []byte("hello"))
		} else {
			r = e.do(s.method, s.path, "administrator", s.body)
		}
		if r.Status != s.status {
			t.Fatalf("%s: status %d, want %d: %s", s.name, r.Status, s.status, r.Body)
		}
		if got := e.rec.Names(); !reflect.DeepEqual(got, s.hooks) {
			t.Errorf("%s: hooks %v, want %v", s.name, got, s.hooks)
		}
		log := e.do("GET", "/api/svc/v2/webhooks/1/deliveries?per_page=100", "administrator", nil).Array()
		var got []string
		for _, d := range log[:len(log)-seen] {
			got = append(got, d.(map[string]any)["event"].(string))
		}
		slices.Reverse(got)
		seen = len(log)
		if !reflect.DeepEqual(got, s.events) && !(len(got) == 0 && len(s.events) == 0) {
			t.Errorf("%s: webhook events %v, want %v", s.name, got, s.events)
		}
	}
}

func allEvents(c *config.Config) {
	c.Site.ShowAvatars = true
	c.Webhooks = []config.Webhook{{Name: "all", URL: "http://127.0.0.1:9/", Events: []string{"*"}}}
	c.Server.WebhookPrivateTargets = true // a local receiver
}

func TestTermHooksAndEvents(t *testing.T) {
	e := newEnv(t, allEvents)
	runSteps(t, e, []step{
		{"create tag", "POST", "/api/svc/v2/tags", map[string]any{"name": "T1"}, 201,
			[]string{"rest_pre_insert_post_tag", "folio_changed", "rest_insert_post_tag", "rest_prepare_post_tag"}, []string{"term.created"}},
		{"update tag", "PUT", "/api/svc/v2/tags/2", map[string]any{"name": "T2"}, 200,
			[]string{"rest_pre_insert_post_tag", "folio_changed", "rest_insert_post_tag", "rest_prepare_post_tag"}, []string{"term.updated"}},
		{"list tags", "GET", "/api/svc/v2/tags", nil, 200, []string{"rest_prepare_post_tag"}, nil},
		{"delete tag", "DELETE", "/api/svc/v2/tags/2?force=true", nil, 200,
			[]string{"rest_prepare_post_tag", "folio_changed", "rest_delete_post_tag"}, []string{"term.deleted"}},
		{"create category", "POST", "/api/svc/v2/categories", map[string]any{"name": "C1"}, 201,
			[]string{"rest_pre_insert_category", "folio_changed", "rest_insert_category", "rest_prepare_category"}, []string{"term.created"}},
		{"get category", "GET", "/api/svc/v2/categories/1", nil, 200, []string{"rest_prepare_category"}, nil},
	})
}

func TestCommentHooksAndEvents(t *testing.T) {
	e := newEnv(t, allEvents)
	post := e.do("POST", "/api/svc/v2/posts", "administrator", map[string]any{"title": "x", "status": "publish"}).Object()
	e.rec.Reset()
	runSteps(t, e, []step{
		{"create", "POST", "/api/svc/v2/comments", map[string]any{"post": post["id"], "content": "hi"}, 201,
			[]string{"rest_pre_insert_comment", "folio_changed", "rest_avatar_sizes", "rest_avatar_sizes", "rest_insert_comment"}, []string{"post.created", "post.published", "comment.created"}},
		{"update", "PUT", "/api/svc/v2/comments/1", map[string]any{"content": "ho"}, 200,
			[]string{"folio_changed", "rest_avatar_sizes", "rest_avatar_sizes", "rest_insert_comment"}, []string{"comment.updated"}},
		{"list", "GET", "/api/svc/v2/comments", nil, 200, []string{"rest_comment_query", "rest_avatar_sizes"}, nil},
		{"trash", "DELETE", "/api/svc/v2/comments/1", nil, 200,
			[]string{"rest_avatar_sizes", "rest_comment_type_trashable", "folio_changed", "rest_delete_comment"}, []string{"comment.updated"}},
		{"delete", "DELETE", "/api/svc/v2/comments/1?force=true", nil, 200,
			[]string{"rest_avatar_sizes", "folio_changed", "rest_delete_comment"}, []string{"comment.deleted"}},
	})
}

func TestUserHooksAndEvents(t *testing.T) {
	e := newEnv(t, allEvents)
	runSteps(t, e, []step{
		{"create", "POST", "/api/svc/v2/users", map[string]any{"username": "neo", "email": "neo@example.com", "password": "pw"}, 201,
			[]string{"rest_pre_insert_user", "folio_changed", "rest_avatar_sizes", "rest_insert_user", "rest_avatar_sizes", "rest_prepare_user"}, []string{"user.created"}},
		{"update", "PUT", "/api/svc/v2/users/6", map[string]any{"name": "Neo"}, 200,
			[]string{"rest_pre_insert_user", "folio_changed", "rest_avatar_sizes", "rest_insert_user", "rest_avatar_sizes", "rest_prepare_user"}, []string{"user.updated"}},
		{"get", "GET", "/api/svc/v2/users/6", nil, 200, []string{"rest_avatar_sizes", "rest_prepare_user"}, nil},
		{"list", "GET", "/api/svc/v2/users?include=6", nil, 200, []string{"rest_avatar_sizes", "rest_prepare_user"}, nil},
		{"delete", "DELETE", "/api/svc/v2/users/6?force=true&reassign=1", nil, 200,
			[]string{"rest_avatar_sizes", "rest_prepare_user", "folio_changed", "rest_delete_user"}, []string{"user.deleted"}},
	})
}

func TestMediaHooksAndEvents(t *testing.T) {
	e := newEnv(t, allEvents)
	runSteps(t, e, []step{
		{"upload", "UPLOAD", "", nil, 201,
			[]string{"folio_changed", "rest_prepare_attachment", "rest_insert_attachment"}, []string{"media.created"}},
		{"update", "PUT", "/api/svc/v2/media/1", map[string]any{"alt_text": "x"}, 200,
			[]string{"folio_changed", "rest_insert_attachment", "rest_prepare_attachment"}, []string{"media.updated"}},
		{"list", "GET", "/api/svc/v2/media", nil, 200, []string{"rest_prepare_attachment"}, nil},
		{"delete", "DELETE", "/api/svc/v2/media/1?force=true", nil, 200,
			[]string{"rest_prepare_attachment", "folio_changed"}, []string{"media.deleted"}},
	})
}

func TestPostEventsPerType(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		allEvents(c)
		c.PostTypes = []config.PostType{{Name: "book", RestBase: "books"}}
	})
	runSteps(t, e, []step{
		{"draft", "POST", "/api/svc/v2/books", map[string]any{"title": "B"}, 201,
			[]string{"folio_changed", "rest_insert_book", "rest_prepare_book"}, []string{"book.created"}},
		{"publish", "PUT", "/api/svc/v2/books/1", map[string]any{"status": "publish"}, 200,
			[]string{"folio_changed", "rest_insert_book", "rest_prepare_book"}, []string{"book.updated", "book.published"}},
		{"trash", "DELETE", "/api/svc/v2/books/1", nil, 200,
			[]string{"rest_prepare_book", "rest_book_trashable", "folio_changed", "rest_delete_book"}, []string{"book.trashed"}},
		{"delete", "DELETE", "/api/svc/v2/books/1?force=true", nil, 200,
			[]string{"rest_prepare_book", "folio_changed", "rest_delete_book"}, []string{"book.deleted"}},
		{"page", "POST", "/api/svc/v2/pages", map[string]any{"title": "P", "status": "publish"}, 201,
			[]string{"folio_changed", "rest_insert_page", "rest_prepare_page"}, []string{"page.created", "page.published"}},
	})
}

func TestChangeArgumentsCarryTheRecord(t *testing.T) {
	e := newEnv(t, nil)
	r := e.do("POST", "/api/svc/v2/tags", "editor", map[string]any{"name": "Go"})
	e.want(r, 201)
	for _, c := range e.rec.Calls() {
		switch c.Name {
		case "folio_changed":
			ch := c.Args[0].(content.Change)
			if ch.Kind != "term" || ch.Type != "post_tag" || ch.Action != "created" || ch.Record.(*store.Term).Name != "Go" {
				t.Fatalf("change = %+v", ch)
			}
		case "rest_insert_post_tag":
			if c.Args[0].(*store.Term).Name != "Go" || c.Args[2] != true {
				t.Fatalf("insert args = %v", c.Args)
			}
		case "rest_pre_insert_post_tag":
			if c.Args[0].(*store.Term).Name != "Go" {
				t.Fatalf("pre insert args = %v", c.Args)
			}
		}
	}
	if e.rec.Count("rest_insert_post_tag") != 1 {
		t.Fatal(fmt.Sprint("rest_insert_post_tag fired ", e.rec.Count("rest_insert_post_tag"), " times"))
	}
}
