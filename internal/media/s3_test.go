package media_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/media"
)

// TestS3PutIsAllOrNothing shows, against an in-process server speaking
// the S3 protocol, that an object written by Put is invisible while its
// body is still arriving, that an interrupted write leaves nothing (not
// even over an older version, which stays readable whole), and that the
// new bytes replace the old ones only once complete.
func TestS3PutIsAllOrNothing(t *testing.T) {
	b, err := media.NewS3(context.Background(), newFakeS3(t, "uploads"))
	if err != nil {
		t.Fatal(err)
	}
	putIsAllOrNothing(t, b)
}

// putIsAllOrNothing checks Put's atomicity on b (an S3 bucket).
func putIsAllOrNothing(t *testing.T, b media.Blobs) {
	t.Helper()
	ctx := context.Background()
	body := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB

	// While the body is half sent, the object does not exist.
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- b.Put(ctx, "2024/05/big.bin", pr, int64(len(body)), "application/octet-stream") }()
	if _, err := pw.Write(body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Exists(ctx, "2024/05/big.bin"); err != nil || ok {
		t.Fatalf("half-written object visible: %v, %v", ok, err)
	}
	if _, err := pw.Write(body[len(body)/2:]); err != nil {
		t.Fatal(err)
	}
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := read(t, b, "2024/05/big.bin"); !bytes.Equal(got, body) {
		t.Fatalf("read back %d bytes, want %d", len(got), len(body))
	}

	// A replacement cut off half-way (the body ends early, as when the
	// process or the connection dies) leaves the old version whole.
	pr, pw = io.Pipe()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { done <- b.Put(cctx, "2024/05/big.bin", pr, int64(len(body)), "application/octet-stream") }()
	if _, err := pw.Write([]byte(strings.Repeat("x", len(body)/2))); err != nil {
		t.Fatal(err)
	}
	if got := read(t, b, "2024/05/big.bin"); !bytes.Equal(got, body) {
		t.Fatal("old version not readable whole during a replacement")
	}
	cancel()
	_ = pw.CloseWithError(io.ErrUnexpectedEOF)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("interrupted put succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("interrupted put did not return")
	}
	if got := read(t, b, "2024/05/big.bin"); !bytes.Equal(got, body) {
		t.Fatal("an interrupted replacement damaged the old version")
	}
	// An interrupted first write leaves no object at all.
	pr, pw = io.Pipe()
	go func() { done <- b.Put(ctx, "2024/05/new.bin", pr, int64(len(body)), "application/octet-stream") }()
	_, _ = pw.Write(body[:1000])
	_ = pw.CloseWithError(io.ErrUnexpectedEOF)
	if err := <-done; err == nil {
		t.Fatal("interrupted put succeeded")
	}
	if ok, err := b.Exists(ctx, "2024/05/new.bin"); err != nil || ok {
		t.Fatalf("interrupted first write left an object: %v, %v", ok, err)
	}
}

func read(t *testing.T, b media.Blobs, key string) []byte {
	t.Helper()
	obj, err := b.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	data, err := io.ReadAll(obj)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
