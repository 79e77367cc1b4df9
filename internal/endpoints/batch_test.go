package endpoints_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/testkit"
)

// batchEntry is one entry of a batch response.
type batchEntry struct {
	Status  int
	Body    map[string]any
	Headers map[string]any
	Null    bool
}

// batch posts a batch request as login and returns the response and its
// entries.
func (e *env) batch(login string, body map[string]any) (*testkit.Response, []batchEntry) {
	e.T.Helper()
	r := e.do("POST", "/api/batch/v1", login, body)
	if r.Status != 207 {
		return r, nil
	}
	m := r.Object()
	list, ok := m["responses"].([]any)
	if !ok {
		e.T.Fatalf("no responses list: %s", r.Body)
	}
	out := make([]batchEntry, len(list))
	for i, it := range list {
		if it == nil {
			out[i].Null = true
			continue
		}
		en := it.(map[string]any)
		out[i].Status = int(en["status"].(float64))
		out[i].Body, _ = en["body"].(map[string]any)
		out[i].Headers, _ = en["headers"].(map[string]any)
	}
	return r, out
}

func req(method, path string, body map[string]any) map[string]any {
	m := map[string]any{"path": path}
	if method != "" {
		m["method"] = method
	}
	if body != nil {
		m["body"] = body
	}
	return m
}

func wantEntry(t *testing.T, got batchEntry, status int, code string) {
	t.Helper()
	if got.Null || got.Status != status {
		t.Fatalf("entry status = %d (null %v), want %d; body %v", got.Status, got.Null, status, got.Body)
	}
	if code != "" && got.Body["code"] != code {
		t.Fatalf("entry code = %v, want %s; body %v", got.Body["code"], code, got.Body)
	}
}

func TestBatchRunsEachRequestInOrderAndAnswersMultiStatus(t *testing.T) {
	e := newEnv(t)
	keep := e.createPost("editor", "post", map[string]any{"title": "Keep"})
	gone := e.createPost("editor", "post", map[string]any{"title": "Gone"})
	r, got := e.batch("editor", map[string]any{"requests": []any{
		req("", "/svc/v2/posts", map[string]any{"title": "From a batch", "status": "publish"}),
		req("POST", "/svc/v2/tags", map[string]any{"name": "batched"}),
		req("PUT", fmt.Sprintf("/svc/v2/posts/%d", keep.ID), map[string]any{"title": "Kept and renamed"}),
		req("DELETE", fmt.Sprintf("/svc/v2/posts/%d?force=true", gone.ID), nil),
	}})
	r.WantStatus(207)
	if len(got) != 4 {
		t.Fatalf("%d entries, want 4: %s", len(got), r.Body)
	}
	wantEntry(t, got[0], 201, "")
	if title := got[0].Body["title"].(map[string]any)["rendered"]; title != "From a batch" {
		t.Errorf("created title = %v", title)
	}
	if loc, _ := got[0].Headers["Location"].(string); !strings.HasSuffix(loc, fmt.Sprintf("/api/svc/v2/posts/%v", got[0].Body["id"])) {
		t.Errorf("Location = %q", loc)
	}
	wantEntry(t, got[1], 201, "")
	if got[1].Body["name"] != "batched" {
		t.Errorf("tag = %v", got[1].Body)
	}
	wantEntry(t, got[2], 200, "")
	wantEntry(t, got[3], 200, "")

	// Every write is there for the next request.
	id := int64(got[0].Body["id"].(float64))
	e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d", id), "").WantStatus(200)
	if t2 := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d", keep.ID), "").Object()["title"].(map[string]any)["rendered"]; t2 != "Kept and renamed" {
		t.Errorf("updated title = %v", t2)
	}
	e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d", gone.ID), "editor").WantError(404, "rest_post_invalid_id")
}

