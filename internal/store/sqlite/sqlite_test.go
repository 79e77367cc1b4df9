package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
)

// newDB opens and migrates a fresh database in a temp dir.
func newDB(t *testing.T) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "folio.db"))
}

func openAt(t *testing.T, path string) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOpenCreatesDirectoryAndSetsPragmas(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a", "b", "folio.db")
	db := openAt(t, path)
	ctx := context.Background()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"synchronous", "2"},
		{"busy_timeout", "10000"},
		{"cache_size", "-4000"},
	}
	for _, tt := range tests {
		for _, pool := range []struct {
			name string
			get  func() (string, error)
		}{
			{"writer", func() (s string, err error) {
				err = db.write.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&s)
				return
			}},
			{"reader", func() (s string, err error) {
				err = db.read.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&s)
				return
			}},
		} {
			got, err := pool.get()
			if err != nil {
				t.Fatalf("%s %s: %v", pool.name, tt.pragma, err)
			}
			if got != tt.want {
				t.Errorf("%s PRAGMA %s = %q, want %q", pool.name, tt.pragma, got, tt.want)
			}
		}
	}
	var qo int
	if err := db.read.QueryRowContext(ctx, "PRAGMA query_only").Scan(&qo); err != nil || qo != 1 {
		t.Errorf("reader query_only = %d, %v; want 1", qo, err)
	}
	if want := max(4, 2*runtime.NumCPU()); db.read.Stats().MaxOpenConnections != want || db.write.Stats().MaxOpenConnections != 1 {
		t.Errorf("pools = %d readers, %d writers; want %d, 1",
			db.read.Stats().MaxOpenConnections, db.write.Stats().MaxOpenConnections, want)
	}
}

