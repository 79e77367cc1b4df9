package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// TempPrefix starts the name of every temporary file of an upload in
// progress. Such a file is never served: only paths reserved in the store
// are.
const TempPrefix = ".upload-"

// tempCreator is implemented by blob stores with their own temporary area.
type tempCreator interface {
	CreateTemp() (*os.File, error)
}

// filePutter is implemented by blob stores that can take a complete
// temporary file more cheaply than by copying it.
type filePutter interface {
	PutFile(ctx context.Context, key string, f *os.File, size int64, contentType string) error
}

// tempSweeper is implemented by blob stores that keep temporary files a
// crash can leave behind.
type tempSweeper interface {
	SweepTemp(cutoff time.Time) (int, error)
}

// CreateTemp creates the temporary file an upload is streamed into: in
// b's temporary area when it has one (local blobs: the uploads directory,
// so that the finished file is renamed into place), otherwise in
// os.TempDir. When b's area cannot be written the file goes to
// os.TempDir too, so that b's failure is reported when the upload is
// stored, like any other storage failure. The caller removes the file when
// it was not moved into b.
func CreateTemp(b Blobs) (*os.File, error) {
	if tc, ok := b.(tempCreator); ok {
		if f, err := tc.CreateTemp(); err == nil {
			return f, nil
		}
	}
	f, err := os.CreateTemp("", TempPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("media: create temporary file: %w", err)
	}
	return f, nil
}

// PutFile stores the size bytes of the complete temporary file f under
// key. Local blobs rename a file made by their CreateTemp into place (no
// second copy; f's name then no longer exists); other stores copy it from
// the file (S3 uploads it). f stays open either way and is the caller's to
// close.
func PutFile(ctx context.Context, b Blobs, key string, f *os.File, size int64, contentType string) error {
	if fp, ok := b.(filePutter); ok {
		return fp.PutFile(ctx, key, f, size, contentType)
	}
	return b.Put(ctx, key, io.NewSectionReader(f, 0, size), size, contentType)
}

// SweepTemp removes b's temporary upload files last written before cutoff
// (left behind by a process that died while writing them) and returns how
// many it removed. Stores without a temporary area of their own remove
// nothing.
func SweepTemp(b Blobs, cutoff time.Time) (int, error) {
	if ts, ok := b.(tempSweeper); ok {
		return ts.SweepTemp(cutoff)
	}
	return 0, nil
}

// CreateTemp creates a temporary upload file in the uploads directory.
func (l *Local) CreateTemp() (*os.File, error) {
	if err := os.MkdirAll(l.root, 0o750); err != nil {
		return nil, fmt.Errorf("media: create uploads directory: %w", err)
	}
	f, err := os.CreateTemp(l.root, TempPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("media: create temporary file: %w", err)
	}
	return f, nil
}

// PutFile moves f, when CreateTemp made it, to key by a rename (same file
// system, so nothing is copied and a reader sees the whole file or
// nothing); any other file, or one a rename cannot move, is copied with
// Put.
func (l *Local) PutFile(ctx context.Context, key string, f *os.File, size int64, contentType string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if filepath.Dir(f.Name()) != l.root || !strings.HasPrefix(filepath.Base(f.Name()), TempPrefix) {
		return l.Put(ctx, key, io.NewSectionReader(f, 0, size), size, contentType)
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("media: stat temporary file for %s: %w", key, err)
	}
	if st.Size() != size {
		return fmt.Errorf("media: write %s: temporary file has %d bytes, want %d", key, st.Size(), size)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("media: sync %s: %w", key, err)
	}
	if err := f.Chmod(0o640); err != nil {
		return fmt.Errorf("media: chmod %s: %w", key, err)
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("media: create folder for %s: %w", key, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		if errors.Is(err, syscall.EXDEV) {
			// The folder is another file system (a mount inside the
			// uploads directory): copy instead.
			return l.Put(ctx, key, io.NewSectionReader(f, 0, size), size, contentType)
		}
		return fmt.Errorf("media: rename into %s: %w", key, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// SweepTemp removes temporary upload files (CreateTemp's and Put's, named
// TempPrefix...) anywhere under the uploads directory that were last
// written before cutoff. An upload still being received keeps writing to
// its file, so its modification time stays recent.
func (l *Local) SweepTemp(cutoff time.Time) (int, error) {
	n := 0
	err := filepath.WalkDir(l.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // no uploads yet, or removed meanwhile
			}
			return err
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(d.Name(), TempPrefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !info.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("media: sweep temporary files: %w", err)
	}
	return n, nil
}
