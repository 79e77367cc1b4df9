// Package storetest opens a fresh, migrated store for a test on the backend
// the environment selects, so that every test that stores data runs on
// SQLite and on PostgreSQL alike.
//
// Without FOLIO_TEST_DATABASE_URL a test gets a SQLite file in its own
// temporary directory. With FOLIO_TEST_DATABASE_URL=postgres://... it gets
// a new schema of that database, selected with search_path and dropped when
// the test ends, so tests and packages running in parallel never see each
// other's rows.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/sqlite"
)

// EnvDatabaseURL names the environment variable that selects PostgreSQL
// for the tests.
const EnvDatabaseURL = "FOLIO_TEST_DATABASE_URL"

// Store is a store with the statement counter tests assert on.
type Store interface {
	store.Store
	Statements() int64
}

// Backend returns "postgres" when FOLIO_TEST_DATABASE_URL is set and
// "sqlite" otherwise.
func Backend() string {
	if os.Getenv(EnvDatabaseURL) != "" {
		return "postgres"
	}
	return "sqlite"
}

// SkipReason is why PostgreSQL-only tests skip on this machine, or "" when
// they run.
func SkipReason() string {
	if os.Getenv(EnvDatabaseURL) != "" {
		return ""
	}
	return EnvDatabaseURL + " is not set, so the PostgreSQL tests are skipped " +
		"(set it to e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable to run them)"
}

// Open returns a fresh, migrated store for t on the selected backend,
// closed (and for PostgreSQL dropped) when t ends.
func Open(t testing.TB) Store {
	t.Helper()
	return OpenN(t, 1)[0]
}

// OpenN returns n handles on one fresh, migrated database, as n processes
// (nodes) would have.
func OpenN(t testing.TB, n int) []Store {
	t.Helper()
	if Backend() == "postgres" {
		u := PostgresURL(t)
		out := make([]Store, n)
		for i := range out {
			out[i] = OpenPostgres(t, u)
		}
		return out
	}
	path := filepath.Join(t.TempDir(), "folio.db")
	out := make([]Store, n)
	for i := range out {
		out[i] = OpenSQLite(t, path)
	}
	return out
}

// OpenSQLite opens and migrates the SQLite database at path for t.
func OpenSQLite(t testing.TB, path string) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
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

// OpenPostgres opens and migrates the PostgreSQL database at url for t.
func OpenPostgres(t testing.TB, url string) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 8})
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

// PostgresURL creates an empty schema in the database FOLIO_TEST_DATABASE_URL
// names and returns a URL whose connections work in it; the schema is
// dropped when t ends. It skips t when the variable is unset.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		t.Skip(SkipReason())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, drop, err := postgres.TempSchema(ctx, base, "folio_test")
	if err != nil {
		t.Fatalf("%s: %v", EnvDatabaseURL, err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return u
}

// Configure points cfg at a fresh site for t on the selected backend: a
// data directory of its own (uploads, and the SQLite database without
// FOLIO_TEST_DATABASE_URL) and, with it, a new PostgreSQL schema dropped
// when t ends. Tests that build a whole server use it, so that the
// PostgreSQL pass of the suite runs them there too.
func Configure(t testing.TB, cfg *config.Config) {
	t.Helper()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	if Backend() == "postgres" {
		cfg.DatabaseURL = PostgresURL(t)
	}
}

// OneBump reports whether the store's version moved from before to after
// by one write's bump, on a store no other writer uses: by one on SQLite,
// by one or two on PostgreSQL, which advances its version sequence inside
// the write transaction and again once it has committed.
func OneBump(before, after int64) bool {
	return after == before+1 || (Backend() == "postgres" && after == before+2)
}
