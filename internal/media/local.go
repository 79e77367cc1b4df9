package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Local keeps blobs as files under a directory. Put writes a temporary
// file in the target folder, syncs it and renames it into place, so a
// reader sees the whole file or nothing, and a failed write leaves nothing.
type Local struct {
	root string
}

var _ Blobs = (*Local)(nil)

// NewLocal returns the blob storage under dir (created on first write).
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("uploads directory %s: %w", dir, err)
	}
	return &Local{root: abs}, nil
}

// Root returns the directory the blobs live in.
func (l *Local) Root() string { return l.root }

func (l *Local) path(key string) (string, error) {
	if !validKey(key) {
		return "", fmt.Errorf("media: invalid key %q", key)
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put writes r to key through a temporary file and a rename.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, size int64, _ string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("media: create folder for %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, TempPrefix+"*")
	if err != nil {
		return fmt.Errorf("media: create temporary file for %s: %w", key, err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, r)
	if err != nil {
		return fmt.Errorf("media: write %s: %w", key, err)
	}
	if size >= 0 && n != size {
		return fmt.Errorf("media: write %s: wrote %d bytes, want %d", key, n, size)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("media: sync %s: %w", key, err)
	}
	if err := tmp.Chmod(0o640); err != nil {
		return fmt.Errorf("media: chmod %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("media: close %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		_ = os.Remove(tmp.Name())
		done = true
		return fmt.Errorf("media: rename into %s: %w", key, err)
	}
	done = true
	// Make the rename durable too.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

type localObject struct {
	*os.File
	size int64
	mod  time.Time
}

func (o *localObject) Size() int64        { return o.size }
func (o *localObject) ModTime() time.Time { return o.mod }

// Open opens the file of key.
func (l *Local) Open(_ context.Context, key string) (Object, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, ErrNotExist
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotExist
	}
	if err != nil {
		return nil, fmt.Errorf("media: open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("media: stat %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, ErrNotExist
	}
	return &localObject{File: f, size: st.Size(), mod: st.ModTime()}, nil
}

// Exists reports whether key's file exists.
func (l *Local) Exists(_ context.Context, key string) (bool, error) {
	p, err := l.path(key)
	if err != nil {
		return false, err
	}
	_, err = os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("media: stat %s: %w", key, err)
	}
	return true, nil
}

// Delete removes key's file.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("media: delete %s: %w", key, err)
	}
	return nil
}
