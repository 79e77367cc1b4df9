package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/folio-server/folio/internal/config"
)

// NewSiteDir returns the directory a SQLite site of cfg is about to be
// created in: the database file's directory when the file does not exist
// yet; "" for PostgreSQL and for an existing site. Call it before New.
func NewSiteDir(cfg *config.Config) string {
	if cfg.IsPostgres() {
		return ""
	}
	path := cfg.DatabasePath()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if cfg.DatabaseURL == "" {
		return cfg.DataDir
	}
	return filepath.Dir(path)
}

// prepareDataDir makes sure the directory of the SQLite file path exists
// and is usable, creating it when missing, so that an unreadable or
// unwritable one is reported as "permission denied" with its name instead
// of the driver's "unable to open database file (14)".
func prepareDataDir(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return fmt.Errorf("create data directory %s: %w", dir, describeFSError(err))
		}
		return nil
	case err != nil:
		return fmt.Errorf("data directory %s: %w", dir, describeFSError(err))
	case !st.IsDir():
		return fmt.Errorf("data directory %s: not a directory", dir)
	}
	// Reading the directory and creating a file in it are what SQLite
	// needs (the database and its -wal and -shm files); root passes
	// permission bits, so try both rather than reading the mode.
	if _, err := os.ReadDir(dir); err != nil {
		return fmt.Errorf("data directory %s: %w", dir, describeFSError(err))
	}
	f, err := os.CreateTemp(dir, ".folio-write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, describeFSError(err))
	}
	name := f.Name()
	f.Close()
	_ = os.Remove(name)
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("database file %s: %w", path, describeFSError(err))
	}
	return nil
}

// errPermissionDenied is what describeFSError reports for EACCES and
// EPERM.
var errPermissionDenied = errors.New("permission denied (check the owner and mode of the directory and its parents)")

// describeFSError turns a file system error into its cause, without the
// path the caller already names.
func describeFSError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return errPermissionDenied
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
