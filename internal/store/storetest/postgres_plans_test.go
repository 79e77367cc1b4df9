package storetest_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/storetest"
)

// These tests check how PostgreSQL plans what Folio asks of it on every
// request or write, with the store's own statements (sqlstore.DB.Plans).

// planningPostgres opens a migrated PostgreSQL store for a test of plans,
// skipping it (for why) on another backend.
func planningPostgres(t *testing.T, why string) *postgres.DB {
	t.Helper()
	if storetest.Backend() != "postgres" {
		t.Skip(why)
	}
	t.Parallel()
	return storetest.OpenPostgres(t, storetest.PostgresURL(t))
}

// TestSignInReadsArePlannedCheaply: the reads Basic authentication makes
// on every request (the user with its passwords, and the generations)
// are planned as the few-row reads they are, on a fresh database whose
// one-row tables were never analysed. PostgreSQL guesses thousands of
// rows for such a table, and joining two of them made it guess millions
// and compile the query to machine code (JIT, 200 ms of CPU) every time:
// the estimated cost stays far below jit_above_cost (100,000).
func TestSignInReadsArePlannedCheaply(t *testing.T) {
	pg := planningPostgres(t, "costs are PostgreSQL's (SQLite plans these reads by rows it reads)")
	ctx := context.Background()
	u := &store.User{Login: "plan", Nicename: "plan", Roles: []string{"author"}}
	if err := pg.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := pg.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-plan", UserID: u.ID, Name: "p", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	plans, err := pg.Plans(ctx, func(ctx context.Context) error {
		if _, err := pg.GetUserAppPasswords(ctx, "plan", "pair:plan"); err != nil {
			return err
		}
		_, _, err := pg.AuthGeneration(ctx, "pair:plan")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 {
		t.Fatalf("%d statements planned, want 2", len(plans))
	}
	cost := regexp.MustCompile(`cost=[0-9.]+\.\.([0-9.]+)`)
	for _, p := range plans {
		m := cost.FindStringSubmatch(p.Steps[0])
		if m == nil {
			t.Fatalf("no cost in the plan's first line:\n%s", p)
		}
		total, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		if total > 1000 {
			t.Errorf("estimated cost %.0f, want under 1,000:\n%s\n%s", total, p.SQL, p)
		}
	}
}

// TestNewPostSlugIsReadFromTheIndexAlone: finding a new post's free slug
// on PostgreSQL asks only what the slug indexes hold (type, slug, status),
// so its reads are index-only scans, which fetch no row of a taken slug
// whose page is all-visible. Asking for "any post but id 0" as well made
// each read fetch every taken slug's row (one page each, 4 ms for a
// walk of 33 suffixes on a 100k site).
func TestNewPostSlugIsReadFromTheIndexAlone(t *testing.T) {
	pg := planningPostgres(t, "index-only scans are PostgreSQL's (SQLite's indexes hold the id)")
	ctx := context.Background()
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