func TestOpenRejectsBadPaths(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", ":memory:", "file:x.db", "x.db?mode=ro"} {
		if db, err := Open(context.Background(), p, Options{}); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("Migrate #%d: %v", i+2, err)
		}
	}
	cur, latest, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cur != latest || latest < 1 {
		t.Fatalf("schema at %d, latest %d", cur, latest)
	}
	var n int
	if err := db.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if int64(n) != latest {
		t.Fatalf("schema_migrations has %d rows, want %d", n, latest)
	}
	for _, table := range []string{"posts", "users", "user_roles", "user_caps", "app_passwords",
		"options", "terms", "term_relationships", "comments", "post_meta", "store_version"} {
		if err := db.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
			t.Errorf("table %s: %v", table, err)
		}
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	if _, err := db.write.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (9999, '2030-01-01 00:00:00')`); err != nil {
		t.Fatal(err)
	}
	err := db.Migrate(ctx)
	if !errors.Is(err, migrate.ErrSchemaNewer) {
		t.Fatalf("Migrate = %v, want ErrSchemaNewer", err)
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

func TestVersionIncreasesOnWritesOnly(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	p := &store.Post{Type: "post", Status: "publish", Title: "x"}
	steps := []struct {
		name  string
		do    func() error
		bumps bool
	}{
		{"insert post", func() error { return db.InsertPost(ctx, p) }, true},
		{"get post", func() error { _, err := db.GetPost(ctx, p.ID); return err }, false},
		{"list posts", func() error { _, err := db.ListPosts(ctx, store.PostQuery{}); return err }, false},
		{"update post", func() error { p.Title = "y"; return db.UpdatePost(ctx, p) }, true},
		{"update missing post", func() error {
			err := db.UpdatePost(ctx, &store.Post{ID: 999})
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return fmt.Errorf("got %v, want ErrNotFound", err)
		}, false},
		{"set option", func() error { return db.SetOption(ctx, "a", "1") }, true},
		{"add existing option", func() error { _, err := db.AddOption(ctx, "a", "2"); return err }, false},
		{"add new option", func() error { _, err := db.AddOption(ctx, "b", "2"); return err }, true},
		{"get option", func() error { _, err := db.GetOption(ctx, "a"); return err }, false},
		{"empty tx", func() error { return db.Tx(ctx, func(store.Store) error { return nil }) }, false},
		{"read-only tx", func() error {
			return db.Tx(ctx, func(s store.Store) error { _, err := s.GetPost(ctx, p.ID); return err })
		}, false},
		{"delete post", func() error { return db.DeletePost(ctx, p.ID) }, true},
	}
	for _, st := range steps {
		before := mustVersion(t, db)
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		after := mustVersion(t, db)
		if st.bumps && after != before+1 {
			t.Errorf("%s: version %d → %d, want +1", st.name, before, after)
		}
		if !st.bumps && after != before {
			t.Errorf("%s: version %d → %d, want unchanged", st.name, before, after)
		}
	}
}

func TestTxCommitsOnceAndBumpsVersionOnce(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	before := mustVersion(t, db)
	var ids []int64
	err := db.Tx(ctx, func(s store.Store) error {
		for i := 0; i < 3; i++ {
			p := &store.Post{Type: "post", Status: "draft", Title: fmt.Sprint(i)}
			if err := s.InsertPost(ctx, p); err != nil {
				return err
			}
			ids = append(ids, p.ID)
		}
		// Reads inside the transaction see its writes.
		got, err := s.GetPosts(ctx, ids)
		if err != nil {
			return err
		}
		if len(got) != 3 {
			return fmt.Errorf("tx sees %d of its 3 posts", len(got))
		}
		// A nested Tx reuses the transaction.
		return s.Tx(ctx, func(inner store.Store) error {
			return inner.SetOption(ctx, "k", "v")
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if after := mustVersion(t, db); after != before+1 {
		t.Fatalf("version %d → %d, want one bump per transaction", before, after)
	}
	n, err := db.CountPosts(ctx, store.PostQuery{})
	if err != nil || n != 3 {
		t.Fatalf("CountPosts = %d, %v; want 3", n, err)
	}
	if v, err := db.GetOption(ctx, "k"); err != nil || v != "v" {
		t.Fatalf("option k = %q, %v", v, err)
	}
}

func TestTxRollsBackOnErrorAndPanic(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name string
		fn   func(store.Store) error
	}{
		{"error", func(s store.Store) error {
			if err := s.InsertPost(ctx, &store.Post{Type: "post", Title: "lost"}); err != nil {
				return err
			}
			return boom
		}},
		{"nested error", func(s store.Store) error {
			if err := s.SetOption(ctx, "lost", "1"); err != nil {
				return err
			}
			return s.Tx(ctx, func(inner store.Store) error {
				if err := inner.InsertPost(ctx, &store.Post{Type: "post", Title: "lost"}); err != nil {
					return err
				}
				return fmt.Errorf("inner: %w", boom)
			})
		}},
		{"panic", func(s store.Store) error {
			if err := s.InsertPost(ctx, &store.Post{Type: "post", Title: "lost"}); err != nil {
				return err
			}
			panic(boom)
		}},
	}
	for _, tt := range tests {
		before := mustVersion(t, db)
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = r.(error)
				}
			}()
			return db.Tx(ctx, tt.fn)
		}()
		if !errors.Is(err, boom) {
			t.Fatalf("%s: Tx = %v, want boom", tt.name, err)
		}
		if n, err := db.CountPosts(ctx, store.PostQuery{}); err != nil || n != 0 {
			t.Fatalf("%s: %d posts after rollback (%v)", tt.name, n, err)
		}
		if _, err := db.GetOption(ctx, "lost"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: option survived rollback: %v", tt.name, err)
		}
		if after := mustVersion(t, db); after != before {
			t.Fatalf("%s: version %d → %d after rollback", tt.name, before, after)
		}
	}
	// The writer connection is usable again.
	if err := db.InsertPost(ctx, &store.Post{Type: "post"}); err != nil {
		t.Fatal(err)
	}
}

func TestStatementsCountsEveryStatement(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := db.InsertPost(ctx, &store.Post{Type: "post", Status: "publish"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		do   func() error
		want int64
	}{
		{"list posts", func() error {
			_, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Search: "a b", Limit: 2})
			return err
		}, 1},
		{"count posts", func() error { _, err := db.CountPosts(ctx, store.PostQuery{}); return err }, 1},
		{"get posts", func() error { _, err := db.GetPosts(ctx, []int64{1, 2, 3, 99}); return err }, 1},
		{"get posts empty", func() error { _, err := db.GetPosts(ctx, nil); return err }, 0},
		{"authors with published posts", func() error {
			_, err := db.AuthorsWithPublished(ctx, []int64{1, 2}, []string{"post"})
			return err
		}, 1},
		{"list users", func() error { _, err := db.ListUsers(ctx, store.UserQuery{}); return err }, 1},
		{"version", func() error { _, err := db.Version(ctx); return err }, 1},
		{"insert post (insert + version bump)", func() error { return db.InsertPost(ctx, &store.Post{}) }, 2},
		{"insert user (user + roles + caps + bump)", func() error {
			return db.InsertUser(ctx, &store.User{Login: "u", Nicename: "u", Roles: []string{"a", "b"}, Caps: map[string]bool{"x": true}})
		}, 4},
	}
	for _, tt := range tests {
		before := db.Statements()
		if err := tt.do(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := db.Statements() - before; got != tt.want {
			t.Errorf("%s ran %d statements, want %d", tt.name, got, tt.want)
		}
	}
}

func TestConcurrentWritersDoNotFail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "folio.db")
	// Two handles on one file stand for two processes (serve and a CLI).
	dbs := []*DB{openAt(t, path), openAt(t, path)}
	ctx := context.Background()
	const workers, each = 6, 15
	var wg sync.WaitGroup
	errc := make(chan error, workers*each*2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			db := dbs[w%len(dbs)]
			for i := 0; i < each; i++ {
				p := &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("w%d-%d", w, i)}
				if err := db.InsertPost(ctx, p); err != nil {
					errc <- err
					return
				}
				err := db.Tx(ctx, func(s store.Store) error {
					got, err := s.GetPost(ctx, p.ID)
					if err != nil {
						return err
					}
					got.Title += "!"
					return s.UpdatePost(ctx, got)
				})
				if err != nil {
					errc <- err
					return
				}
				if _, err := db.ListPosts(ctx, store.PostQuery{Limit: 5}); err != nil {
					errc <- err
					return
				}
				if _, err := db.AddOption(ctx, "secret", fmt.Sprint(w)); err != nil {
					errc <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	n, err := dbs[0].CountPosts(ctx, store.PostQuery{Search: "!"})
	if err != nil || n != workers*each {
		t.Fatalf("%d updated posts (%v), want %d", n, err, workers*each)
	}
	// 2 writes per iteration, plus the one AddOption that inserted.
	if v := mustVersion(t, dbs[1]); v != workers*each*2+1 {
		t.Fatalf("version = %d, want %d", v, workers*each*2+1)
	}
}

func TestConflictNamesColumn(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	if err := db.InsertUser(ctx, &store.User{Login: "a", Nicename: "a"}); err != nil {
		t.Fatal(err)
	}
	err := db.InsertUser(ctx, &store.User{Login: "A", Nicename: "b"})
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "users.login") {
		t.Fatalf("err = %v, want ErrConflict naming users.login", err)
	}
}

func TestTimeRoundTrip(t *testing.T) {
	t.Parallel()
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name   string
		in     time.Time
		stored string
		want   time.Time
	}{
		{"zero", time.Time{}, "0000-00-00 00:00:00", time.Time{}},
		{"utc", time.Date(2020, 2, 29, 23, 59, 58, 0, time.UTC), "2020-02-29 23:59:58", time.Date(2020, 2, 29, 23, 59, 58, 0, time.UTC)},
		{"wall clock kept, zone dropped", time.Date(2021, 7, 1, 8, 0, 0, 0, berlin), "2021-07-01 08:00:00", time.Date(2021, 7, 1, 8, 0, 0, 0, time.UTC)},
		{"sub-second dropped", time.Date(2021, 7, 1, 8, 0, 0, 999, time.UTC), "2021-07-01 08:00:00", time.Date(2021, 7, 1, 8, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		s := fmtTime(tt.in)
		if s != tt.stored {
			t.Errorf("%s: stored %q, want %q", tt.name, s, tt.stored)
		}
		got, err := parseTime(s)
		if err != nil || !got.Equal(tt.want) || got.Location() != tt.want.Location() {
			t.Errorf("%s: read back %v (%v), want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := parseTime("garbage"); err == nil {
		t.Error("parseTime accepted garbage")
	}
}

func TestConcurrentFirstOpenAndMigrate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new", "folio.db")
	ctx := context.Background()
	const n = 4
	errs := make([]error, n)
	dbs := make([]*DB, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			db, err := Open(ctx, path, Options{})
			if err != nil {
				errs[i] = err
				return
			}
			dbs[i] = db
			errs[i] = db.Migrate(ctx)
		}(i)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if dbs[i] != nil {
			defer dbs[i].Close()
		}
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
	}
	cur, latest, err := dbs[0].SchemaVersion(ctx)
	if err != nil || cur != latest {
		t.Fatalf("schema at %d of %d (%v)", cur, latest, err)
	}
}
