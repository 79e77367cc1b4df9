package media_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-server/folio/internal/media"
)

func TestLocalCheckWritableLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "uploads") // not made yet
	l, err := media.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CheckWritable(context.Background()); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 0 {
		t.Errorf("uploads directory after the probe: %d entries, %v", len(ents), err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad, _ := media.NewLocal(filepath.Join(file, "uploads"))
	if err := bad.CheckWritable(context.Background()); err == nil {
		t.Error("a directory under a file checked writable")
	}
}

func TestS3CheckWritableNeedsTheBucket(t *testing.T) {
	t.Parallel()
	ok, err := media.NewS3(context.Background(), newFakeS3(t, "uploads"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ok.CheckWritable(ctx); err != nil {
		t.Fatal(err)
	}
	if there, err := ok.Exists(ctx, ".folio-ready"); err != nil || there {
		t.Errorf("the probe object stayed: %v, %v", there, err)
	}
	missing, err := media.NewS3(context.Background(), newFakeS3(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := missing.CheckWritable(ctx); err == nil {
		t.Error("a missing bucket checked writable")
	}
}
