package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// BenchmarkCreateWithKeptTotals: a create (one batch each) of 256 words,
// with 0, 85 or 256 of them kept searches (the bound); each batch
// writes their new totals. The WAL is not synced: what is measured is
// the writer's work.
func BenchmarkCreateWithKeptTotals(b *testing.B) {
	for _, kept := range []int{0, 85, 256} {
		b.Run(fmt.Sprintf("kept=%d", kept), func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "folio.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if err := db.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
			db.c.group.totals.from, db.c.group.totals.asked = 0, 1
			// The writer's work, not the disk's: no fsync.
			db.c.group.syncWAL = func() error { return nil }
			words := make([]string, 256) // the same text whatever is kept
			for i := range words {
				words[i] = fmt.Sprintf("word%03d", i)
			}
			text := strings.Join(words, " ")
			create := func() {
				p := &store.Post{Type: "post", Status: "publish", Title: "Kept totals", Content: text}
				if err := db.InsertPost(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			create()
			for _, w := range words[:kept] {
				if _, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: w}); err != nil {
					b.Fatal(err)
				}
			}
			create() // the batch that keeps the last ones
			var n int
			if err := db.c.read.QueryRow(`SELECT count(*) FROM search_totals WHERE key <> ''`).Scan(&n); err != nil || n != kept {
				b.Fatalf("%d searches kept (%v), want %d", n, err, kept)
			}
			b.ResetTimer()
			for range b.N {
				create()
			}
		})
	}
}
