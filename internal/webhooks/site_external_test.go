package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/testkit"
	"github.com/folio-server/folio/internal/webhooks"
)

// TestSiteDeliversEveryKindAsAnAdministratorSeesIt: on a whole site
// (internal/testkit, on the store FOLIO_TEST_DATABASE_URL names), the
// changes the roles make through the API are delivered, signed, in order,
// under the event names of their kind, with the record rendered when it
// is delivered as an administrator sees it in edit context (raw text, a
// user's email) and, for a record deleted by then, its snapshot; a user's
// password never leaves.
func TestSiteDeliversEveryKindAsAnAdministratorSeesIt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []string
	var bodies []map[string]any
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get(webhooks.HeaderSignature) != webhooks.Sign("kit-secret", b) {
			t.Errorf("delivery %s: bad signature", r.Header.Get(webhooks.HeaderEvent))
		}
		if strings.Contains(string(b), "$2a$") || strings.Contains(string(b), "pass_hash") {
			t.Errorf("delivery %s carries a password hash: %s", r.Header.Get(webhooks.HeaderEvent), b)
		}
		events = append(events, r.Header.Get(webhooks.HeaderEvent))
		bodies = append(bodies, m)
	}))
	t.Cleanup(recv.Close)
	s := testkit.New(t, testkit.Config(func(c *config.Config) {
		c.Webhooks = []config.Webhook{{Name: "kit", URL: recv.URL, Events: []string{"*"}, Secret: "kit-secret"}}
		c.Server.WebhookPrivateTargets = true // the receiver listens on 127.0.0.1
	}))
	drain := func() {
		t.Helper()
		for {
			n, err := s.Server.Webhooks().RunOnce(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	drain() // nothing happened yet

	// The worker renders a record when it delivers: each change is
	// delivered before the next, so that the data shows the record as the
	// change left it.
	page := s.Page("editor", map[string]any{"title": "Draft page", "content": "Page text", "status": "draft"})
	drain()
	s.Do("POST", s.API("/pages/%d", page), "editor", map[string]any{"status": "publish"}).WantStatus(200)
	drain()
	s.Term("editor", "categories", "News", nil)
	drain()
	post := s.Post("author", map[string]any{"title": "Hello", "content": "Post text"})
	drain()
	s.Comment("subscriber", post, "Nice post", nil)
	drain()
	s.Media("author", "pic.png")
	drain()
	user := s.Create("administrator", "/users", map[string]any{"username": "newbie", "email": "newbie@example.com", "password": testkit.Password("newbie")})
	drain()
	s.Do("DELETE", s.API("/users/%v?force=true&reassign=%d", user["id"], s.ID("administrator")), "administrator").WantStatus(200)
	drain()
	s.Do("DELETE", s.API("/posts/%d", post), "author").WantStatus(200)
	drain()

	mu.Lock()
	defer mu.Unlock()
	want := []string{"page.created", "page.updated", "page.published", "term.created", "post.created", "post.published",
		"comment.created", "media.created", "user.created", "user.deleted", "post.trashed"}
	if strings.Join(events, ",") != strings.Join(want, ",") {
		t.Fatalf("events = %v, want %v", events, want)
	}
	data := func(i int) map[string]any {
		d, _ := bodies[i]["data"].(map[string]any)
		if d == nil || bodies[i]["event"] != want[i] {
			t.Fatalf("delivery %d (%s) = %v", i, want[i], bodies[i])
		}
		return d
	}
	raw := func(d map[string]any, field string) any {
		f, _ := d[field].(map[string]any)
		return f["raw"]
	}
	if d := data(0); d["status"] != "draft" || raw(d, "content") != "Page text" || d["id"] != float64(page) {
		t.Errorf("page.created data = %v", d)
	}
	if d := data(2); d["status"] != "publish" {
		t.Errorf("page.published data = %v", d)
	}
	if d := data(3); d["name"] != "News" || d["taxonomy"] != "category" {
		t.Errorf("term.created data = %v", d)
	}
	if d := data(6); raw(d, "content") != "Nice post" || d["post"] != float64(post) || d["author"] != float64(s.ID("subscriber")) {
		t.Errorf("comment.created data = %v", d)
	}
	if d := data(7); d["media_type"] != "image" || d["mime_type"] != "image/png" {
		t.Errorf("media.created data = %v", d)
	}
	if d := data(8); d["username"] != "newbie" || d["email"] != "newbie@example.com" || d["password"] != nil {
		t.Errorf("user.created data = %v", d)
	}
	if d := data(9); fmt.Sprint(d["id"]) != fmt.Sprint(user["id"]) || d["login"] != "newbie" {
		t.Errorf("user.deleted snapshot = %v", d)
	}
	if d := data(10); d["status"] != "trash" || d["id"] != float64(post) {
		t.Errorf("post.trashed data = %v", d)
	}
}
