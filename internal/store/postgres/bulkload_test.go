package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestBulkInsertIndexesAsTheTriggerDoes bulk-loads posts whose text is
// ASCII (indexed from the words Go splits) and posts in other scripts
// (indexed by the trigger), beside posts created one by one: every post
// has exactly the post_search row folio_search_vector gives, and
// post_counts adds up to the posts per type, status and month.
func TestBulkInsertIndexesAsTheTriggerDoes(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	texts := []string{"<p>Plain <em>ASCII</em> text, 42 words-ish</p>", "ÄPFEL und Birnen; ΣΟΦΙΑΣ", "a<b c>d <unclosed", "", "東京 garden"}
	var ps []*store.Post
	day := time.Date(2024, 1, 31, 23, 0, 0, 0, time.UTC)
	for i := range 300 {
		d := day.Add(time.Duration(i) * 29 * time.Hour)
		ps = append(ps, &store.Post{Type: []string{"post", "page"}[i%2], Status: []string{"publish", "draft", "future"}[i%3],
			Title: fmt.Sprintf("Title %d", i), Excerpt: texts[(i+1)%len(texts)], Content: texts[i%len(texts)],
			Slug: fmt.Sprintf("p%d", i), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d})
	}
	if err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: "One by one", Slug: "one", Date: day}); err != nil {
		t.Fatal(err)
	}
	err := db.Tx(ctx, func(tx store.Store) error { return tx.(store.PostBulkInserter).InsertPosts(ctx, ps) })
	if err != nil {
		t.Fatal(err)
	}
	var posts, indexed, wrong int
	err = db.Pool().QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM posts), (SELECT COUNT(*) FROM post_search),
		(SELECT COUNT(*) FROM posts p LEFT JOIN post_search s ON s.post_id = p.id
			WHERE s.words IS DISTINCT FROM folio_search_vector(p.title, p.excerpt, p.content))`).Scan(&posts, &indexed, &wrong)
	if err != nil {
		t.Fatal(err)
	}
	if posts != 301 || indexed != 301 || wrong != 0 {
		t.Errorf("%d posts, %d post_search rows, %d of them not as folio_search_vector gives", posts, indexed, wrong)
	}
	var off int
	err = db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM (
		SELECT type, status, date_trunc('month', date) AS month, COUNT(*) AS n FROM posts GROUP BY 1, 2, 3) p
		FULL JOIN (SELECT type, status, month, SUM(n) AS n FROM post_counts GROUP BY 1, 2, 3) c USING (type, status, month)
		WHERE p.n IS DISTINCT FROM c.n AND COALESCE(c.n, 0) <> COALESCE(p.n, 0)`).Scan(&off)
	if err != nil || off != 0 {
		t.Errorf("post_counts differs from the posts in %d (type, status, month) rows (%v)", off, err)
	}
}

