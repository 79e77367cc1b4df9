package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/sqlstore"
	"github.com/folio-server/folio/internal/store/storetest"
)

// keptSite is a PostgreSQL site whose kept search totals a test checks
// against the matching rules applied in Go to every post.
type keptSite struct {
	t  *testing.T
	db *postgres.DB
}

func newKeptSite(t *testing.T) *keptSite {
	t.Helper()
	return &keptSite{t: t, db: storetest.OpenPostgres(t, storetest.PostgresURL(t))}
}

func (s *keptSite) exec(query string, args ...any) {
	s.t.Helper()
	if _, err := s.db.Pool().Exec(context.Background(), query, args...); err != nil {
		s.t.Fatalf("%s: %v", query, err)
	}
}

func (s *keptSite) insert(p *store.Post) *store.Post {
	s.t.Helper()
	if err := s.db.InsertPost(context.Background(), p); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *keptSite) update(p *store.Post, change func(*store.Post)) {
	s.t.Helper()
	change(p)
	if err := s.db.UpdatePost(context.Background(), p); err != nil {
		s.t.Fatal(err)
	}
}

// truth counts the posts without a password of types × statuses whose
// title, excerpt or content every one of words begins a word of.
func (s *keptSite) truth(words, types, statuses []string) int64 {
	s.t.Helper()
	rows, err := s.db.Pool().Query(context.Background(), `SELECT type, status, password, title, excerpt, content FROM posts`)
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var typ, status, password, title, excerpt, content string
		if err := rows.Scan(&typ, &status, &password, &title, &excerpt, &content); err != nil {
			s.t.Fatal(err)
		}
		if password == "" && slices.Contains(types, typ) && slices.Contains(statuses, status) &&
			sqlstore.SearchFieldsMatch(words, title, excerpt, content) {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// keep keeps a search, asking again while transactions of other tests
// on the server keep it waiting.
func (s *keptSite) keep(words ...string) {
	s.t.Helper()
	types, statuses := []string{"post"}, []string{"publish"}
	for range 40 {
		n, kept, err := s.db.KeepSearch(context.Background(), words, types, statuses)
		if err != nil {
			s.t.Fatal(err)
		}
		if kept {
			if want := s.truth(words, types, statuses); n != want {
				s.t.Fatalf("keeping %q: counted %d, want %d", words, n, want)
			}
			return
		}
	}
	s.t.Fatalf("%q was never kept", words)
}

var keptCollections = []struct{ types, statuses []string }{
	{[]string{"post"}, []string{"publish"}},
	{[]string{"post", "page"}, []string{"publish", "private"}},
	{[]string{"page"}, []string{"draft", "trash"}},
	{[]string{"attachment"}, []string{"inherit"}},
}

// check compares each kept search's totals with the truth.
func (s *keptSite) check(step string, searches ...[]string) {
	s.t.Helper()
	for _, words := range searches {
		for _, c := range keptCollections {
			n, kept, err := s.db.KeptSearch(context.Background(), words, c.types, c.statuses)
			if err != nil {
				s.t.Fatal(err)
			}
			if want := s.truth(words, c.types, c.statuses); !kept || n != want {
				s.t.Errorf("%s: %q in %v × %v: kept %v, total %d, want %d", step, words, c.types, c.statuses, kept, n, want)
			}
		}
	}
}

// TestKeptSearchTotalsFollowEveryWrite: the totals of kept searches
// (migration 0034) stay those of the posts through every kind of write,
// the store's and plain SQL's: creates (words split in Go and by the
// trigger), bulk inserts, changes of text, type, status and password
// alone and together, several rows at once, rolled back writes and
// deletes.
func TestKeptSearchTotalsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	s := newKeptSite(t)
	ctx := context.Background()
	statuses := []string{"publish", "draft", "private", "trash"}
	var posts []*store.Post
	for i := range 48 {
		p := &store.Post{Type: []string{"post", "page"}[i%5/4], Status: statuses[i%len(statuses)],
			Title: fmt.Sprintf("Post %d", i), Content: "alpha"}
		if i%3 == 0 {
			p.Content += " omega"
		}
		if i%7 == 0 {
			p.Excerpt = "Omegas"
		}
		if i%11 == 0 {
			p.Password = "pw"
		}
		posts = append(posts, s.insert(p))
	}
	searches := [][]string{{"alpha"}, {"omega"}, {"alp", "ome"}, {"zeta"}}
	for _, words := range searches {
		s.keep(words...)
	}
	s.check("kept", searches...)

	s.insert(&store.Post{Type: "post", Status: "publish", Title: "New", Content: "alpha omega"})
	s.insert(&store.Post{Type: "post", Status: "publish", Title: "Café", Content: "alpha zêta zeta"}) // split by the trigger
	s.insert(&store.Post{Type: "post", Status: "publish", Title: "Locked", Content: "alpha omega", Password: "pw"})
	s.insert(&store.Post{Type: "attachment", Status: "inherit", Title: "Omega image"})
	s.check("created", searches...)

	var bulk []*store.Post
	for i := range 20 {
		bulk = append(bulk, &store.Post{Type: "post", Status: statuses[i%2], Title: fmt.Sprintf("Bulk %d", i), Content: []string{"alpha", "omega", "zeta ünïcode"}[i%3]})
	}
	if err := s.db.InsertPosts(ctx, bulk); err != nil {
		t.Fatal(err)
	}
	s.check("bulk inserted", searches...)

	s.update(posts[0], func(p *store.Post) { p.Content = "nothing here" })
	s.update(posts[1], func(p *store.Post) { p.Status = "publish" })
	s.update(posts[2], func(p *store.Post) { p.Type = "page" })
	s.update(posts[3], func(p *store.Post) { p.Password = "pw" })
	s.update(posts[11], func(p *store.Post) { p.Password = "" })
	s.update(posts[6], func(p *store.Post) { p.Content, p.Status = "omega only", "publish" })
	s.update(posts[9], func(p *store.Post) { p.Title = "Zeta" })
	s.check("updated", searches...)

	// An edit of markup alone leaves the words, and writes no count.
	versions := func() string {
		var v string
		if err := s.db.Pool().QueryRow(ctx, `SELECT COALESCE(string_agg(xmin::text, ',' ORDER BY type, status, slot), '') FROM search_kept_counts`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := versions()
	s.update(posts[10], func(p *store.Post) { p.Content = "<p>" + p.Content + "</p>" })
	if after := versions(); after != before {
		t.Errorf("an edit that left the words wrote the counts: %s, then %s", before, after)
	}
	s.check("markup edited", searches...)

	s.exec(`UPDATE posts SET status = 'draft' WHERE id IN ($1, $2, $3)`, posts[12].ID, posts[15].ID, posts[18].ID)
	s.exec(`UPDATE posts SET content = content || ' zeta', type = 'page' WHERE id = $1`, posts[21].ID)
	s.exec(`UPDATE posts SET password = 'x' WHERE id = $1`, posts[24].ID)
	s.check("updated by SQL", searches...)

	tx, err := s.db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE posts SET status = 'publish', content = 'zeta' WHERE status = 'draft'`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	s.check("rolled back", searches...)

	for _, p := range []*store.Post{posts[4], posts[8], posts[33]} {
		if err := s.db.DeletePost(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	s.exec(`DELETE FROM posts WHERE id IN ($1, $2)`, posts[5].ID, bulk[0].ID)
	s.check("deleted", searches...)
}

// TestKeptSearchesMakeRoom: once every position is taken, a search kept
// takes the place of the one read least lately, which is no longer kept,
// and its totals start from what the posts hold, whatever the writes
// counted for the search there before.
func TestKeptSearchesMakeRoom(t *testing.T) {
	t.Parallel()
	s := newKeptSite(t)
	word := func(i int) string { return fmt.Sprintf("w%03d", i) }
	for i := range 6 {
		s.insert(&store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i), Content: "alpha " + word(7)})
	}
	for i := range postgres.MaxKeptSearches {
		s.keep(word(i))
	}
	// Counted for w007 in the slots (its position).
	for i := range 3 {
		s.insert(&store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Later %d", i), Content: "alpha " + word(7)})
	}
	for i := range postgres.MaxKeptSearches {
		if i != 7 {
			s.check("full", []string{word(i)})
		}
	}
	s.keep("alpha")
	s.check("alpha kept", []string{"alpha"})
	if _, kept, err := s.db.KeptSearch(context.Background(), []string{word(7)}, []string{"post"}, []string{"publish"}); err != nil || kept {
		t.Errorf("%s, read least lately, is still kept (%v)", word(7), err)
	}
	s.check("others still kept", []string{word(6)}, []string{word(8)})
	s.insert(&store.Post{Type: "post", Status: "publish", Title: "Last", Content: "alpha"})
	s.check("alpha written", []string{"alpha"})
}

// TestKeepingASearchWaitsForRunningWrites: a write that began before a
// search was kept, and did not count it, commits while the search is
// being kept: the search is kept once that write has ended, with it; one
// that runs past the wait leaves the search to be kept by a later count.
func TestKeepingASearchWaitsForRunningWrites(t *testing.T) {
	t.Parallel()
	s := newKeptSite(t)
	ctx := context.Background()
	s.insert(&store.Post{Type: "post", Status: "publish", Title: "First", Content: "gamma"})
	s.keep("alpha") // search_kept is not empty: writes count what is kept

	for _, hold := range []time.Duration{100 * time.Millisecond, 900 * time.Millisecond} {
		tx, err := s.db.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO posts (type, status, title, content, slug, date, date_gmt, modified, modified_gmt)
			VALUES ('post', 'publish', 'Held', 'gamma', $1, now(), now(), now(), now())`, fmt.Sprintf("held-%d", hold)); err != nil {
			t.Fatal(err)
		}
		type result struct {
			n    int64
			kept bool
			err  error
		}
		done := make(chan result, 1)
		go func() {
			n, kept, err := s.db.KeepSearch(ctx, []string{"gamma"}, []string{"post"}, []string{"publish"})
			done <- result{n, kept, err}
		}()
		time.Sleep(hold)
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		if hold > time.Second/2 {
			if r.kept {
				t.Errorf("kept while a write that began before ran on for %v", hold)
			}
			continue
		}
		if r.kept && r.n != s.truth([]string{"gamma"}, []string{"post"}, []string{"publish"}) {
			t.Errorf("kept beside a write held %v: %d", hold, r.n)
		}
		if r.kept {
			s.check("kept beside a write", []string{"gamma"})
			// Not kept again: the next round keeps it afresh.
			s.exec(`DELETE FROM search_kept WHERE words = '{gamma}'`)
		}
	}
	s.keep("gamma")
	s.check("kept later", []string{"gamma"})
}

// TestReadOnlyServersCountSearches: a server that refuses writes (a
// standby, or transactions read-only by default) counts a common search
// as before instead of failing to keep it.
func TestReadOnlyServersCountSearches(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	s := &keptSite{t: t, db: storetest.OpenPostgres(t, url)}
	for i := range 30 {
		s.insert(&store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i), Content: "walrus"})
	}
	s.exec(`ANALYZE post_search`)
	ro, err := postgres.Open(context.Background(), url+"&options=-c%20default_transaction_read_only%3Don", postgres.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	n, err := ro.CountPosts(context.Background(), store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Search: "walrus"})
	if err != nil || n != 30 {
		t.Errorf("read-only count: %d, %v; want 30", n, err)
	}
	if _, kept, _ := s.db.KeptSearch(context.Background(), []string{"walrus"}, []string{"post"}, []string{"publish"}); kept {
		t.Error("kept through a read-only server")
	}
}

