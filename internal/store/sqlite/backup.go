package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the SQLite database at src to the
// new file dst with VACUUM INTO: one read transaction of src, so the copy
// is the database as it was at one moment, while other processes go on
// reading and writing it (WAL mode). The copy is written to a temporary
// file beside dst, checked with IntegrityCheck and renamed, so that dst
// is either a whole, sound copy or absent. dst must not exist.
func Backup(ctx context.Context, src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("sqlite: backup source: %w", err)
	}
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("sqlite: backup %s: the file exists; remove it or choose another name", dst)
	}
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".part")
	_ = os.Remove(tmp)
	defer func() { _ = os.Remove(tmp) }()
	db, err := openPlain(src)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sqlite: backup %s: %w", src, err)
	}
	problems, err := IntegrityCheck(ctx, tmp)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("sqlite: backup %s fails its integrity check: %s", dst, problems[0])
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and PRAGMA foreign_key_check
// on the SQLite file at path and returns the problems they report (none
// for a sound file).
func IntegrityCheck(ctx context.Context, path string) ([]string, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("sqlite: integrity check: %w", err)
	}
	db, err := openPlain(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var problems []string
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: integrity check %s: %w", path, err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: integrity check %s: %w", path, err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: integrity check %s: %w", path, err)
	}
	fk, err := db.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: foreign key check %s: %w", path, err)
	}
	defer fk.Close()
	for fk.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var n int
		if err := fk.Scan(&table, &rowid, &parent, &n); err != nil {
			return nil, fmt.Errorf("sqlite: foreign key check %s: %w", path, err)
		}
		problems = append(problems, fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
	}
	return problems, fk.Err()
}

// openPlain opens the file at path (which must exist) on one connection
// that waits for other processes' locks, without the store's tuning.
func openPlain(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// syncFile flushes the file at path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sqlite: sync %s: %w", path, err)
	}
	return nil
}
