package media_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/media"
)

func TestLocalPutFileRenamesItsTemporaryFile(t *testing.T) {
	ctx := context.Background()
	l, err := media.NewLocal(filepath.Join(t.TempDir(), "uploads"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := media.CreateTemp(l)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if filepath.Dir(f.Name()) != l.Root() || filepath.Base(f.Name())[:len(media.TempPrefix)] != media.TempPrefix {
		t.Fatalf("temporary file %s is not in the uploads directory's temporary area", f.Name())
	}
	data := bytes.Repeat([]byte("abc"), 1000)
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := media.PutFile(ctx, l, "2024/05/a.bin", f, int64(len(data)), "application/octet-stream"); err != nil {
		t.Fatal(err)
	}
	// Moved, not copied: the stored file is the temporary file itself.
	before, _ := f.Stat()
	after, err := os.Stat(filepath.Join(l.Root(), "2024", "05", "a.bin"))
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("stored file is not the temporary file (%v)", err)
	}
	if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
		t.Errorf("temporary name still exists: %v", err)
	}
	if after.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", after.Mode())
	}
	obj, err := l.Open(ctx, "2024/05/a.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(obj)
	obj.Close()
	if !bytes.Equal(got, data) {
		t.Error("stored bytes differ")
	}
	// A size that does not match the file is refused.
	g, _ := media.CreateTemp(l)
	defer g.Close()
	_, _ = g.WriteString("xyz")
	if err := media.PutFile(ctx, l, "2024/05/b.bin", g, 5, ""); err == nil {
		t.Error("short file stored")
	}
	// A file from elsewhere is copied and left where it is.
	h, err := os.CreateTemp(t.TempDir(), "other-*")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, _ = h.WriteString("hello")
	if err := media.PutFile(ctx, l, "2024/05/c.txt", h, 5, "text/plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h.Name()); err != nil {
		t.Errorf("foreign file moved: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(l.Root(), "2024", "05", "c.txt")); err != nil || string(b) != "hello" {
		t.Errorf("copied file = %q, %v", b, err)
	}
}

func TestLocalSweepTempRemovesOnlyOldTemporaryFiles(t *testing.T) {
	l, err := media.NewLocal(filepath.Join(t.TempDir(), "uploads"))
	if err != nil {
		t.Fatal(err)
	}
	// No uploads directory yet: nothing to do.
	if n, err := media.SweepTemp(l, time.Now()); err != nil || n != 0 {
		t.Fatalf("sweep of a missing directory = %d, %v", n, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	write := func(rel string, mod time.Time) {
		p := filepath.Join(l.Root(), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	write(".upload-111", old)           // a crashed streamed upload
	write("2024/05/.upload-222", old)   // a crashed Put
	write(".upload-333", time.Now())    // an upload in progress
	write("2024/05/photo.jpg", old)     // an upload
	write("2024/05/.upload-dir/x", old) // not a temporary file
	if n, err := media.SweepTemp(l, time.Now().Add(-time.Hour)); err != nil || n != 2 {
		t.Fatalf("sweep = %d, %v; want 2", n, err)
	}
	var left []string
	_ = filepath.WalkDir(l.Root(), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(l.Root(), p)
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(left)
	want := []string{".upload-333", "2024/05/.upload-dir/x", "2024/05/photo.jpg"}
	if len(left) != len(want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	for i := range want {
		if left[i] != want[i] {
			t.Fatalf("left %v, want %v", left, want)
		}
	}
}