// TestBulkLoadsDropKeptSearches: a bulk load drops the kept searches, so
// that the posts it loads are not matched against them, keeps none while
// it runs, and the searches are kept again, exact, by their next counts.
func TestBulkLoadsDropKeptSearches(t *testing.T) {
	t.Parallel()
	s := newKeptSite(t)
	ctx := context.Background()
	for i := range 10 {
		s.insert(&store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i), Content: "alpha"})
	}
	s.keep("alpha")
	s.insert(&store.Post{Type: "post", Status: "publish", Title: "Counted", Content: "alpha"})
	slots := func() int64 {
		var n int64
		if err := s.db.Pool().QueryRow(ctx, `SELECT COALESCE(SUM(x), 0)::bigint FROM search_kept_counts, unnest(n) AS x WHERE slot >= 0`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := slots()
	err := s.db.BulkLoad(ctx, func(ctx context.Context) error {
		if _, kept, err := s.db.KeepSearch(ctx, []string{"alpha"}, []string{"post"}, []string{"publish"}); err != nil || kept {
			t.Errorf("kept during a bulk load (%v)", err)
		}
		var bulk []*store.Post
		for i := range 20 {
			bulk = append(bulk, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Bulk %d", i), Content: "alpha"})
		}
		return s.db.InsertPosts(ctx, bulk)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, kept, err := s.db.KeptSearch(ctx, []string{"alpha"}, []string{"post"}, []string{"publish"}); err != nil || kept {
		t.Errorf("still kept after a bulk load (%v)", err)
	}
	if after := slots(); after != before {
		t.Errorf("the load's posts were counted for kept searches: slots %d, then %d", before, after)
	}
	s.keep("alpha")
	s.check("kept again", []string{"alpha"})
}
