package endpoints_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/bench"
	"github.com/folio-server/folio/internal/store"
)

// benchEnv seeds n published posts straight into the store.
func benchEnv(b *testing.B, n int, cached bool) *env {
	e := newEnv(b, func(c *configT) { c.Cache.Responses = &cached })
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	authors := []int64{e.ID("editor"), e.ID("author")}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	err := e.db.Tx(ctx, func(tx store.Store) error {
		for i := 0; i < n; i++ {
			d := base.Add(time.Duration(i) * time.Hour)
			p := &store.Post{Type: "post", Status: "publish", Author: authors[i%2], Title: bench.Title(rng),
				Content: bench.BlockContent(rng, 1500), Slug: fmt.Sprintf("post-%d", i), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d,
				CommentStatus: "open", PingStatus: "open"}
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func benchGet(b *testing.B, path string) {
	cached := strings.HasSuffix(b.Name(), "Cached")
	e := benchEnv(b, 10000, cached)
	h := e.Server.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", path, nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
	})
}

// BenchmarkListPosts measures GET /posts (10 of 10,000 posts) in process.
func BenchmarkListPosts(b *testing.B) { benchGet(b, "/api/svc/v2/posts") }

// BenchmarkListPostsEmbed measures GET /posts?_embed.
func BenchmarkListPostsEmbed(b *testing.B) { benchGet(b, "/api/svc/v2/posts?_embed") }

// BenchmarkListPosts100 measures GET /posts?per_page=100.
func BenchmarkListPosts100(b *testing.B) { benchGet(b, "/api/svc/v2/posts?per_page=100") }

// BenchmarkGetPost measures GET /posts/<id>.
func BenchmarkGetPost(b *testing.B) { benchGet(b, "/api/svc/v2/posts/5000") }

// BenchmarkListPostsCached measures GET /posts served by the response cache.
func BenchmarkListPostsCached(b *testing.B) { benchGet(b, "/api/svc/v2/posts") }

// BenchmarkListPostsEmbedCached measures GET /posts?_embed served by the
// response cache.
func BenchmarkListPostsEmbedCached(b *testing.B) { benchGet(b, "/api/svc/v2/posts?_embed") }

// BenchmarkListPosts100Fields measures GET /posts?per_page=100 asking only
// for id, title and link (_fields), to compare with BenchmarkListPosts100.
func BenchmarkListPosts100Fields(b *testing.B) {
	benchGet(b, "/api/svc/v2/posts?per_page=100&_fields=id,title,link")
}