// TestPostContentIsCompressedWithLZ4: a post long enough to be compressed
// is stored with lz4 (migration 0022), whether created or bulk-loaded, and
// reads back whole.
func TestPostContentIsCompressedWithLZ4(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	content := strings.Repeat("<p>Compressible content, said again and again.</p>\n", 200)
	one := &store.Post{Type: "post", Status: "publish", Content: content, Slug: "one"}
	if err := db.InsertPost(ctx, one); err != nil {
		t.Fatal(err)
	}
	bulk := []*store.Post{{Type: "post", Status: "publish", Content: content, Slug: "two"}}
	if err := db.Tx(ctx, func(tx store.Store) error { return tx.(store.PostBulkInserter).InsertPosts(ctx, bulk) }); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{one.ID, bulk[0].ID} {
		var method string
		if err := db.Pool().QueryRow(ctx, `SELECT COALESCE(pg_column_compression(content), '') FROM posts WHERE id = $1`, id).Scan(&method); err != nil {
			t.Fatal(err)
		}
		if method != "lz4" {
			t.Errorf("post %d: content compressed with %q, want lz4", id, method)
		}
		got, err := db.GetPost(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Content != content {
			t.Errorf("post %d reads back %d bytes, want %d", id, len(got.Content), len(content))
		}
	}
}

// TestSingleInsertsIndexedFromGo: a post inserted with a reserved id
// (every create) whose text the database splits as Go does (ASCII, with
// curly quotes, dashes and no-break spaces) comes with its post_search
// row, written by the insert itself from Go's words, exactly the row
// folio_search_vector gives; with the index trigger off, a post with
// other letters has none (the trigger indexes it), and with the trigger
// on it has its row.
func TestSingleInsertsIndexedFromGo(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	insert := func(title, content string) int64 {
		t.Helper()
		id, err := db.ReservePostID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p := &store.Post{ID: id, Type: "post", Status: "publish", Title: title, Content: content, Slug: fmt.Sprintf("p%d", id)}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		return id
	}
	row := func(id int64) (has, exact bool) {
		t.Helper()
		err := db.Pool().QueryRow(ctx, `SELECT s.post_id IS NOT NULL, s.words IS NOT DISTINCT FROM folio_search_vector(p.title, p.excerpt, p.content)
			FROM posts p LEFT JOIN post_search s ON s.post_id = p.id WHERE p.id = $1`, id).Scan(&has, &exact)
		if err != nil {
			t.Fatal(err)
		}
		return has, exact
	}
	if _, err := db.Pool().Exec(ctx, `ALTER TABLE posts DISABLE TRIGGER posts_search_insert`); err != nil {
		t.Fatal(err)
	}
	alike := []string{
		"<p>Plain <em>ASCII</em> Text, 42 words-ish</p>",
		"“Curly” quotes — dashes… and\u00a0no-break\u2009spaces «guillemets» ©2024 ×3 ½",
		"a<b c>D <unclosed",
		"",
	}
	for i, c := range alike {
		id := insert(fmt.Sprintf("Title %d: “Garden”", i), c)
		if has, exact := row(id); !has || !exact {
			t.Errorf("%q: post_search row %v, as folio_search_vector gives %v; want both", c, has, exact)
		}
	}
	other := "ÄPFEL und Birnen; ΣΟΦΙΑΣ 東京"
	if has, _ := row(insert("Title", other)); has {
		t.Errorf("%q with the trigger off: a post_search row; want none (Go must leave other letters to the database)", other)
	}
	if _, err := db.Pool().Exec(ctx, `ALTER TABLE posts ENABLE TRIGGER posts_search_insert`); err != nil {
		t.Fatal(err)
	}
	if has, exact := row(insert("Title", other)); !has || !exact {
		t.Errorf("%q: post_search row %v, as folio_search_vector gives %v; want both", other, has, exact)
	}
}

// TestTermCountUpdatesAreHOT: the update a post's publication makes to
// its terms' counts changes no index (migration 0025), so PostgreSQL
// keeps the new version on the row's page (a HOT update) instead of
// adding an entry to every index of terms and leaving the category's row
// thousands of dead versions behind under creates.
func TestTermCountUpdatesAreHOT(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	term := &store.Term{Taxonomy: "category", Name: "Garden", Slug: "garden"}
	if err := db.InsertTerm(ctx, term); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// The statement sqlstore's term counts run (termCountStmts).
	if _, err := tx.Exec(ctx, `UPDATE terms SET count = count + $1 WHERE id = ANY($2::bigint[])`, 1, []int64{term.ID}); err != nil {
		t.Fatal(err)
	}
	var updated, hot int64
	err = tx.QueryRow(ctx, `SELECT pg_stat_get_xact_tuples_updated('terms'::regclass), pg_stat_get_xact_tuples_hot_updated('terms'::regclass)`).Scan(&updated, &hot)
	if err != nil {
		t.Fatal(err)
	}
	if updated != 1 || hot != 1 {
		t.Errorf("count update: %d rows updated, %d of them HOT; want 1 and 1", updated, hot)
	}
}