func TestBatchSubRequestsHonourEachPermissionCheck(t *testing.T) {
	e := newEnv(t)
	admins := e.createPost("administrator", "post", map[string]any{"title": "Admin owned"})
	_, got := e.batch("author", map[string]any{"requests": []any{
		req("POST", "/svc/v2/posts", map[string]any{"title": "Mine", "status": "publish"}),
		req("POST", fmt.Sprintf("/svc/v2/posts/%d", admins.ID), map[string]any{"title": "Not mine"}),
		req("POST", "/svc/v2/categories", map[string]any{"name": "Nope"}),
		req("DELETE", fmt.Sprintf("/svc/v2/posts/%d", admins.ID), nil),
	}})
	if len(got) != 4 {
		t.Fatalf("%d entries", len(got))
	}
	wantEntry(t, got[0], 201, "")
	wantEntry(t, got[1], 403, "rest_cannot_edit")
	wantEntry(t, got[2], 403, "rest_cannot_create")
	wantEntry(t, got[3], 403, "rest_cannot_delete")
	if title := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d", admins.ID), "").Object()["title"].(map[string]any)["rendered"]; title != "Admin owned" {
		t.Errorf("the refused update changed the post: %v", title)
	}

	// Anonymous callers are anonymous in every sub-request: 401.
	_, anon := e.batch("", map[string]any{"requests": []any{
		req("POST", "/svc/v2/posts", map[string]any{"title": "Anon"}),
		req("DELETE", fmt.Sprintf("/svc/v2/posts/%d", admins.ID), nil),
	}})
	if len(anon) != 2 {
		t.Fatalf("%d entries", len(anon))
	}
	wantEntry(t, anon[0], 401, "rest_cannot_create")
	wantEntry(t, anon[1], 401, "rest_cannot_delete")
}

// mixed is a batch with a valid request, an invalid one and one to a
// route that does not allow batching.
func mixed(validation string) map[string]any {
	m := map[string]any{"requests": []any{
		req("POST", "/svc/v2/posts", map[string]any{"title": "Valid", "status": "publish"}),
		req("POST", "/svc/v2/posts", map[string]any{"title": "Invalid", "status": "bogus"}),
		req("POST", "/svc/v2/users/me/application-passwords", map[string]any{"name": "x"}),
	}}
	if validation != "" {
		m["validation"] = validation
	}
	return m
}

func TestBatchRequireAllValidateRunsNothingWhenOneIsInvalid(t *testing.T) {
	for _, mode := range []string{"require-all-validate", "require-all-valid"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			r, got := e.batch("editor", mixed(mode))
			r.WantStatus(207)
			if r.Object()["failed"] != "validation" {
				t.Errorf("failed = %v, want validation", r.Object()["failed"])
			}
			if len(got) != 3 || !got[0].Null {
				t.Fatalf("entries = %+v, want the valid one null", got)
			}
			wantEntry(t, got[1], 400, "rest_invalid_param")
			if params, _ := got[1].Body["data"].(map[string]any)["params"].(map[string]any); params["status"] == nil {
				t.Errorf("invalid entry names no status param: %v", got[1].Body)
			}
			wantEntry(t, got[2], 400, "rest_batch_not_allowed")
			if n := len(e.do("GET", "/api/svc/v2/posts?status=any", "editor").Array()); n != 0 {
				t.Errorf("%d posts exist after a batch that failed validation", n)
			}
		})
	}
}

func TestBatchNormalValidationRunsTheValidRequests(t *testing.T) {
	for _, mode := range []string{"", "normal"} {
		t.Run("validation="+mode, func(t *testing.T) {
			e := newEnv(t)
			r, got := e.batch("editor", mixed(mode))
			r.WantStatus(207)
			if _, ok := r.Object()["failed"]; ok {
				t.Errorf("a normal batch says failed: %s", r.Body)
			}
			if len(got) != 3 {
				t.Fatalf("%d entries", len(got))
			}
			wantEntry(t, got[0], 201, "")
			wantEntry(t, got[1], 400, "rest_invalid_param")
			wantEntry(t, got[2], 400, "rest_batch_not_allowed")
			if n := len(e.do("GET", "/api/svc/v2/posts", "").Array()); n != 1 {
				t.Errorf("%d posts, want the valid one", n)
			}
		})
	}
}

