package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
)

// Checker is implemented by blob storages that can prove they accept
// writes, for the server's readiness check.
type Checker interface {
	// CheckWritable writes a small probe and removes it.
	CheckWritable(ctx context.Context) error
}

var (
	_ Checker = (*Local)(nil)
	_ Checker = (*S3)(nil)
)

// probeKey is the key of the S3 readiness probe object.
const probeKey = ".folio-ready"

// CheckWritable creates the uploads directory if needed, then writes and
// removes a temporary file in it.
func (l *Local) CheckWritable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(l.root, 0o750); err != nil {
		return fmt.Errorf("media: uploads directory: %w", err)
	}
	f, err := os.CreateTemp(l.root, ".folio-ready-*")
	if err != nil {
		return fmt.Errorf("media: uploads directory not writable: %w", err)
	}
	_, werr := f.Write([]byte("ok"))
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return fmt.Errorf("media: uploads directory not writable: %w", err)
	}
	return nil
}

// CheckWritable puts a two-byte object under the prefix and deletes it.
func (s *S3) CheckWritable(ctx context.Context) error {
	if err := s.Put(ctx, probeKey, bytes.NewReader([]byte("ok")), 2, "text/plain"); err != nil {
		return err
	}
	return s.Delete(ctx, probeKey)
}
