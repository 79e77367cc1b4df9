package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	_ "modernc.org/sqlite"
)

func openDB(t *testing.T, file string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", file+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func tempDB(t *testing.T) *sql.DB {
	t.Helper()
	return openDB(t, filepath.Join(t.TempDir(), "m.db"))
}

var sample = []Migration{
	{Version: 1, Name: "init", SQL: "CREATE TABLE a (id INTEGER PRIMARY KEY); CREATE TABLE b (id INTEGER PRIMARY KEY);"},
	{Version: 2, Name: "more", SQL: "ALTER TABLE a ADD COLUMN name TEXT NOT NULL DEFAULT ''"},
	{Version: 5, Name: "gap", SQL: "CREATE INDEX a_name ON a(name)"},
}

func tableExists(t *testing.T, db *sql.DB, name string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		files    fstest.MapFS
		want     []int64
		wantName []string
		wantErr  string
	}{
		{
			name: "sorted by version, other files ignored",
			files: fstest.MapFS{
				"0002_users.sql": {Data: []byte("B")},
				"0001_init.sql":  {Data: []byte("A")},
				"README.md":      {Data: []byte("x")},
				"0010_late.sql":  {Data: []byte("C")},
			},
			want:     []int64{1, 2, 10},
			wantName: []string{"init", "users", "late"},
		},
		{name: "empty", files: fstest.MapFS{}, want: nil},
		{name: "no underscore", files: fstest.MapFS{"0001.sql": {Data: []byte("A")}}, wantErr: "NNNN_name.sql"},
		{name: "not a number", files: fstest.MapFS{"abc_init.sql": {Data: []byte("A")}}, wantErr: "bad version"},
		{name: "zero version", files: fstest.MapFS{"0000_init.sql": {Data: []byte("A")}}, wantErr: "bad version"},
		{
			name: "duplicate version",
			files: fstest.MapFS{
				"0001_a.sql": {Data: []byte("A")},
				"1_b.sql":    {Data: []byte("B")},
			},
			wantErr: "share version 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ms, err := Load(tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != len(tt.want) {
				t.Fatalf("got %d migrations, want %d", len(ms), len(tt.want))
			}
			for i, m := range ms {
				if m.Version != tt.want[i] || m.Name != tt.wantName[i] {
					t.Errorf("migration %d = %d_%s, want %d_%s", i, m.Version, m.Name, tt.want[i], tt.wantName[i])
				}
			}
		})
	}
}

