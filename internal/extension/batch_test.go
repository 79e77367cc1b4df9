package extension_test

import (
	"fmt"
	"reflect"
	"testing"
)

// TestBatchSubRequestsRunHooksAndFieldsAsOnTheirOwn: each request of a
// batch fires the hooks a request of its own fires, in the same order,
// and writes registered fields in its own transaction (a failing updater
// rolls back that request only).
func TestBatchSubRequestsRunHooksAndFieldsAsOnTheirOwn(t *testing.T) {
	e := newEnv(t, nil, moodExtension())
	r := e.do("POST", "/api/svc/v2/posts", "administrator", map[string]any{"title": "Existing", "status": "publish"})
	e.want(r, 201)
	id := int64(r.Object()["id"].(float64))

	e.rec.Reset()
	r = e.do("POST", "/api/batch/v1", "administrator", map[string]any{"requests": []any{
		map[string]any{"path": "/svc/v2/posts", "body": map[string]any{"title": "Batched", "mood": "happy", "status": "publish"}},
		map[string]any{"method": "PUT", "path": fmt.Sprintf("/svc/v2/posts/%d", id), "body": map[string]any{"mood": "sad"}},
	}})
	e.want(r, 207)
	want := []string{"folio_changed", "rest_insert_post", "rest_prepare_post", "folio_changed", "rest_insert_post", "rest_prepare_post"}
	if got := e.rec.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("hooks = %v, want %v", got, want)
	}
	responses := r.Object()["responses"].([]any)
	created := responses[0].(map[string]any)["body"].(map[string]any)
	if created["mood"] != "happy" {
		t.Errorf("field in the batch response = %v", created["mood"])
	}
	for _, it := range []struct {
		id   any
		mood string
	}{{created["id"], "happy"}, {id, "sad"}} {
		if got := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%v", it.id), "", nil).Object()["mood"]; got != it.mood {
			t.Errorf("post %v: mood %v, want %s", it.id, got, it.mood)
		}
	}

	// A failing updater rolls back its own request; the next one runs.
	r = e.do("POST", "/api/batch/v1", "administrator", map[string]any{"requests": []any{
		map[string]any{"path": "/svc/v2/posts", "body": map[string]any{"title": "Angry batch", "mood": "angry", "status": "publish"}},
		map[string]any{"path": "/svc/v2/posts", "body": map[string]any{"title": "Calm batch", "mood": "happy", "status": "publish"}},
	}})
	e.want(r, 207)
	responses = r.Object()["responses"].([]any)
	first, second := responses[0].(map[string]any), responses[1].(map[string]any)
	if first["status"] != float64(400) || first["body"].(map[string]any)["code"] != "mood_refused" || second["status"] != float64(201) {
		t.Fatalf("responses = %v", responses)
	}
	if left := e.do("GET", "/api/svc/v2/posts?search=Angry", "administrator", nil).Array(); len(left) != 0 {
		t.Errorf("the refused request left %d posts", len(left))
	}
}
