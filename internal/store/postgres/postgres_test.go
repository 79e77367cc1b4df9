package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/storetest"
)

// These are the PostgreSQL-only tests; the behaviour both backends share
// is tested by internal/store/storetest's conformance suite.

func TestMain(m *testing.M) {
	if r := storetest.SkipReason(); r != "" {
		fmt.Println("postgres:", r)
	}
	os.Exit(m.Run())
}

func TestConcurrentMigrateAppliesEachMigrationOnce(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	ctx := context.Background()
	const n = 4
	dbs := make([]*postgres.DB, n)
	for i := range dbs {
		db, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range dbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = dbs[i].Migrate(ctx)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	cur, latest, err := dbs[0].SchemaVersion(ctx)
	if err != nil || cur != latest || latest < 1 {
		t.Fatalf("schema at %d of %d (%v)", cur, latest, err)
	}
	// One row per migration file (numbers may have gaps).
	all, err := migrate.Load(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	if err := dbs[0].Pool().QueryRow(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&rows); err != nil || rows != int64(len(all)) {
		t.Fatalf("schema_migrations has %d rows (%v), want %d", rows, err, len(all))
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	if _, err := db.Pool().Exec(ctx, `INSERT INTO schema_migrations VALUES (9999, '2030-01-01 00:00:00')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); !errors.Is(err, migrate.ErrSchemaNewer) {
		t.Fatalf("Migrate = %v, want ErrSchemaNewer", err)
	}
}

// TestPreviousReleaseWritesBesideSequences runs the statements a node of
// the release before the id sequences (migration 0016) runs on a migrated
// schema during a rolling upgrade: it takes ids from id_counters and bumps
// and reads store_version. Its ids and this release's never collide, and
// each side's writes move the version the other reads.
func TestPreviousReleaseWritesBesideSequences(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	insert := func() int64 {
		t.Helper()
		p := &store.Post{Type: "post"}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	oldTake := func() int64 {
		t.Helper()
		var id int64
		if err := db.Pool().QueryRow(ctx, `UPDATE id_counters SET last = last + 1 WHERE name = 'posts' RETURNING last`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	oldVersion := func() int64 {
		t.Helper()
		var v int64
		if err := db.Pool().QueryRow(ctx, `SELECT version FROM store_version WHERE id = 1`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var last int64
	if err := db.Pool().QueryRow(ctx, `SELECT last FROM id_counters WHERE name = 'posts'`).Scan(&last); err != nil || last != 0 {
		t.Fatalf("id_counters of a new site: posts last %d (%v), want 0", last, err)
	}
	a := insert()
	b := oldTake()
	c := insert()
	if !(a < b && b < c) {
		t.Fatalf("ids new %d, old %d, new %d: want each past the one before", a, b, c)
	}
	if err := db.Pool().QueryRow(ctx, `SELECT last FROM id_counters WHERE name = 'posts'`).Scan(&last); err != nil || last != c {
		t.Errorf("id_counters says %d (%v) after id %d", last, err, c)
	}

	v0, err := db.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(ctx, `UPDATE store_version SET version = version + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	v1, err := db.Version(ctx)
	if err != nil || v1 <= v0 {
		t.Errorf("version %d after an old node's bump, %d before (%v)", v1, v0, err)
	}
	seen := oldVersion()
	insert()
	if v := oldVersion(); v <= seen {
		t.Errorf("an old node reads version %d after a write, %d before", v, seen)
	}
}

// TestWritesRunBesideEachOtherButNotBesideThePreviousRelease: write
// transactions of this release do not wait for each other (they take the
// schema's write lock shared), but one waits while a node of the previous
// release, which takes that lock exclusively for each of its writes and
// relies on running alone, holds it.
func TestWritesRunBesideEachOtherButNotBesideThePreviousRelease(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	write := func(title string) <-chan error {
		done := make(chan error, 1)
		go func() {
			done <- db.Tx(ctx, func(s store.Store) error {
				return s.InsertPost(ctx, &store.Post{Type: "post", Title: title})
			})
		}()
		return done
	}
	within := func(done <-chan error, d time.Duration) (error, bool) {
		select {
		case err := <-done:
			return err, true
		case <-time.After(d):
			return nil, false
		}
	}

	// One transaction stays open; another commits meanwhile.
	entered, release := make(chan struct{}), make(chan struct{})
	open := make(chan error, 1)
	go func() {
		open <- db.Tx(ctx, func(s store.Store) error {
			if err := s.InsertPost(ctx, &store.Post{Type: "post", Title: "open"}); err != nil {
				return err
			}
			close(entered)
			<-release
			return nil
		})
	}()
	<-entered
	if err, ok := within(write("beside"), 10*time.Second); !ok || err != nil {
		t.Fatalf("a write beside an open write transaction: done %v, err %v", ok, err)
	}
	close(release)
	if err := <-open; err != nil {
		t.Fatal(err)
	}

	// The previous release's write lock: fnv-64a of "folio write db.schema".
	var where string
	if err := db.Pool().QueryRow(ctx, `SELECT current_database() || '.' || current_schema()`).Scan(&where); err != nil {
		t.Fatal(err)
	}
	key := fnv64a("folio write " + where)
	old, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = old.Rollback(ctx) }()
	if _, err := old.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, key); err != nil {
		t.Fatal(err)
	}
	waiting := write("after the old node")
	if _, ok := within(waiting, 500*time.Millisecond); ok {
		t.Fatal("a write ran while a previous-release node held the write lock")
	}
	if err := old.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err, ok := within(waiting, 10*time.Second); !ok || err != nil {
		t.Fatalf("the write after the old node's commit: done %v, err %v", ok, err)
	}
}

// fnv64a is FNV-1a, 64 bits, as a signed advisory lock key.
func fnv64a(s string) int64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return int64(h)
}

func TestZeroDateIsStoredAsYearOne(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	p := &store.Post{Type: "post"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := db.Pool().QueryRow(ctx, `SELECT date_gmt::text FROM posts WHERE id = $1`, p.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != "0001-01-01 00:00:00" {
		t.Fatalf("zero date stored as %q", stored)
	}
}

func TestConflictNamesConstraint(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	if err := db.InsertUser(ctx, &store.User{Login: "a", Email: "a@x", Nicename: "a"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		u    store.User
		want string
	}{
		{store.User{Login: "A", Nicename: "b"}, "users.login"},
		{store.User{Login: "b", Email: "A@X", Nicename: "b"}, "users.email"},
		{store.User{Login: "b", Nicename: "A"}, "users.nicename"},
	}
	for _, tt := range tests {
		err := db.InsertUser(ctx, &tt.u)
		if !errors.Is(err, store.ErrConflict) || err.Error() != "store: conflict: "+tt.want {
			t.Errorf("insert %+v: %v, want conflict on %s", tt.u, err, tt.want)
		}
	}
}

func TestUnreachableServerIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := postgres.Open(ctx, "postgres://folio@127.0.0.1:1/folio?sslmode=disable", postgres.Options{ConnectTimeout: 2 * time.Second})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open = %v, want ErrUnavailable", err)
	}
}

func TestClosedPoolErrorsAreNotUnavailable(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	// A statement the server rejects is the request's fault, not an
	// outage.
	_, err := db.ListPosts(ctx, store.PostQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(ctx, `SELECT nope`); err == nil || errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("bad statement: %v", err)
	}
}

func TestKilledConnectionsAreRetriedForReads(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	// The pool under test is named, so that only its connections die.
	name := fmt.Sprintf("folio_kill_%d", time.Now().UnixNano())
	db := storetest.OpenPostgres(t, url+"&application_name="+name)
	ctx := context.Background()
	if err := db.InsertPost(ctx, &store.Post{Type: "post", Title: "x"}); err != nil {
		t.Fatal(err)
	}
	// Kill every connection of that pool, as a server restart does.
	admin := storetest.OpenPostgres(t, url)
	var killed int
	if err := admin.Pool().QueryRow(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1`, name).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("killed %d connections (%v)", killed, err)
	}
	time.Sleep(100 * time.Millisecond)
	// Reads recover on their own (one retry on a dead pooled connection).
	for i := 0; i < 3; i++ {
		if _, err := db.GetPost(ctx, 1); err != nil {
			t.Fatalf("read after killed connections: %v", err)
		}
	}
	if err := db.InsertPost(ctx, &store.Post{Type: "post"}); err != nil && !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("write after killed connections: %v (want success or ErrUnavailable)", err)
	}
}

// TestCopyRoundTrip copies a store to PostgreSQL and back into SQLite and
// compares every table.
func TestCopyRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := storetest.OpenSQLite(t, t.TempDir()+"/src.db")
	u := &store.User{Login: "admin", Email: "a@x", Nicename: "admin", Registered: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC),
		Roles: []string{"administrator"}, Caps: map[string]bool{"x": true}}
	if err := src.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := src.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprint(i), Sticky: i == 1,
			Date: time.Date(2021, 1, i+1, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.DeletePost(ctx, 3); err != nil { // the counter stays at 3
		t.Fatal(err)
	}
	if err := src.InsertComment(ctx, &store.Comment{PostID: 1, Content: "hi", Approved: "1", Type: "comment"}); err != nil {
		t.Fatal(err)
	}
	if err := src.SetPostTerms(ctx, 1, "category", []int64{1}); err != nil {
		t.Fatal(err)
	}
	// An attached upload path and a reservation: reserved_at travels too.
	if err := src.ReserveMediaPaths(ctx, []string{"2024/05/a.png", "2024/05/r.png"}); err != nil {
		t.Fatal(err)
	}
	if err := src.AttachMediaPaths(ctx, 1, []string{"2024/05/a.png"}); err != nil {
		t.Fatal(err)
	}

	pg := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	back := storetest.OpenSQLite(t, t.TempDir()+"/back.db")
	copyStore(t, src, pg)
	copyStore(t, pg, back)
	for _, pair := range []struct {
		name string
		a, b store.Store
	}{{"sqlite→postgres", src, pg}, {"postgres→sqlite", pg, back}} {
		ga, err := pair.a.ListPosts(ctx, store.PostQuery{})
		if err != nil {
			t.Fatal(err)
		}
		gb, err := pair.b.ListPosts(ctx, store.PostQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ga, gb) {
			t.Errorf("%s: posts differ:\n%+v\n%+v", pair.name, ga, gb)
		}
		ua, _ := pair.a.GetUser(ctx, 1)
		ub, err := pair.b.GetUser(ctx, 1)
		if err != nil || !reflect.DeepEqual(ua, ub) {
			t.Errorf("%s: users differ: %+v / %+v (%v)", pair.name, ua, ub, err)
		}
		ta, _ := pair.a.PostTerms(ctx, []int64{1}, nil)
		tb, _ := pair.b.PostTerms(ctx, []int64{1}, nil)
		if !reflect.DeepEqual(ta, tb) || len(tb[1]) != 1 {
			t.Errorf("%s: terms differ: %v / %v", pair.name, ta, tb)
		}
		if id, err := pair.b.MediaPathOwner(ctx, "2024/05/a.png"); err != nil || id != 1 {
			t.Errorf("%s: owner of attached path = %d, %v", pair.name, id, err)
		}
		if got, err := pair.b.StaleMediaReservations(ctx, time.Now().Add(-time.Hour), 10); err != nil || len(got) != 0 {
			t.Errorf("%s: a fresh reservation is stale an hour back: %v, %v", pair.name, got, err)
		}
		if got, err := pair.b.StaleMediaReservations(ctx, time.Now().Add(2*time.Second), 10); err != nil || fmt.Sprint(got) != "[2024/05/r.png]" {
			t.Errorf("%s: stale reservations = %v, %v", pair.name, got, err)
		}
		p := &store.Post{Type: "post"}
		if err := pair.b.InsertPost(ctx, p); err != nil || p.ID != 4 {
			t.Errorf("%s: next post id %d (%v), want 4: the id counter must be copied", pair.name, p.ID, err)
		}
		if err := pair.b.DeletePost(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}

	// A count held partly in slots travels whole, and a copy into a
	// PostgreSQL site that has slots replaces them with the copied count.
	if err := pg.SetPostTerms(ctx, 2, "category", []int64{1}); err != nil {
		t.Fatal(err)
	}
	// A link left to a term that is gone (a previous release's node
	// deleting a term relied on the foreign key) stays behind.
	if _, err := pg.Pool().Exec(ctx, `INSERT INTO term_relationships (post_id, term_id) VALUES (2, 999)`); err != nil {
		t.Fatal(err)
	}
	again := storetest.OpenSQLite(t, t.TempDir()+"/again.db")
	copyStore(t, pg, again)
	copyStore(t, again, pg)
	for name, s := range map[string]store.Store{"postgres→sqlite": again, "sqlite→postgres over slots": pg} {
		if got := termCount(t, s, 1); got != 2 {
			t.Errorf("%s: the category's count is %d, want 2", name, got)
		}
	}
}

func copyStore(t *testing.T, from, to store.Store) {
	t.Helper()
	ctx := context.Background()
	src, dst := from.(store.Copier), to.(store.Copier)
	tables, err := src.CopyTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last, err := src.LastIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = dst.Import(ctx, func(im store.Importer) error {
		for _, table := range tables {
			var cols []string
			var rows [][]any
			if err := src.ExportRows(ctx, table, func(c []string, row []any) error {
				cols = c
				rows = append(rows, append([]any(nil), row...))
				return nil
			}); err != nil {
				return err
			}
			if err := im.InsertRows(ctx, table, cols, rows); err != nil {
				return err
			}
		}
		for table, id := range last {
			if err := im.SetLastID(ctx, table, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteTransactionsBeginWithTheirFirstStatementAndCommitInOne: a write
// transaction sends BEGIN with its first statement and its last
// statements with COMMIT (one round trip each); whatever ends it, its
// connection serves the next one.
func TestWriteTransactionsBeginWithTheirFirstStatementAndCommitInOne(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	storetest.OpenPostgres(t, url) // a migrated schema, whose search_path the URL names
	ctx := context.Background()
	// One connection, so that every transaction below reuses the
	// connection the one before it left.
	db, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat := &store.Term{Taxonomy: "category", Name: "Full", Slug: "full"}
	if err := db.InsertTerm(ctx, cat); err != nil {
		t.Fatal(err)
	}

	// Nothing written: nothing to commit.
	if err := db.Tx(ctx, func(store.Store) error { return nil }); err != nil {
		t.Fatalf("empty transaction: %v", err)
	}

	// The first statement fails under a savepoint (a term that exists):
	// the transaction goes on and commits.
	err = db.Tx(ctx, func(s store.Store) error {
		dup := &store.Term{Taxonomy: "category", Name: "Full", Slug: "full"}
		if err := s.InsertTerm(ctx, dup); !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("duplicate term: %v, want a conflict", err)
		}
		return s.InsertPost(ctx, &store.Post{Type: "post", Title: "after the conflict"})
	})
	if err != nil {
		t.Fatal(err)
	}

	// A published post in the category: the count and both version bumps
	// go with the commit.
	before := mustVersion(t, db)
	var id int64
	err = db.Tx(ctx, func(s store.Store) error {
		p := &store.Post{Type: "post", Status: "publish", Title: "counted"}
		if err := s.InsertPost(ctx, p); err != nil {
			return err
		}
		id = p.ID
		return s.SetPostTerms(ctx, p.ID, "category", []int64{cat.ID})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := termCount(t, db, cat.ID); got != 1 {
		t.Fatalf("count after the commit: %d, want 1", got)
	}
	if after := mustVersion(t, db); after != before+2 {
		t.Fatalf("version %d -> %d, want two bumps (in the transaction and after its commit)", before, after)
	}

	// A statement sent with COMMIT fails (the count overflows: every slot
	// of the term is full): nothing of the transaction stays, and the
	// connection serves the next one.
	if _, err := db.Pool().Exec(ctx, `INSERT INTO term_counts (term_id, slot, n)
		SELECT $1, g, 9223372036854775807 FROM generate_series(0, 63) AS g
		ON CONFLICT (term_id, slot) DO UPDATE SET n = excluded.n`, cat.ID); err != nil {
		t.Fatal(err)
	}
	before = mustVersion(t, db)
	err = db.Tx(ctx, func(s store.Store) error {
		p := &store.Post{Type: "post", Status: "publish", Title: "overflow"}
		if err := s.InsertPost(ctx, p); err != nil {
			return err
		}
		id = p.ID
		return s.SetPostTerms(ctx, p.ID, "category", []int64{cat.ID})
	})
	if err == nil {
		t.Fatal("a commit whose count overflows succeeded")
	}
	if _, err := db.GetPost(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the post of the failed commit: %v, want not found", err)
	}
	var changed int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM term_counts WHERE term_id = $1 AND n <> 9223372036854775807`,
		cat.ID).Scan(&changed); err != nil || changed != 0 {
		t.Fatalf("slots changed by the failed commit: %d (%v)", changed, err)
	}
	if after := mustVersion(t, db); after > before+1 {
		t.Fatalf("version %d -> %d after a failed commit", before, after)
	}
	if err := db.Tx(ctx, func(s store.Store) error {
		return s.InsertPost(ctx, &store.Post{Type: "post", Title: "next"})
	}); err != nil {
		t.Fatalf("the transaction after a failed commit: %v", err)
	}
}

func mustVersion(t *testing.T, s store.Store) int64 {
	t.Helper()
	v, err := s.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func termCount(t *testing.T, s store.Store, id int64) int64 {
	t.Helper()
	tm, err := s.GetTerm(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tm.Count
}

// openOneConn opens a migrated store of a new schema on one connection,
// so that the statements it prepared can be read in
// pg_prepared_statements.
func openOneConn(t *testing.T) *postgres.DB {
	t.Helper()
	url := storetest.PostgresURL(t)
	storetest.OpenPostgres(t, url)
	db, err := postgres.Open(context.Background(), url, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestSlugSuffixesRunTheirGenericPlan: in a write transaction the slug
// suffix query runs on its prepared statement's generic plan, not on a
// plan made again for each run's values (at 100,000 posts the server
// never chose the generic one itself), and the connection is left with
// the server's own choice.
func TestSlugSuffixesRunTheirGenericPlan(t *testing.T) {
	t.Parallel()
	db := openOneConn(t)
	ctx := context.Background()
	if err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Slug: "plan"}); err != nil {
		t.Fatal(err)
	}
	const runs = 8
	for i := range runs {
		err := db.Tx(ctx, func(s store.Store) error {
			slug, err := s.FreeSlug(ctx, "plan", []string{"post"}, -1, 0, false)
			if err != nil {
				return err
			}
			if want := fmt.Sprintf("plan-%d", i+2); slug != want {
				return fmt.Errorf("free slug %q, want %q", slug, want)
			}
			return s.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Slug: slug})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var generic, custom int64
	err := db.Pool().QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)
		FROM pg_prepared_statements WHERE statement LIKE 'SELECT -1 AS r, slug FROM posts%'`).Scan(&generic, &custom)
	if err != nil {
		t.Fatal(err)
	}
	if generic != runs || custom != 0 {
		t.Errorf("the slug suffix query ran %d generic and %d custom plans, want %d generic", generic, custom, runs)
	}
	var mode string
	if err := db.Pool().QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil || mode != "auto" {
		t.Errorf("plan_cache_mode after the transactions: %q (%v), want auto", mode, err)
	}
}

// TestTermCountsGoToSlots: publishing posts in a term and taking them out
// again never writes the term's row (the counts go to the writers'
// slots, and no foreign key locks it); the count read adds the slots up,
// and a recount mends a wrong row without touching the slots. (That
// every read of a count is exact under concurrent writes is
// storetest's TestTermCountsFromConcurrentWrites, on both stores.)
func TestTermCountsGoToSlots(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	cat := &store.Term{Taxonomy: "category", Name: "Hot", Slug: "hot"}
	if err := db.InsertTerm(ctx, cat); err != nil {
		t.Fatal(err)
	}
	var fks int
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM pg_constraint
		WHERE contype = 'f' AND conrelid = 'term_relationships'::regclass AND confrelid = 'terms'::regclass`).Scan(&fks); err != nil || fks != 0 {
		t.Fatalf("foreign keys from term_relationships to terms: %d (%v), want none", fks, err)
	}
	xmin := func() string {
		t.Helper()
		var x string
		if err := db.Pool().QueryRow(ctx, `SELECT xmin::text FROM terms WHERE id = $1`, cat.ID).Scan(&x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	before := xmin()
	var posts []*store.Post
	for i := range 6 {
		p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprint("hot ", i)}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := db.SetPostTerms(ctx, p.ID, "category", []int64{cat.ID}); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p)
	}
	posts[0].Status = "draft"
	if err := db.UpdatePost(ctx, posts[0]); err != nil {
		t.Fatal(err)
	}
	if err := db.DeletePost(ctx, posts[1].ID); err != nil {
		t.Fatal(err)
	}
	if after := xmin(); after != before {
		t.Errorf("the term's row was written (xmin %s -> %s)", before, after)
	}
	var slots, sum int64
	if err := db.Pool().QueryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(n), 0) FROM term_counts WHERE term_id = $1`,
		cat.ID).Scan(&slots, &sum); err != nil || slots == 0 || sum != 4 {
		t.Fatalf("slots of the term: %d rows summing to %d (%v), want the 4 published posts", slots, sum, err)
	}
	if got := termCount(t, db, cat.ID); got != 4 {
		t.Errorf("count %d, want 4", got)
	}
	if _, err := db.Pool().Exec(ctx, `UPDATE terms SET count = count + 1000 WHERE id = $1`, cat.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.RecountTerms(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := termCount(t, db, cat.ID); got != 4 {
		t.Errorf("count after a recount %d, want 4", got)
	}
	var again int64
	if err := db.Pool().QueryRow(ctx, `SELECT COALESCE(SUM(n), 0) FROM term_counts WHERE term_id = $1`, cat.ID).Scan(&again); err != nil || again != sum {
		t.Errorf("slots after the recount sum to %d (%v), want %d", again, err, sum)
	}
}

// TestDeletingATermWaitsForItsLinks: with no foreign key to stop it, a
// post linked to a term while the term is deleted would keep a link to
// nothing. The deletion waits for the transactions linking posts to the
// term, then removes their links and its slots.
func TestDeletingATermWaitsForItsLinks(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	cat := &store.Term{Taxonomy: "category", Name: "Doomed", Slug: "doomed"}
	if err := db.InsertTerm(ctx, cat); err != nil {
		t.Fatal(err)
	}
	linked, release := make(chan struct{}), make(chan struct{})
	open := make(chan error, 1)
	go func() {
		open <- db.Tx(ctx, func(s store.Store) error {
			p := &store.Post{Type: "post", Status: "publish", Title: "linked"}
			if err := s.InsertPost(ctx, p); err != nil {
				return err
			}
			if err := s.SetPostTerms(ctx, p.ID, "category", []int64{cat.ID}); err != nil {
				return err
			}
			close(linked)
			<-release
			return nil
		})
	}()
	<-linked
	deleted := make(chan error, 1)
	go func() { deleted <- db.DeleteTerm(ctx, cat.ID, 0) }()
	select {
	case err := <-deleted:
		close(release)
		<-open
		t.Fatalf("the term was deleted (%v) while a transaction was linking a post to it", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-open; err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	var links, slots int
	if err := db.Pool().QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM term_relationships WHERE term_id = $1),
		(SELECT COUNT(*) FROM term_counts WHERE term_id = $1)`, cat.ID).Scan(&links, &slots); err != nil {
		t.Fatal(err)
	}
	if links != 0 || slots != 0 {
		t.Errorf("after the deletion: %d links and %d slots of the term, want none", links, slots)
	}
}

// TestGivenSearchRowsSkipTheTrigger: the store's insert of a post writes
// its search row itself and tells the insert trigger so for that
// statement alone; the next insert of the transaction that writes no row
// is indexed by the trigger, and a post the store creates is found.
func TestGivenSearchRowsSkipTheTrigger(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	p := &store.Post{Type: "post", Status: "publish", Title: "Given words", Content: "marmalade"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	found, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "marmalade"})
	if err != nil || len(found) != 1 || found[0].ID != p.ID {
		t.Fatalf("search for the created post: %v (%v)", found, err)
	}

	tx, err := db.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var given int64
	if err := tx.QueryRow(ctx, `SELECT nextval('posts_id_seq')`).Scan(&given); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `WITH search_row AS (INSERT INTO post_search (post_id, words)
		SELECT $1, to_tsvector('simple', 'handwritten')
		WHERE set_config('folio.post_search_given', 'on', true) = 'on')
		INSERT INTO posts (id, type, status, title) VALUES ($1, 'post', 'publish', 'first')`, given); err != nil {
		t.Fatal(err)
	}
	var setting string
	if err := tx.QueryRow(ctx, `SELECT coalesce(current_setting('folio.post_search_given', true), '')`).Scan(&setting); err != nil || setting != "" {
		t.Fatalf("the setting after the insert that gave its row: %q (%v), want it taken back", setting, err)
	}
	var plain int64
	if err := tx.QueryRow(ctx, `INSERT INTO posts (type, status, title) VALUES ('post', 'publish', 'zebra crossing') RETURNING id`).Scan(&plain); err != nil {
		t.Fatal(err)
	}
	var givenWords, plainWords string
	if err := tx.QueryRow(ctx, `SELECT (SELECT words::text FROM post_search WHERE post_id = $1),
		coalesce((SELECT words::text FROM post_search WHERE post_id = $2), '')`, given, plain).Scan(&givenWords, &plainWords); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(givenWords, "handwritten") {
		t.Errorf("the given row: %q, want the words written with the post", givenWords)
	}
	if !strings.Contains(plainWords, "zebra") {
		t.Errorf("the next insert's row: %q, want the trigger's (the title's words)", plainWords)
	}
}

