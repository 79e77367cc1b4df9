// Package migrate applies versioned SQL schema migrations. It is
// dialect-neutral: the SQLite and PostgreSQL stores both drive it, the
// latter with a lock hook that takes an advisory lock so that several
// instances starting at once apply every migration exactly once.
//
// Applied versions are recorded in a schema_migrations(version, applied_at)
// table. Every migration runs in its own transaction together with the row
// that records it, so a failed migration leaves the schema at the previous
// version.
package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrSchemaNewer is returned when the database has a migration applied that
// this binary does not know: it was migrated by a newer release.
var ErrSchemaNewer = errors.New("migrate: database schema is newer than this binary")

// Migration is one versioned schema change.
type Migration struct {
	// Version orders migrations; it is the number the file name starts with.
	Version int64
	// Name is the rest of the file name, without extension.
	Name string
	// SQL is the script; it may hold several statements.
	SQL string
}

// LockFunc takes a lock that keeps other processes from migrating the same
// database while conn holds it, and returns the function that releases it.
type LockFunc func(ctx context.Context, conn *sql.Conn) (unlock func() error, err error)

// Runner applies migrations to one database.
type Runner struct {
	// Migrations are the migrations this binary knows, in any order.
	Migrations []Migration
	// Placeholder returns the SQL bind placeholder for the n-th (1-based)
	// argument; nil means "?" (SQLite). PostgreSQL passes "$n".
	Placeholder func(n int) string
	// Lock, when set, runs once before any migration on the connection the
	// runner uses; nil means no lock (SQLite serializes writers itself and
	// the runner re-checks every version inside its transaction).
	Lock LockFunc
	// Now returns the time recorded in applied_at; nil means time.Now.
	Now func() time.Time
}

// Load reads the migrations in the root of fsys. File names must look like
// "0001_init.sql": a positive version number, an underscore and a name.
// Other files are ignored; a duplicate version or a bad number is an error.
func Load(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("migrate: read migrations: %w", err)
	}
	var out []Migration
	seen := map[int64]string{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		base := strings.TrimSuffix(e.Name(), ".sql")
		num, name, ok := strings.Cut(base, "_")
		if !ok || name == "" {
			return nil, fmt.Errorf("migrate: file %q: name must be NNNN_name.sql", e.Name())
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migrate: file %q: bad version %q", e.Name(), num)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrate: files %q and %q share version %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("migrate: read %q: %w", e.Name(), err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sortMigrations(out)
	return out, nil
}

// LoadDir is Load on the directory dir of fsys, such as the migrations/
// directory a store package embeds.
func LoadDir(fsys fs.FS, dir string) ([]Migration, error) {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return Load(sub)
}

func sortMigrations(ms []Migration) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
}

// Latest returns the highest version r knows, 0 when it knows none.
func (r *Runner) Latest() int64 {
	var max int64
	for _, m := range r.Migrations {
		if m.Version > max {
			max = m.Version
		}
	}
	return max
}

func (r *Runner) ph(n int) string {
	if r.Placeholder == nil {
		return "?"
	}
	return r.Placeholder(n)
}

func (r *Runner) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

const createTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY,
	applied_at TEXT NOT NULL
)`

// Current returns the highest version applied to db, 0 for a database that
// was never migrated. It creates the schema_migrations table when missing.
func (r *Runner) Current(ctx context.Context, db *sql.DB) (int64, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, createTable); err != nil {
		return 0, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	return current(ctx, conn)
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func current(ctx context.Context, q queryRower) (int64, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("migrate: read version: %w", err)
	}
	return v.Int64, nil
}

// Up applies every migration newer than the database's version, in order,
// each in its own transaction, and returns the versions it applied. It is
// idempotent: a database that is up to date is left alone. It fails with
// ErrSchemaNewer, before changing anything, when the database is at a
// version this binary does not know.
func (r *Runner) Up(ctx context.Context, db *sql.DB) (applied []int64, err error) {
	ms := append([]Migration(nil), r.Migrations...)
	sortMigrations(ms)
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migrate: version %d given twice", ms[i].Version)
		}
	}

	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close()

	if r.Lock != nil {
		unlock, err := r.Lock(ctx, conn)
		if err != nil {
			return nil, fmt.Errorf("migrate: lock: %w", err)
		}
		defer func() {
			if uerr := unlock(); uerr != nil && err == nil {
				err = fmt.Errorf("migrate: unlock: %w", uerr)
			}
		}()
	}

	if _, err := conn.ExecContext(ctx, createTable); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	cur, err := current(ctx, conn)
	if err != nil {
		return nil, err
	}
	if latest := r.Latest(); cur > latest {
		return nil, fmt.Errorf("%w: database is at version %d, this binary knows up to %d", ErrSchemaNewer, cur, latest)
	}

	for _, m := range ms {
		if m.Version <= cur {
			continue
		}
		done, err := r.apply(ctx, conn, m)
		if err != nil {
			return applied, err
		}
		if done {
			applied = append(applied, m.Version)
		}
	}
	return applied, nil
}

// apply runs m in one transaction unless another process applied it first;
// it reports whether it ran m.
func (r *Runner) apply(ctx context.Context, conn *sql.Conn, m Migration) (bool, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate: begin %d_%s: %w", m.Version, m.Name, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit

	var n int
	check := `SELECT COUNT(*) FROM schema_migrations WHERE version = ` + r.ph(1)
	if err := tx.QueryRowContext(ctx, check, m.Version).Scan(&n); err != nil {
		return false, fmt.Errorf("migrate: check %d_%s: %w", m.Version, m.Name, err)
	}
	if n > 0 {
		return false, nil
	}
	if strings.TrimSpace(m.SQL) != "" {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return false, fmt.Errorf("migrate: apply %d_%s: %w", m.Version, m.Name, err)
		}
	}
	record := `INSERT INTO schema_migrations (version, applied_at) VALUES (` + r.ph(1) + `, ` + r.ph(2) + `)`
	at := r.now().UTC().Format("2006-01-02 15:04:05")
	if _, err := tx.ExecContext(ctx, record, m.Version, at); err != nil {
		return false, fmt.Errorf("migrate: record %d_%s: %w", m.Version, m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate: commit %d_%s: %w", m.Version, m.Name, err)
	}
	return true, nil
}
