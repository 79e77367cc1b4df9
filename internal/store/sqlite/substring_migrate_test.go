package sqlite

import (
	"context"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// Migration 0019 indexes the users, terms and comments a site already has:
// searches of three characters or more, which read the index's
// candidates, find them.
func TestMigration0019IndexesExistingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedBefore(t, 19)
	for _, q := range []string{
		`INSERT INTO users (id, login, email, nicename, display_name) VALUES (7, 'walrus', 'tusks@example.org', 'walrus', 'Wally Walrus')`,
		`INSERT INTO terms (id, taxonomy, name, slug) VALUES (9, 'post_tag', 'Narwhals', 'narwhals')`,
		`INSERT INTO comments (id, post_id, author_name, author_email, author_ip, content) VALUES (11, 0, 'Orca', 'orca@example.net', '192.0.2.44', 'Seen a Beluga today')`,
	} {
		if _, err := db.c.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db.SetSubstringPlans(10000, 0) // always read the index's candidates
	users, err := db.ListUsers(ctx, store.UserQuery{Search: "LLY WAL"})
	if err != nil || len(users) != 1 || users[0].ID != 7 {
		t.Errorf("users matching LLY WAL: %v, %v", users, err)
	}
	users, err = db.ListUsers(ctx, store.UserQuery{Search: "tusks@", SearchAccounts: true})
	if err != nil || len(users) != 1 || users[0].ID != 7 {
		t.Errorf("users matching tusks@: %v, %v", users, err)
	}
	terms, err := db.ListTerms(ctx, store.TermQuery{Taxonomy: "post_tag", Search: "rwha"})
	if err != nil || len(terms) != 1 || terms[0].ID != 9 {
		t.Errorf("tags matching rwha: %v, %v", terms, err)
	}
	for _, q := range []store.CommentQuery{{Search: "beluga"}, {Search: "2.44", SearchPrivate: true}} {
		cs, err := db.ListComments(ctx, q)
		if err != nil || len(cs) != 1 || cs[0].ID != 11 {
			t.Errorf("comments matching %q: %v, %v", q.Search, cs, err)
		}
	}
	var queued int
	if err := db.c.write.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM users_fts_queue) + (SELECT COUNT(*) FROM terms_fts_queue) + (SELECT COUNT(*) FROM comments_fts_queue)`).Scan(&queued); err != nil || queued != 0 {
		t.Errorf("%d rows queued after the migration (%v), want them in the index", queued, err)
	}
}
