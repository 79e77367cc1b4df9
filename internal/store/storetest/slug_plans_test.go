package storetest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/store/storetest"
)

// TestNewPostSlugIsReadFromTheIndexAlone: finding a new post's free slug
// on PostgreSQL asks only what the slug indexes hold (type, slug, status),
// so its reads are index-only scans, which fetch no row of a taken slug
// whose page is all-visible. Asking for "any post but id 0" as well made
// each read fetch every taken slug's row (one page each, 4 ms for a
// walk of 33 suffixes on a 100k site).
func TestNewPostSlugIsReadFromTheIndexAlone(t *testing.T) {
	if storetest.Backend() != "postgres" {
		t.Skip("index-only scans are PostgreSQL's (SQLite's indexes hold the id)")
	}
	t.Parallel()
	ctx := context.Background()
	pg := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	pool := pg.Pool()
	// Other posts by the thousand, then "walk", "walk-2" … "walk-40"
	// taken, with fresh statistics and visibility (VACUUM).
	for _, q := range []string{
		`INSERT INTO posts (type, status, title, slug) SELECT 'post', 'publish', 'p' || i, 'other-' || i FROM generate_series(1, 20000) AS i`,
		`INSERT INTO posts (type, status, title, slug) VALUES ('post', 'publish', 'walk', 'walk')`,
		`INSERT INTO posts (type, status, title, slug) SELECT 'post', 'publish', 'walk', 'walk-' || i FROM generate_series(2, 40) AS i`,
		`VACUUM (ANALYZE) posts`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var slug string
	plans, err := pg.Plans(ctx, func(ctx context.Context) (err error) {
		slug, err = pg.FreeSlug(ctx, "walk", []string{"post"}, -1, 0, false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if slug != "walk-41" {
		t.Fatalf("free slug %q, want walk-41", slug)
	}
	read := 0
	for _, p := range plans {
		if !strings.Contains(p.SQL, "FROM posts") {
			continue
		}
		read++
		text := p.String()
		if strings.Contains(text, "Seq Scan on posts") || strings.Contains(text, "Index Scan using") || strings.Contains(text, "Bitmap Heap Scan on posts") {
			t.Errorf("a slug read fetches the posts' rows:\n%s\n%s", p.SQL, text)
		}
	}
	if read == 0 {
		t.Fatalf("no read of posts among %d statements", len(plans))
	}
}