func TestBatchOnlyRoutesThatAllowBatching(t *testing.T) {
	e := newEnv(t)
	p := e.createPost("administrator", "post", map[string]any{"title": "P"})
	tag := e.mkTerm("/api/svc/v2/tags", map[string]any{"name": "t"})
	cr := e.do("POST", "/api/svc/v2/comments", "administrator", map[string]any{"post": p.ID, "content": "c"})
	cr.WantStatus(201)
	comment := int64(cr.Object()["id"].(float64))
	user := e.ID("subscriber")
	allowed := []map[string]any{
		req("POST", fmt.Sprintf("/svc/v2/posts/%d", p.ID), map[string]any{"excerpt": "e"}),
		req("POST", "/svc/v2/pages", map[string]any{"title": "Page"}),
		req("PATCH", fmt.Sprintf("/svc/v2/tags/%d", tag), map[string]any{"description": "d"}),
		req("POST", "/svc/v2/categories", map[string]any{"name": "Cat"}),
		req("PUT", fmt.Sprintf("/svc/v2/comments/%d", comment), map[string]any{"content": "edited"}),
		req("POST", "/svc/v2/comments", map[string]any{"post": p.ID, "content": "another"}),
		req("POST", fmt.Sprintf("/svc/v2/users/%d", user), map[string]any{"name": "Renamed"}),
		req("POST", "/svc/v2/users", map[string]any{"username": "batched", "email": "batched@example.com", "password": "pw-123456"}),
	}
	refused := []map[string]any{
		req("POST", "/svc/v2/media", map[string]any{"title": "upload"}),
		req("POST", "/svc/v2/users/me/application-passwords", map[string]any{"name": "n"}),
		req("DELETE", "/svc/v2/users/me/sessions", nil),
		req("DELETE", fmt.Sprintf("/svc/v2/posts/%d/revisions/1", p.ID), nil),
		req("POST", "/batch/v1", map[string]any{"requests": []any{}}),
	}
	var all []any
	for _, r := range append(allowed, refused...) {
		all = append(all, r)
	}
	_, got := e.batch("administrator", map[string]any{"requests": all})
	if len(got) != len(all) {
		t.Fatalf("%d entries, want %d", len(got), len(all))
	}
	for i := range allowed {
		if got[i].Status != 200 && got[i].Status != 201 {
			t.Errorf("allowed request %d (%v): %d %v", i, allowed[i]["path"], got[i].Status, got[i].Body)
		}
	}
	for i := range refused {
		en := got[len(allowed)+i]
		if en.Status != 400 || en.Body["code"] != "rest_batch_not_allowed" {
			t.Errorf("refused request %v: %d %v", refused[i]["path"], en.Status, en.Body)
		}
	}

	// Unknown routes and methods a route lacks: rest_no_route.
	_, got = e.batch("administrator", map[string]any{"requests": []any{
		req("POST", "/svc/v2/nothing", nil),
		req("DELETE", "/svc/v2/posts", nil),
	}})
	wantEntry(t, got[0], 404, "rest_no_route")
	wantEntry(t, got[1], 404, "rest_no_route")
}

