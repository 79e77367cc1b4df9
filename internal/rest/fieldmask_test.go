package rest_test

import (
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// keys returns the sorted keys of a decoded JSON object.
func keys(v any) string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestFieldsSelectsTopLevelAndNestedFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	tests := []struct {
		name, target string
		item         func(any) any // the item of the response to check
		want         string        // its sorted keys
		title        string        // keys of its title, when checked
	}{
		{"top-level fields of a collection", "/api/svc/v2/things?_fields=id,name", first, "id,name", ""},
		{"nested field", "/api/svc/v2/things?_fields=title.rendered", first, "title", "rendered"},
		{"parent listed whole wins", "/api/svc/v2/things?_fields=title.rendered,title&context=edit", first, "title", "raw,rendered"},
		{"unknown names are ignored", "/api/svc/v2/things?_fields=id,nope,title.nope", first, "id,title", ""},
		{"form-style list", "/api/svc/v2/things?_fields[]=id&_fields[]=status", first, "id,status", ""},
		{"space after comma", "/api/svc/v2/things?_fields=id,%20name", first, "id,name", ""},
		{"single item", "/api/svc/v2/things/3?_fields=id,tags", self, "id,tags", ""},
		{"_links only when asked", "/api/svc/v2/things/3?_fields=id,_links", self, "_links,id", ""},
		{"context still filters", "/api/svc/v2/things/3?_fields=id,secret", self, "id", ""},
		{"empty _fields shows everything", "/api/svc/v2/things/3?_fields=", self, "_links,id,name,status,tags,title", ""},
		{"keyed object masks by key", "/api/svc/v2/keyed?_fields=alpha.id", self, "alpha", ""},
		{"envelope masks its body", "/api/svc/v2/things/3?_fields=id&_envelope", func(v any) any { return path(v, "body") }, "id", ""},
		{"root index", "/api/?_fields=name,namespaces", self, "name,namespaces", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := f.do(t, "GET", tc.target, "")
			if res.Status != 200 {
				t.Fatalf("status %d %s", res.Status, res.Raw)
			}
			item := tc.item(res.Body)
			if got := keys(item); got != tc.want {
				t.Errorf("keys = %s, want %s (%s)", got, tc.want, res.Raw)
			}
			if tc.title != "" {
				if got := keys(path(item, "title")); got != tc.title {
					t.Errorf("title keys = %s, want %s", got, tc.title)
				}
			}
		})
	}
	// The totals and paging headers do not depend on _fields.
	res := f.do(t, "GET", "/api/svc/v2/things?_fields=id", "")
	if res.Header.Get("X-API-Total") != "5" || !strings.Contains(res.Header.Get("Link"), `rel="next"`) {
		t.Errorf("headers with _fields: %v", res.Header)
	}
	// Errors are never masked.
	res = f.do(t, "GET", "/api/svc/v2/things/404?_fields=id", "")
	if res.Status != 404 || keys(res.Body) != "code,data,message" {
		t.Errorf("error with _fields: %d %s", res.Status, res.Raw)
	}
}

func first(v any) any { return path(v, 0) }
func self(v any) any  { return v }

func TestFieldsFilterLinkRelations(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res := f.do(t, "GET", "/api/svc/v2/things/3?_fields=_links.self,_links.wp:term", "")
	if got := keys(path(res.Body, "_links")); got != "self,wp:term" {
		t.Errorf("_links keys = %s (%s)", got, res.Raw)
	}
	res = f.do(t, "GET", "/api/svc/v2/things/3?_fields=_links.wp:term,_links.curies", "")
	if got := keys(path(res.Body, "_links")); got != "curies,wp:term" {
		t.Errorf("_links keys = %s (%s)", got, res.Raw)
	}
}

func TestFieldsAndEmbed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	// _embedded appears only when _fields asks for it; without it nothing
	// is fetched at all.
	calls := f.personCalls
	res := f.do(t, "GET", "/api/svc/v2/things/3?_embed&_fields=id", "")
	if keys(res.Body) != "id" || f.personCalls != calls {
		t.Errorf("embedded without being asked: %s (%d person calls)", res.Raw, f.personCalls-calls)
	}
	// _embedded without _links: embedded, links not shown.
	res = f.do(t, "GET", "/api/svc/v2/things/3?_embed&_fields=id,_embedded", "")
	if keys(res.Body) != "_embedded,id" || path(res.Body, "_embedded", "author", 0, "id") != float64(1) {
		t.Errorf("_fields=id,_embedded: %s", res.Raw)
	}
	// _embedded.<rel>.<field>: only that relation, only that field.
	res = f.do(t, "GET", "/api/svc/v2/things/3?_embed&_fields=_embedded.author.name", "")
	if got := jsonString(res.Body); got != `{"_embedded":{"author":[{"name":"cached 1"}]}}` {
		t.Errorf("_embedded.author.name: %s", got)
	}
	// The same through a collection with the relation written compact.
	res = f.do(t, "GET", "/api/svc/v2/things?per_page=1&_embed&_fields=id,_embedded.wp:featuredmedia.id", "")
	if got := jsonString(res.Body); got != `[{"_embedded":{"wp:featuredmedia":[{"id":2}]},"id":1}]` {
		t.Errorf("_embedded.wp:featuredmedia.id: %s", got)
	}
}