// TestVacuumOffNamesTheServerAndTables: VacuumOff says "server" exactly
// when the server's autovacuum or track_counts is off, and names each of
// the schema's tables whose autovacuum_enabled is turned off, however
// the value is spelled, until it is reset.
func TestVacuumOffNamesTheServerAndTables(t *testing.T) {
	t.Parallel()
	db := storetest.OpenPostgres(t, storetest.PostgresURL(t))
	ctx := context.Background()
	var serverOff bool
	if err := db.Pool().QueryRow(ctx, `SELECT current_setting('autovacuum') = 'off' OR current_setting('track_counts') = 'off'`).Scan(&serverOff); err != nil {
		t.Fatal(err)
	}
	want := func(tables ...string) []string {
		if serverOff {
			return append([]string{"server"}, tables...)
		}
		return tables
	}
	check := func(step string, tables ...string) {
		t.Helper()
		got, err := db.VacuumOff(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(tables...); !slices.Equal(got, w) {
			t.Fatalf("%s: off for %q, want %q", step, got, w)
		}
	}
	check("as migrated")
	for _, q := range []string{
		`ALTER TABLE rate_limits SET (autovacuum_enabled = false)`,
		`ALTER TABLE post_counts SET (autovacuum_enabled = off)`,
	} {
		if _, err := db.Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	check("two tables off", "post_counts", "rate_limits")
	if _, err := db.Pool().Exec(ctx, `ALTER TABLE post_counts RESET (autovacuum_enabled)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(ctx, `ALTER TABLE rate_limits SET (autovacuum_enabled = true)`); err != nil {
		t.Fatal(err)
	}
	check("reset and on again")
}

// TestVacuumAnalyzeVacuumsAndAnalyzesThePostsTables: what a benchmark
// runs after its bulk load leaves the posts tables vacuumed and analyzed,
// as autovacuum would. (Whether the vacuum could mark their pages
// all-visible depends on the snapshots of every other session of the
// database, the other tests' too, so it is not asserted.)
func TestVacuumAnalyzeVacuumsAndAnalyzesThePostsTables(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	db := storetest.OpenPostgres(t, url)
	ctx := context.Background()
	for i := range 20 {
		if err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Loaded %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := postgres.VacuumAnalyze(ctx, url); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Pool().Query(ctx, `SELECT relname, last_vacuum IS NOT NULL, last_analyze IS NOT NULL
		FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ('posts', 'post_search', 'post_counts')`)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]bool{}
	for rows.Next() {
		var name string
		var vacuumed, analyzed bool
		if err := rows.Scan(&name, &vacuumed, &analyzed); err != nil {
			t.Fatal(err)
		}
		done[name] = vacuumed && analyzed
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"posts", "post_search", "post_counts"} {
		if !done[table] {
			t.Errorf("%s: not both vacuumed and analyzed (%v)", table, done)
		}
	}
}

// TestConnectionsRunWithoutJIT: every connection of the pool has
// PostgreSQL's JIT compilation off, unless the database URL turns it on.
func TestConnectionsRunWithoutJIT(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.PostgresURL(t)
	storetest.OpenPostgres(t, url)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, tt := range []struct {
		url, want string
	}{
		{url, "off"},
		{url + sep + "jit=on", "on"},
	} {
		db, err := postgres.Open(ctx, tt.url, postgres.Options{MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		// Both connections at once, so that each is a new one.
		var held []*pgxpool.Conn
		for range 2 {
			c, err := db.Pool().Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		for i, c := range held {
			var jit string
			if err := c.QueryRow(ctx, `SHOW jit`).Scan(&jit); err != nil {
				t.Fatal(err)
			}
			if jit != tt.want {
				t.Errorf("%s: connection %d has jit = %s, want %s", tt.url, i, jit, tt.want)
			}
			c.Release()
		}
		db.Close()
	}
}

// keyedPlanSite is a PostgreSQL site of one post and a connection of
// its own, for the triggers that keep the plans of their first runs on a
// connection (migrations 0032 and 0033): made while the site has one
// post, they must still look rows up by key once it has thousands,
// instead of reading a whole table at every write. (A connection also
// plans anew when its caches are reset, as when other sessions change
// the catalog faster than it reads their changes: on a busy server a
// plan made small may be gone by the time it is checked, and the tests
// can miss one; they never fail on a plan that looks rows up by key.)
type keyedPlanSite struct {
	db    *postgres.DB
	conn  *pgxpool.Conn
	first *store.Post
}

func newKeyedPlanSite(t *testing.T) *keyedPlanSite {
	t.Helper()
	s := &keyedPlanSite{db: storetest.OpenPostgres(t, storetest.PostgresURL(t)), first: keyedPlanPost(0)}
	if err := s.db.InsertPost(context.Background(), s.first); err != nil {
		t.Fatal(err)
	}
	conn, err := s.db.Pool().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Release)
	s.conn = conn
	// Autovacuum's analyze of the grown tables would make the
	// connection plan anew, and hide what it keeps.
	s.exec(t, nil, `ALTER TABLE posts SET (autovacuum_enabled = off)`, `ALTER TABLE term_relationships SET (autovacuum_enabled = off)`,
		`ALTER TABLE comments SET (autovacuum_enabled = off)`)
	return s
}

func keyedPlanPost(k int) *store.Post {
	d := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Minute)
	return &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", k), Slug: fmt.Sprintf("post-%d", k),
		Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
}

// exec runs each statement on the site's connection, with the first
// post's id as $1 and args after it, as many as the statement uses.
func (s *keyedPlanSite) exec(t *testing.T, args []any, statements ...string) {
	t.Helper()
	all := append([]any{s.first.ID}, args...)
	for _, st := range statements {
		n := 0
		for n < len(all) && strings.Contains(st, fmt.Sprintf("$%d", n+1)) {
			n++
		}
		if _, err := s.conn.Exec(context.Background(), st, all[:n]...); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// grow adds 3,000 posts and returns the last.
func (s *keyedPlanSite) grow(t *testing.T) *store.Post {
	t.Helper()
	var many []*store.Post
	for k := 1; k <= 3000; k++ {
		many = append(many, keyedPlanPost(k))
	}
	if err := s.db.InsertPosts(context.Background(), many); err != nil {
		t.Fatal(err)
	}
	return many[len(many)-1]
}

// noSeqScans runs each statement (with args) in one transaction on the
// site's connection, which it rolls back, and fails for each that read
// the whole of its table.
func (s *keyedPlanSite) noSeqScans(t *testing.T, args []any, checks ...[2]string) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, c := range checks {
		if n := seqScans(t, tx, c[0], c[1], args...); n != 0 {
			t.Errorf("%s read the whole %s table %d times", c[1], c[0], n)
		}
	}
}

// TestTermPostCountTriggersKeepKeyedPlans: the triggers keeping
// term_post_counts (migration 0032) look each link's post, and each
// post's links, up by key at thousands of posts with plans made at one.
func TestTermPostCountTriggersKeepKeyedPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newKeyedPlanSite(t)
	term := &store.Term{Taxonomy: "category", Name: "News", Slug: "news"}
	if err := s.db.InsertTerm(ctx, term); err != nil {
		t.Fatal(err)
	}
	// The connection's first runs of the triggers, on a site of one post
	// whose tables autovacuum has analyzed (PostgreSQL takes a table
	// never analyzed for ten pages at least, and would look the post up
	// by key anyway).
	s.exec(t, []any{term.ID},
		`INSERT INTO term_relationships (post_id, term_id) VALUES ($1, $2)`,
		`ANALYZE posts, term_relationships`,
		`DELETE FROM term_relationships WHERE post_id = $1 AND term_id = $2`,
		`INSERT INTO term_relationships (post_id, term_id) VALUES ($1, $2)`,
		`UPDATE posts SET status = 'draft' WHERE id = $1`)
	last := s.grow(t)
	s.exec(t, []any{term.ID}, `INSERT INTO term_relationships (post_id, term_id) SELECT id, $2 FROM posts WHERE id <> $1`)
	s.noSeqScans(t, []any{last.ID},
		[2]string{"posts", `DELETE FROM term_relationships WHERE post_id = $1`},
		[2]string{"posts", `INSERT INTO term_relationships (post_id, term_id) SELECT $1, id FROM terms WHERE slug = 'news'`},
		[2]string{"term_relationships", `UPDATE posts SET status = 'draft' WHERE id = $1`},
		[2]string{"term_relationships", `DELETE FROM posts WHERE id = $1`})
	var total int64
	if err := s.conn.QueryRow(ctx, `SELECT SUM(n) FROM term_post_counts WHERE term_id = $1 AND status = 'publish'`, term.ID).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != 3000 {
		t.Errorf("term_post_counts holds %d published posts of the term, want 3000", total)
	}
}

// seqScans runs statement in tx and returns how many times it read the
// whole of table: the counter of the connection's scans not yet
// reported, before and after.
func seqScans(t *testing.T, tx pgx.Tx, table, statement string, args ...any) int64 {
	t.Helper()
	ctx := context.Background()
	read := func() (n int64) {
		if err := tx.QueryRow(ctx, `SELECT COALESCE(seq_scan, 0) FROM pg_stat_xact_user_tables
			WHERE relid = $1::regclass`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := read()
	if _, err := tx.Exec(ctx, statement, args...); err != nil {
		t.Fatal(err)
	}
	return read() - before
}

// TestCommentCountTriggersKeepKeyedPlans is
// TestTermPostCountTriggersKeepKeyedPlans for comment_counts (migration
// 0033): each comment's post, and each post's comments, looked up by key.
func TestCommentCountTriggersKeepKeyedPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newKeyedPlanSite(t)
	s.exec(t, nil,
		`INSERT INTO comments (post_id, content) VALUES ($1, 'first')`,
		`ANALYZE posts, comments`,
		`UPDATE comments SET approved = '0' WHERE post_id = $1`,
		`UPDATE posts SET status = 'draft' WHERE id = $1`,
		`DELETE FROM comments WHERE post_id = $1`,
		`INSERT INTO comments (post_id, content) VALUES ($1, 'again')`)
	last := s.grow(t)
	s.exec(t, nil, `INSERT INTO comments (post_id, content) SELECT id, 'hello' FROM posts WHERE id <> $1`)
	s.noSeqScans(t, []any{last.ID},
		[2]string{"posts", `INSERT INTO comments (post_id, content) VALUES ($1, 'one more')`},
		[2]string{"posts", `UPDATE comments SET approved = '0' WHERE post_id = $1`},
		[2]string{"posts", `DELETE FROM comments WHERE post_id = $1 AND content = 'one more'`},
		[2]string{"comments", `UPDATE posts SET status = 'private' WHERE id = $1`},
		[2]string{"comments", `DELETE FROM posts WHERE id = $1`})
	var approved int64
	if err := s.conn.QueryRow(ctx, `SELECT SUM(n) FROM comment_counts WHERE post_type = 'post' AND post_status = 'publish' AND approved = '1'`).Scan(&approved); err != nil {
		t.Fatal(err)
	}
	if approved != 3000 {
		t.Errorf("comment_counts holds %d approved comments on published posts, want 3000", approved)
	}
}
