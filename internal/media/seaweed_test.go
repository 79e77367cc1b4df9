package media_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/media/s3test"
)

// TestS3OnSeaweedFS runs the blob suite and the S3-specific checks on a
// real S3-compatible server (see s3test).
func TestS3OnSeaweedFS(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	open := func(t *testing.T, o media.S3Options) *media.S3 {
		t.Helper()
		b, err := media.NewS3(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("blob suite", func(t *testing.T) {
		o := srv.Bucket(t)
		o.Prefix = "site1"
		blobSuite(t, open(t, o))
	})
	t.Run("put is all or nothing", func(t *testing.T) {
		putIsAllOrNothing(t, open(t, srv.Bucket(t)))
	})
	t.Run("missing bucket fails writes, not as unavailable", func(t *testing.T) {
		b := open(t, srv.Options("folio-missing"))
		err := b.Put(ctx, "a.txt", strings.NewReader("x"), 1, "text/plain")
		if err == nil {
			t.Fatal("put into a missing bucket succeeded")
		}
		if errors.Is(err, media.ErrUnavailable) {
			t.Errorf("a missing bucket is reported as an outage: %v", err)
		}
	})
	t.Run("wrong credentials fail every operation", func(t *testing.T) {
		o := srv.Bucket(t)
		o.SecretKey = "wrong"
		b := open(t, o)
		if err := b.Put(ctx, "a.txt", strings.NewReader("x"), 1, "text/plain"); err == nil || errors.Is(err, media.ErrUnavailable) {
			t.Errorf("put with a wrong secret: %v", err)
		}
		if _, err := b.Exists(ctx, "a.txt"); err == nil {
			t.Error("exists with a wrong secret answered")
		}
	})
	t.Run("a stopped server is unavailable", func(t *testing.T) {
		down := s3test.Start(t)
		b := open(t, down.Bucket(t))
		down.Stop()
		err := b.Put(ctx, "a.txt", strings.NewReader("x"), 1, "text/plain")
		if !errors.Is(err, media.ErrUnavailable) {
			t.Errorf("put to a stopped server = %v, want ErrUnavailable", err)
		}
		if _, err := b.Exists(ctx, "a.txt"); !errors.Is(err, media.ErrUnavailable) {
			t.Errorf("exists on a stopped server = %v, want ErrUnavailable", err)
		}
	})
}