func TestEmbedOnlyTheNamedRelations(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, tc := range []struct{ embed, want string }{
		{"author", "author"},
		{"author,wp:term", "author,wp:term"},
		{"wp:featuredmedia", "wp:featuredmedia"},
		{"https://api.folio.dev/featuredmedia", "wp:featuredmedia"},
		{"replies,up", "replies,up"},
		{"self", ""},
		{"nothing-like-it", ""},
		{"true", "author,replies,up,wp:featuredmedia,wp:term"},
		{"1", "author,replies,up,wp:featuredmedia,wp:term"},
		{"", "author,replies,up,wp:featuredmedia,wp:term"},
	} {
		res := f.do(t, "GET", "/api/svc/v2/things/1?_embed="+tc.embed, "")
		if res.Status != 200 {
			t.Fatalf("_embed=%s: %d %s", tc.embed, res.Status, res.Raw)
		}
		if got := keys(path(res.Body, "_embedded")); got != tc.want {
			t.Errorf("_embed=%s: embedded %q, want %q", tc.embed, got, tc.want)
		}
		// The links themselves are all still there.
		if path(res.Body, "_links", "replies") == nil {
			t.Errorf("_embed=%s: _links lost relations", tc.embed)
		}
	}
	// Only the named relations are fetched.
	calls := f.personCalls
	f.do(t, "GET", "/api/svc/v2/things/1?_embed=replies", "")
	if f.personCalls != calls {
		t.Errorf("_embed=replies fetched %d people", f.personCalls-calls)
	}
}

// TestFieldsSkipTheWorkOfFieldsNotAsked checks that _fields is not a
// filter over a fully built response: an extension field that is not
// asked for is neither prepared nor computed, and the handler sees what
// is wanted through Request.Wants (everything, when a registered field is
// asked for).
func TestFieldsSkipTheWorkOfFieldsNotAsked(t *testing.T) {
	t.Parallel()
	var prepared, got atomic.Int64
	var wants []string
	f := newFixture(t, func(c *rest.Config) {})
	srv := rest.NewServer(rest.Config{})
	srv.AddField(&rest.Field{
		Title:  "gadget",
		Schema: &schema.Property{Name: "costly", Type: "string", Context: schema.AllContexts},
		Prepare: func(r *rest.Request, items []*rest.Resource) error {
			prepared.Add(1)
			return nil
		},
		Get: func(r *rest.Request, res *rest.Resource) (any, error) {
			got.Add(1)
			return "expensive", nil
		},
	})
	gadgetSchema := schema.NewObject("gadget",
		&schema.Property{Name: "id", Type: "integer", Context: schema.AllContexts},
		&schema.Property{Name: "body", Type: "object", Context: schema.AllContexts, Properties: []*schema.Property{
			{Name: "raw", Type: "string", Context: schema.AllContexts},
			{Name: "rendered", Type: "string", Context: schema.AllContexts},
		}})
	gadget := func() *schema.Object { return gadgetSchema }
	srv.Register("svc/v2", "/gadgets", &rest.Route{Schema: gadget, Endpoints: []*rest.Endpoint{{
		Methods: rest.Readable,
		Handler: func(r *rest.Request) (*rest.Response, error) {
			wants = wants[:0]
			for _, p := range []string{"id", "body", "body.rendered", "body.raw", "_links"} {
				if r.Wants(p) {
					wants = append(wants, p)
				}
			}
			if r.WantsLinks() {
				wants = append(wants, "links")
			}
			out := make([]*rest.Resource, 3)
			for i := range out {
				out[i] = rest.NewResource(gadget(), schema.View)
				out[i].Set("id", i+1)
				out[i].AddLink("self", r.URL("svc/v2/gadgets"), false)
			}
			return rest.NewResponse(200, out), nil
		},
	}}})
	f.srv = srv
	for _, tc := range []struct {
		query            string
		prepared, got    int64
		wants, firstKeys string
	}{
		{"", 1, 3, "id,body,body.rendered,body.raw,_links,links", "_links,costly,id"},
		{"?_fields=id", 0, 0, "id", "id"},
		// A registered field asked for sees the whole resource (it may
		// read any other field), so the handler computes everything.
		{"?_fields=id,costly", 1, 3, "id,body,body.rendered,body.raw,_links", "costly,id"},
		{"?_fields=body.rendered", 0, 0, "body,body.rendered", ""},
		{"?_fields=id,_links", 0, 0, "id,_links,links", "_links,id"},
		{"?_fields=id,_embedded&_embed", 0, 0, "id,links", "id"},
	} {
		prepared.Store(0)
		got.Store(0)
		res := f.do(t, "GET", "/api/svc/v2/gadgets"+tc.query, "")
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", tc.query, res.Status, res.Raw)
		}
		if prepared.Load() != tc.prepared || got.Load() != tc.got {
			t.Errorf("%s: field prepared %d times, computed %d times; want %d, %d", tc.query, prepared.Load(), got.Load(), tc.prepared, tc.got)
		}
		if w := strings.Join(wants, ","); w != tc.wants {
			t.Errorf("%s: handler wants %q, want %q", tc.query, w, tc.wants)
		}
		if k := keys(path(res.Body, 0)); tc.firstKeys != "" && k != tc.firstKeys {
			t.Errorf("%s: keys %q, want %q", tc.query, k, tc.firstKeys)
		}
	}
}
