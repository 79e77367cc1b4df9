package endpoints_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// TestTotalsOfLargeSearchesOverHTTP: a search matching thousands of posts
// (a total the SQLite store keeps and follows through writes instead of
// counting it again) gives each caller the total of what that caller may
// see, and moves with every write at once: a protected post's text counts
// only with its password or for an editor, a private post only for an
// editor, and creates, updates and deletes through the interface show in
// the next total. On PostgreSQL the total is kept by the database's
// triggers once counted.
func TestTotalsOfLargeSearchesOverHTTP(t *testing.T) {
	s := testkit.New(t)
	ctx := context.Background()
	const n = 5100 // past the 5,000 matches from which SQLite keeps a total
	posts := make([]*store.Post, n)
	for i := range posts {
		posts[i] = &store.Post{Type: "post", Status: "publish", Author: s.ID("editor"), Title: fmt.Sprintf("Bulk %d", i),
			Slug: fmt.Sprintf("bulk-%d", i), Content: "<p>A gardenia in bloom</p>"}
	}
	err := s.Store().Tx(ctx, func(tx store.Store) error {
		if bulk, ok := tx.(store.PostBulkInserter); ok {
			return bulk.InsertPosts(ctx, posts)
		}
		for _, p := range posts {
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// On PostgreSQL the planner's statistics call the word common, and its
	// total is kept from its first count (migration 0034).
	pg, onPostgres := s.Store().(interface{ Pool() *pgxpool.Pool })
	if onPostgres {
		if _, err := pg.Pool().Exec(ctx, `ANALYZE post_search`); err != nil {
			t.Fatal(err)
		}
	}
	total := func(stage, login, query string, want int) {
		t.Helper()
		for range 2 { // counted, then kept
			r := s.Do("GET", s.API("/posts")+"?per_page=1&search=gardenia"+query, login).WantStatus(200)
			if got := r.Header.Get("X-API-Total"); got != strconv.Itoa(want) {
				t.Fatalf("%s: %q as %q: X-API-Total %s, want %d", stage, query, login, got, want)
			}
		}
	}
	private := "&status=private"
	total("seeded", "", "", n)
	total("seeded", "editor", "", n)
	total("seeded", "editor", private, 0)

	protected := s.Post("editor", map[string]any{"title": "Locked", "content": "gardenia behind a wall", "password": "pw"})
	total("protected", "", "", n)
	total("protected", "", "&password=pw", n+1)
	total("protected", "editor", "", n+1)

	s.Post("editor", map[string]any{"title": "Own", "content": "a private gardenia", "status": "private"})
	total("private", "", "", n)
	total("private", "editor", private, 1)
	s.Do("GET", s.API("/posts")+"?search=gardenia"+private, "").WantError(400, "rest_invalid_param")

	s.Post("author", map[string]any{"title": "Gardenia notes"})
	total("created", "", "", n+1)
	total("created", "editor", "", n+2)

	s.Do("POST", s.API("/posts/%d", posts[0].ID), "editor", map[string]any{"content": "<p>Roses now</p>"}).WantStatus(200)
	s.Do("DELETE", s.API("/posts/%d", posts[1].ID)+"?force=true", "editor").WantStatus(200)
	total("updated and deleted", "", "", n-1)
	total("updated and deleted", "editor", "", n)

	s.Do("POST", s.API("/posts/%d", protected), "editor", map[string]any{"password": ""}).WantStatus(200)
	total("unprotected", "", "", n)
	s.Do("POST", s.API("/posts/%d", posts[2].ID), "editor", map[string]any{"status": "private"}).WantStatus(200)
	total("made private", "", "", n-1)
	total("made private", "editor", private, 2)
	if onPostgres {
		var kept bool
		if err := pg.Pool().QueryRow(ctx, `SELECT kept FROM search_kept WHERE words = '{gardenia}'`).Scan(&kept); err != nil || !kept {
			t.Errorf("the search's total is not kept (%v)", err)
		}
	}
}
