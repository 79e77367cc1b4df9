package extension_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// echoExtension registers "echo", a field computed from other fields of
// the resource (the title, the raw content, the link and the author).
func echoExtension() extension.Extension {
	return extFunc(func(api *extension.API) error {
		return api.RegisterField("post", extension.Field{
			Schema: &schema.Property{Name: "echo", Description: "What the field saw.", Type: "string", Context: schema.View | schema.Edit, Readonly: true},
			Get: func(r *rest.Request, res *rest.Resource) (any, error) {
				title, _ := res.Value("title")
				content, _ := res.Value("content")
				link, _ := res.Value("link")
				author, _ := res.Value("author")
				c, _ := content.(map[string]any)
				t, _ := title.(map[string]any)
				return fmt.Sprintf("%v|%v|%v|%v|%v", t["raw"], t["rendered"], c["raw"], link, author), nil
			},
		})
	})
}

// TestRegisteredFieldGetsTheSameInputsWhateverFieldsAsks: a registered
// field's Get sees the whole resource, so ?_fields=id,echo gives the value
// the full response has, in items and in collections, while _fields still
// decides what is shown.
func TestRegisteredFieldGetsTheSameInputsWhateverFieldsAsks(t *testing.T) {
	e := newEnv(t, nil, echoExtension())
	r := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Seen", "content": "<p>words words words</p>", "status": "publish"})
	e.want(r, 201)
	id := int64(r.Object()["id"].(float64))
	full := e.do("GET", fmt.Sprintf("/api/svc/v2/posts/%d", id), "", nil)
	e.want(full, 200)
	want, _ := full.Object()["echo"].(string)
	if !strings.Contains(want, "words words words") || !strings.Contains(want, "Seen") || strings.HasSuffix(want, "<nil>") {
		t.Fatalf("full response echo = %q", want)
	}
	for _, path := range []string{
		fmt.Sprintf("/api/svc/v2/posts/%d?_fields=id,echo", id),
		fmt.Sprintf("/api/svc/v2/posts/%d?_fields=echo", id),
		"/api/svc/v2/posts?_fields=id,echo",
	} {
		got := e.do("GET", path, "", nil)
		e.want(got, 200)
		var item map[string]any
		if strings.Contains(path, "posts?") {
			list := got.Array()
			if len(list) != 1 {
				t.Fatalf("%s: %d items", path, len(list))
			}
			item = list[0].(map[string]any)
		} else {
			item = got.Object()
		}
		if item["echo"] != want {
			t.Errorf("%s: echo = %q, want %q", path, item["echo"], want)
		}
		for k := range item {
			if k != "id" && k != "echo" {
				t.Errorf("%s shows %q, which _fields did not ask for", path, k)
			}
		}
	}
}