// TestLoadDirReadsOneDirectory: LoadDir loads the migrations of the named
// directory only, as a store package's embedded migrations/ is read.
func TestLoadDirReadsOneDirectory(t *testing.T) {
	files := fstest.MapFS{
		"migrations/0002_b.sql": {Data: []byte("B")},
		"migrations/0001_a.sql": {Data: []byte("A")},
		"other/0003_c.sql":      {Data: []byte("C")},
	}
	ms, err := LoadDir(files, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[1].Version != 2 || ms[1].SQL != "B" {
		t.Fatalf("LoadDir = %+v", ms)
	}
	if _, err := LoadDir(files, "../x"); err == nil {
		t.Fatal("LoadDir accepted an invalid directory name")
	}
}

func TestUpAppliesInOrderAndIsIdempotent(t *testing.T) {
	t.Parallel()
	db := tempDB(t)
	ctx := context.Background()
	// Given out of order on purpose.
	r := &Runner{Migrations: []Migration{sample[2], sample[0], sample[1]}}

	applied, err := r.Up(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(applied) != "[1 2 5]" {
		t.Fatalf("applied = %v, want [1 2 5]", applied)
	}
	for _, name := range []string{"a", "b", "a_name"} {
		if !tableExists(t, db, name) {
			t.Errorf("%s missing after Up", name)
		}
	}
	again, err := r.Up(ctx, db)
	if err != nil {
		t.Fatalf("second Up: %v", err)
	}
	if len(again) != 0 {
		t.Fatalf("second Up applied %v, want nothing", again)
	}
	var rows int
	if err := db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 3 {
		t.Fatalf("schema_migrations has %d rows, want 3", rows)
	}
	cur, err := r.Current(ctx, db)
	if err != nil || cur != 5 {
		t.Fatalf("Current = %d, %v; want 5", cur, err)
	}
	if r.Latest() != 5 {
		t.Fatalf("Latest = %d, want 5", r.Latest())
	}
}

func TestUpOnlyAppliesNewMigrations(t *testing.T) {
	t.Parallel()
	db := tempDB(t)
	ctx := context.Background()
	if _, err := (&Runner{Migrations: sample[:1]}).Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	applied, err := (&Runner{Migrations: sample}).Up(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(applied) != "[2 5]" {
		t.Fatalf("applied = %v, want [2 5]", applied)
	}
}

func TestUpRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	db := tempDB(t)
	ctx := context.Background()
	if _, err := (&Runner{Migrations: sample}).Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	old := &Runner{Migrations: append(sample[:2:2], Migration{Version: 3, Name: "other", SQL: "CREATE TABLE c (id INTEGER)"})}
	applied, err := old.Up(ctx, db)
	if !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("err = %v, want ErrSchemaNewer", err)
	}
	if !strings.Contains(err.Error(), "version 5") || !strings.Contains(err.Error(), "up to 3") {
		t.Errorf("error %q does not name both versions", err)
	}
	if len(applied) != 0 || tableExists(t, db, "c") {
		t.Fatal("an older binary changed a newer schema")
	}
}

func TestUpFailedMigrationRollsBack(t *testing.T) {
	t.Parallel()
	db := tempDB(t)
	ctx := context.Background()
	r := &Runner{Migrations: []Migration{
		sample[0],
		{Version: 2, Name: "broken", SQL: "CREATE TABLE half (id INTEGER); THIS IS NOT SQL;"},
		{Version: 3, Name: "after", SQL: "CREATE TABLE after_broken (id INTEGER)"},
	}}
	applied, err := r.Up(ctx, db)
	if err == nil || !strings.Contains(err.Error(), "2_broken") {
		t.Fatalf("err = %v, want an error naming 2_broken", err)
	}
	if fmt.Sprint(applied) != "[1]" {
		t.Fatalf("applied = %v, want [1]", applied)
	}
	if tableExists(t, db, "half") {
		t.Error("statement of the failed migration was kept")
	}
	if tableExists(t, db, "after_broken") {
		t.Error("a migration after the failed one ran")
	}
	cur, err := r.Current(ctx, db)
	if err != nil || cur != 1 {
		t.Fatalf("Current = %d, %v; want 1", cur, err)
	}
}

func TestUpLockAndPlaceholderHooks(t *testing.T) {
	t.Parallel()
	db := tempDB(t)
	ctx := context.Background()
	var events []string
	var placeholders int
	r := &Runner{
		Migrations: sample[:2],
		Placeholder: func(n int) string {
			placeholders++
			return fmt.Sprintf("?%d", n)
		},
		Lock: func(ctx context.Context, conn *sql.Conn) (func() error, error) {
			events = append(events, "lock")
			return func() error { events = append(events, "unlock"); return nil }, nil
		},
		Now: func() time.Time { return time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
	if _, err := r.Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(events) != "[lock unlock]" {
		t.Fatalf("events = %v, want [lock unlock]", events)
	}
	if placeholders == 0 {
		t.Fatal("Placeholder was never used")
	}
	var at string
	if err := db.QueryRow(`SELECT applied_at FROM schema_migrations WHERE version = 2`).Scan(&at); err != nil {
		t.Fatal(err)
	}
	if at != "2020-01-02 03:04:05" {
		t.Fatalf("applied_at = %q", at)
	}

	failing := &Runner{
		Migrations: sample,
		Lock: func(ctx context.Context, conn *sql.Conn) (func() error, error) {
			return nil, errors.New("held elsewhere")
		},
	}
	if _, err := failing.Up(ctx, db); err == nil || !strings.Contains(err.Error(), "held elsewhere") {
		t.Fatalf("err = %v, want the lock error", err)
	}
	if tableExists(t, db, "a_name") {
		t.Fatal("migrated without the lock")
	}
}

func TestUpConcurrentProcesses(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	const n = 4
	dbs := make([]*sql.DB, n)
	for i := range dbs {
		dbs[i] = openDB(t, file)
		// Connect now: switching the new file to WAL is not what this
		// test races.
		if err := dbs[i].PingContext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	results := make([][]int64, n)
	errs := make([]error, n)
	for i := range dbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = (&Runner{Migrations: sample}).Up(ctx, dbs[i])
		}(i)
	}
	wg.Wait()
	total := 0
	for i := range dbs {
		if errs[i] != nil {
			t.Fatalf("runner %d: %v", i, errs[i])
		}
		total += len(results[i])
	}
	if total != len(sample) {
		t.Fatalf("migrations applied %d times in total, want %d", total, len(sample))
	}
}
