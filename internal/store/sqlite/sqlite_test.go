package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
)

// newDB opens and migrates a fresh database in a temp dir.
func newDB(t *testing.T) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "folio.db"))
}

// childProcessFile starts a test that runs a child process: skipped in
// -short runs, run in parallel, on a new file it opens.
func childProcessFile(t *testing.T) (path string, db *DB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	path = filepath.Join(t.TempDir(), "folio.db")
	return path, openAt(t, path)
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
				err = db.c.write.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&s)
				return
			}},
			{"reader", func() (s string, err error) {
				err = db.c.read.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&s)
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
	if err := db.c.read.QueryRowContext(ctx, "PRAGMA query_only").Scan(&qo); err != nil || qo != 1 {
		t.Errorf("reader query_only = %d, %v; want 1", qo, err)
	}
	if want := max(4, 2*runtime.NumCPU()); db.c.read.Stats().MaxOpenConnections != want || db.c.write.Stats().MaxOpenConnections != 1 {
		t.Errorf("pools = %d readers, %d writers; want %d, 1",
			db.c.read.Stats().MaxOpenConnections, db.c.write.Stats().MaxOpenConnections, want)
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
	if err := db.c.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	// One row per migration file (numbers may have gaps).
	r, err := migrationRunner()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(r.Migrations) {
		t.Fatalf("schema_migrations has %d rows, want %d", n, len(r.Migrations))
	}
	for _, table := range []string{"posts", "users", "user_roles", "user_caps", "app_passwords",
		"options", "terms", "term_relationships", "comments", "post_meta", "store_version"} {
		if err := db.c.write.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
			t.Errorf("table %s: %v", table, err)
		}
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	if _, err := db.c.write.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (9999, '2030-01-01 00:00:00')`); err != nil {
		t.Fatal(err)
	}
	err := db.Migrate(ctx)
	if !errors.Is(err, migrate.ErrSchemaNewer) {
		t.Fatalf("Migrate = %v, want ErrSchemaNewer", err)
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

// TestWriterBlockedPastBusyTimeoutIsErrBusy: a write that waits for
// another process's write transaction longer than the busy timeout fails
// with store.ErrBusy, not a bare driver error.
func TestWriterBlockedPastBusyTimeoutIsErrBusy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "folio.db")
	holder := openAt(t, path)
	ctx := context.Background()
	other, err := Open(ctx, path, Options{BusyTimeoutMS: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	locked, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- holder.Tx(ctx, func(s store.Store) error {
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked
	err = other.SetOption(ctx, "k", "v")
	close(release)
	if !errors.Is(err, store.ErrBusy) {
		t.Fatalf("write while another process holds the write lock: %v, want store.ErrBusy", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := other.SetOption(ctx, "k", "v"); err != nil {
		t.Fatalf("write after the lock was released: %v", err)
	}
}

// migratedBefore opens a new file migrated up to, and not including,
// migration version: the state of a site an earlier release left.
func migratedBefore(t *testing.T, version int64) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "folio.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	full, err := migrationRunner()
	if err != nil {
		t.Fatal(err)
	}
	var before []migrate.Migration
	for _, m := range full.Migrations {
		if m.Version < version {
			before = append(before, m)
		}
	}
	if _, err := (&migrate.Runner{Migrations: before}).Up(ctx, db.c.write); err != nil {
		t.Fatal(err)
	}
	return db
}
