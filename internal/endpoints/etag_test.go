package endpoints_test

import (
	"net/http"
	"strconv"
	"testing"
)

// TestConditionalGetFollowsVisibleWrites checks ETags on the real store,
// with the response cache off (so that every 200 is computed afresh): a
// repeated anonymous read with the tag gets 304, a write that changes the
// answer retires the tag, a write the caller cannot see does not.
func TestConditionalGetFollowsVisibleWrites(t *testing.T) {
	off := false
	e := newEnv(t, func(c *configT) { c.Cache.Responses = &off })
	p := e.createPost("editor", "post", map[string]any{"title": "Tagged"})
	first := e.do("GET", "/api/svc/v2/posts", "")
	first.WantStatus(200)
	tag := first.Header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag on an anonymous list")
	}
	nm := e.do("GET", "/api/svc/v2/posts", "", nil, "If-None-Match", tag)
	if nm.Status != http.StatusNotModified || len(nm.Body) != 0 {
		t.Fatalf("If-None-Match with the current tag: %d %s", nm.Status, nm.Body)
	}
	if signed := e.do("GET", "/api/svc/v2/posts", "editor", nil, "If-None-Match", tag); signed.Status != 200 || signed.Header.Get("ETag") != "" {
		t.Fatalf("signed in: %d, ETag %q", signed.Status, signed.Header.Get("ETag"))
	}
	item := e.do("GET", "/api/svc/v2/posts/"+strconv.FormatInt(p.ID, 10), "")
	item.WantStatus(200)
	itemTag := item.Header.Get("ETag")
	if itemTag == "" || itemTag == tag {
		t.Fatalf("item ETag %q (list %q)", itemTag, tag)
	}

	e.createPost("editor", "post", map[string]any{"title": "Another"})
	after := e.do("GET", "/api/svc/v2/posts", "", nil, "If-None-Match", tag)
	after.WantStatus(200)
	if len(after.Array()) != 2 || after.Header.Get("ETag") == tag {
		t.Fatalf("after a write: %d posts, ETag %q (old %q)", len(after.Array()), after.Header.Get("ETag"), tag)
	}
	tag = after.Header.Get("ETag")
	itemTag = e.do("GET", "/api/svc/v2/posts/"+strconv.FormatInt(p.ID, 10), "").Header.Get("ETag")

	// Writes the anonymous caller cannot see (a draft, a held comment)
	// leave the tags alone: a tag tells no more than the body does.
	e.createPost("author", "post", map[string]any{"title": "Secret draft", "status": "draft"})
	if r := e.do("GET", "/api/svc/v2/posts", "", nil, "If-None-Match", tag); r.Status != http.StatusNotModified {
		t.Fatalf("list after a hidden draft: %d, want 304", r.Status)
	}
	if r := e.do("GET", "/api/svc/v2/posts/"+strconv.FormatInt(p.ID, 10), "", nil, "If-None-Match", itemTag); r.Status != http.StatusNotModified {
		t.Fatalf("item after a hidden draft: %d, want 304", r.Status)
	}
	// A write that changes what it answers retires the tag.
	e.do("POST", "/api/svc/v2/posts/"+strconv.FormatInt(p.ID, 10), "editor", map[string]any{"title": "Retitled"}).WantStatus(200)
	if r := e.do("GET", "/api/svc/v2/posts/"+strconv.FormatInt(p.ID, 10), "", nil, "If-None-Match", itemTag); r.Status != 200 {
		t.Fatalf("item after its update: %d, want 200", r.Status)
	}
	if r := e.do("GET", "/api/svc/v2/posts", "", nil, "If-None-Match", tag); r.Status != 200 {
		t.Fatalf("list after an update: %d, want 200", r.Status)
	}
}
