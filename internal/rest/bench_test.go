package rest_test

import (
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

func benchPostSchema() *schema.Object {
	s := thingSchema()
	for _, n := range []string{"date", "date_gmt", "guid", "modified", "modified_gmt", "slug", "type", "link", "content", "excerpt", "author", "featured_media", "comment_status", "ping_status", "sticky", "format", "categories"} {
		s.Add(&schema.Property{Name: n, Type: "string", Context: schema.View | schema.Edit})
	}
	return s
}

func BenchmarkEncodeResourceList(b *testing.B) {
	srv := rest.NewServer(rest.Config{})
	sch := benchPostSchema()
	req := rest.NewRequest(b.Context(), "GET", "/svc/v2/posts", nil)
	list := make([]*rest.Resource, 10)
	for i := range list {
		res := rest.NewResource(sch, schema.View)
		id := strconv.Itoa(i + 1)
		res.Set("id", int64(i+1))
		res.Set("title", map[string]any{"raw": "Raw", "rendered": "Post " + id})
		res.Set("status", "publish")
		res.Set("tags", []int64{1, 2, 3})
		for _, n := range []string{"date", "date_gmt", "modified", "modified_gmt"} {
			res.Set(n, "2024-01-02T03:04:05")
		}
		res.Set("content", "<p>Some \"quoted\" content with unicode é and a newline\n</p>")
		res.Set("slug", "post-"+id)
		res.Set("link", "http://127.0.0.1:8080/2024/01/02/post-"+id+"/")
		res.AddLink("self", req.URL("svc/v2/posts/"+id), false)
		res.AddLink("collection", req.URL("svc/v2/posts"), false)
		res.AddLink("author", req.URL("svc/v2/users/1"), true)
		res.AddLink("replies", req.URL("svc/v2/comments?post="+id), true)
		res.AddLink("https://api.folio.dev/attachment", req.URL("svc/v2/media?parent="+id), false)
		res.AddLink("https://api.folio.dev/term", req.URL("svc/v2/categories?post="+id), true, rest.LinkAttr{Key: "taxonomy", Value: "category"})
		res.AddLink("https://api.folio.dev/term", req.URL("svc/v2/tags?post="+id), true, rest.LinkAttr{Key: "taxonomy", Value: "post_tag"})
		list[i] = res
	}
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf = srv.AppendJSON(buf[:0], list)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkServeCollection(b *testing.B) {
	f := newFixture(b, nil)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", "http://example.test/api/svc/v2/things?per_page=5", nil)
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