func TestBatchParametersFollowTheirSchema(t *testing.T) {
	e := newEnv(t)
	many := make([]any, 26)
	for i := range many {
		many[i] = req("POST", "/svc/v2/posts", map[string]any{"title": "x"})
	}
	for _, tc := range []struct {
		name, code string
		body       map[string]any
	}{
		{"more than 25 requests", "rest_invalid_param", map[string]any{"requests": many}},
		{"a method batches cannot run", "rest_invalid_param", map[string]any{"requests": []any{req("GET", "/svc/v2/posts", nil)}}},
		{"a request without path", "rest_invalid_param", map[string]any{"requests": []any{map[string]any{"method": "POST"}}}},
		{"a body that is not an object", "rest_invalid_param", map[string]any{"requests": []any{map[string]any{"path": "/svc/v2/posts", "body": "x"}}}},
		{"headers that are not strings", "rest_invalid_param", map[string]any{"requests": []any{map[string]any{"path": "/svc/v2/posts", "headers": map[string]any{"X-A": 1}}}}},
		{"requests that are not a list", "rest_invalid_param", map[string]any{"requests": "x"}},
		{"an unknown validation", "rest_invalid_param", map[string]any{"validation": "some", "requests": []any{}}},
		{"no requests", "rest_missing_callback_param", map[string]any{"validation": "normal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/api/batch/v1", "editor", tc.body).WantError(400, tc.code)
		})
	}
	if n := len(e.do("GET", "/api/svc/v2/posts?status=any", "editor").Array()); n != 0 {
		t.Errorf("%d posts after refused batches", n)
	}
	// At most 25 is fine; an empty list answers an empty list.
	r, got := e.batch("editor", map[string]any{"requests": many[:25]})
	r.WantStatus(207)
	if len(got) != 25 {
		t.Fatalf("%d entries", len(got))
	}
	for _, g := range got {
		wantEntry(t, g, 201, "")
	}
	r, got = e.batch("editor", map[string]any{"requests": []any{}})
	r.WantStatus(207)
	if len(got) != 0 {
		t.Errorf("empty batch: %s", r.Body)
	}
	// Only POST answers: the route is a creatable one.
	e.do("GET", "/api/batch/v1", "editor").WantError(404, "rest_no_route")
}

func TestBatchSubRequestKeepsItsQueryAndFields(t *testing.T) {
	e := newEnv(t)
	_, got := e.batch("editor", map[string]any{"requests": []any{
		req("POST", "/svc/v2/posts?_fields=id,title&context=edit", map[string]any{"title": "Masked"}),
		map[string]any{"path": "/svc/v2/posts", "body": map[string]any{"title": "Edit context", "context": "edit"}, "headers": map[string]any{"X-Test": []any{"a", "b"}}},
	}})
	wantEntry(t, got[0], 201, "")
	if len(got[0].Body) != 2 || got[0].Body["title"].(map[string]any)["raw"] != "Masked" {
		t.Errorf("_fields and context of the path not applied: %v", got[0].Body)
	}
	wantEntry(t, got[1], 201, "")
	if _, ok := got[1].Body["_links"]; !ok {
		t.Errorf("no _links: %v", got[1].Body)
	}
}

func TestBatchWritesRetireTheResponseCache(t *testing.T) {
	e := newEnv(t)
	if n := len(e.do("GET", "/api/svc/v2/posts", "").Array()); n != 0 {
		t.Fatalf("%d posts at start", n)
	}
	e.do("GET", "/api/svc/v2/posts", "").WantStatus(200) // served from the cache now
	_, got := e.batch("editor", map[string]any{"requests": []any{
		req("POST", "/svc/v2/posts", map[string]any{"title": "Fresh", "status": "publish"}),
	}})
	wantEntry(t, got[0], 201, "")
	list := e.do("GET", "/api/svc/v2/posts", "").Array()
	if len(list) != 1 {
		t.Fatalf("anonymous list after a batch write has %d posts, want 1", len(list))
	}
}

func TestBatchRouteShowsItsLimitInOptions(t *testing.T) {
	e := newEnv(t)
	// @wordpress/core-data reads endpoints[0].args.requests.maxItems from
	// OPTIONS /batch/v1 to size its batches.
	r := e.do("OPTIONS", "/api/batch/v1", "")
	r.WantStatus(200)
	eps := r.Object()["endpoints"].([]any)
	req := eps[0].(map[string]any)["args"].(map[string]any)["requests"].(map[string]any)
	if req["maxItems"] != float64(25) || req["required"] != true {
		t.Errorf("requests arg: %v", req)
	}
	if r.Header.Get("Allow") != "POST" {
		t.Errorf("Allow = %q", r.Header.Get("Allow"))
	}
}
