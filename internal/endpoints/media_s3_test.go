package endpoints_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/media/s3test"
)

// The media suite against a real S3-compatible server (SeaweedFS's S3
// gateway, see s3test): what users run, where gofakes3 only speaks the
// protocol. Every case gets its own bucket on one server.
func TestMediaOnRealS3(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()

	// onBucket points a fresh media env at a fresh bucket.
	onBucket := func(t *testing.T) (*mediaEnv, media.S3Options, *media.S3) {
		e := newMediaEnv(t)
		o := srv.Bucket(t)
		o.Prefix = "site"
		blobs, err := media.NewS3(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		e.site.SetBlobs(blobs)
		return e, o, blobs
	}

	t.Run("upload stores the file and every size, delete removes them", func(t *testing.T) {
		e, o, blobs := onBucket(t)
		m := e.png("author", "cloud.png", 400, 300, "")
		file := m["media_details"].(map[string]any)["file"].(string)
		stem := strings.TrimSuffix(file, ".png")
		want := []string{"site/" + file, "site/" + stem + "-150x150.png", "site/" + stem + "-300x225.png"}
		got := srv.Objects(t, o.Bucket, "site/")
		if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
			t.Fatalf("objects = %v, want %v", got, want)
		}
		if len(e.files()) != 0 {
			t.Errorf("an S3 upload wrote local files: %v", e.files())
		}
		// What is read back is what was sent.
		obj, err := blobs.Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(obj)
		obj.Close()
		if !bytes.Equal(data, pngOf(t, 400, 300)) {
			t.Errorf("read back %d bytes that differ from the upload", len(data))
		}
		// A second file of the same name gets its own name.
		m2 := e.png("author", "cloud.png", 10, 10, "")
		if f := m2["media_details"].(map[string]any)["file"]; f != monthFolder()+"/cloud-1.png" {
			t.Errorf("second file = %v", f)
		}
		e.do("DELETE", fmt.Sprintf("%s/%v?force=true", mediaPath, m["id"]), "author").WantStatus(200)
		e.do("DELETE", fmt.Sprintf("%s/%v?force=true", mediaPath, m2["id"]), "author").WantStatus(200)
		if left := srv.Objects(t, o.Bucket, "site/"); len(left) != 0 {
			t.Errorf("objects left after delete: %v", left)
		}
	})

	t.Run("private media stay private in the API", func(t *testing.T) {
		e, _, _ := onBucket(t)
		post := e.do("POST", "/api/svc/v2/posts", "editor", map[string]any{"title": "Secret", "status": "private"})
		post.WantStatus(201)
		m := e.png("editor", "inner.png", 20, 20, fmt.Sprintf("?post=%v", post.Object()["id"]))
		e.do("GET", fmt.Sprintf("%s/%v", mediaPath, m["id"]), "").WantError(401, "rest_forbidden")
		e.do("GET", fmt.Sprintf("%s/%v", mediaPath, m["id"]), "editor").WantStatus(200)
	})

	t.Run("a missing bucket refuses uploads and records nothing", func(t *testing.T) {
		e := newMediaEnv(t)
		blobs, err := media.NewS3(ctx, srv.Options("folio-no-such-bucket"))
		if err != nil {
			t.Fatal(err)
		}
		e.site.SetBlobs(blobs)
		r := e.uploadRaw("author", "", pngOf(t, 20, 20), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="a.png"`)
		body := r.WantError(500, "rest_upload_sideload_error")
		if msg := body["message"].(string); strings.Contains(msg, "NoSuchBucket") || strings.Contains(msg, srv.Endpoint) {
			t.Errorf("the message tells the storage's internals: %q", msg)
		}
		if ids, _ := e.mediaIDs("administrator", ""); len(ids) != 0 {
			t.Errorf("records after a refused upload: %v", ids)
		}
	})

	t.Run("wrong credentials refuse uploads and record nothing", func(t *testing.T) {
		e, o, _ := onBucket(t)
		o.SecretKey = "not-the-secret"
		bad, err := media.NewS3(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		e.site.SetBlobs(bad)
		e.uploadRaw("author", "", pngOf(t, 20, 20), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="a.png"`).
			WantError(500, "rest_upload_sideload_error")
		if ids, _ := e.mediaIDs("administrator", ""); len(ids) != 0 {
			t.Errorf("records after a refused upload: %v", ids)
		}
		if left := srv.Objects(t, o.Bucket, ""); len(left) != 0 {
			t.Errorf("objects written with wrong credentials: %v", left)
		}
		// Anonymous access is refused too.
		o.AccessKey, o.SecretKey = "", ""
		anon, err := media.NewS3(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := anon.Put(ctx, "x.txt", strings.NewReader("x"), 1, "text/plain"); err == nil {
			t.Error("an anonymous put was accepted")
		}
	})

	t.Run("the connection cut mid-upload is a 503 and leaves nothing", func(t *testing.T) {
		e, o, _ := onBucket(t)
		// A proxy that lets 64 KiB through and then breaks the connection
		// and refuses new ones: the storage went away mid-upload.
		p := newCuttingProxy(t, srv.Endpoint, 64<<10)
		cut := o
		cut.Endpoint = p.addr
		blobs, err := media.NewS3(ctx, cut)
		if err != nil {
			t.Fatal(err)
		}
		e.site.SetBlobs(blobs)
		big := bytes.Repeat([]byte("%PDF-1.4\n"), 200_000) // 1.8 MB
		r := e.uploadRaw("author", "", big, "Content-Type", "application/pdf", "Content-Disposition", `attachment; filename="big.pdf"`)
		r.WantError(503, "rest_upload_storage_unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
		if !p.wasCut() {
			t.Fatal("the proxy never cut a connection: the test proved nothing")
		}
		if ids, _ := e.mediaIDs("administrator", ""); len(ids) != 0 {
			t.Errorf("records after a cut upload: %v", ids)
		}
		if left := srv.Objects(t, o.Bucket, ""); len(left) != 0 {
			t.Errorf("objects after a cut upload: %v", left)
		}
		// Once the storage is back, the same upload takes the same name:
		// nothing of the failed one is left reserved.
		good, err := media.NewS3(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		e.site.SetBlobs(good)
		m := e.uploadRaw("author", "", big, "Content-Type", "application/pdf", "Content-Disposition", `attachment; filename="big.pdf"`)
		m.WantStatus(201)
		if f := m.Object()["media_details"].(map[string]any)["file"]; f != nil && f != monthFolder()+"/big.pdf" {
			t.Errorf("file after retry = %v, want %s/big.pdf", f, monthFolder())
		}
		if src := m.Object()["source_url"].(string); !strings.HasSuffix(src, monthFolder()+"/big.pdf") {
			t.Errorf("source_url after retry = %s", src)
		}
	})
}

// TestMediaWhileRealS3IsDown stops the storage server: uploads are 503
// rest_upload_storage_unavailable with Retry-After and record nothing;
// reads of the API keep working.
func TestMediaWhileRealS3IsDown(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	e := newMediaEnv(t)
	o := srv.Bucket(t)
	blobs, err := media.NewS3(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	e.site.SetBlobs(blobs)
	before := e.png("author", "before.png", 20, 20, "")
	srv.Stop()

	r := e.uploadRaw("author", "", pngOf(t, 20, 20), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="during.png"`)
	r.WantError(503, "rest_upload_storage_unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	ids, _ := e.mediaIDs("administrator", "")
	if len(ids) != 1 || fmt.Sprint(ids[0]) != fmt.Sprint(before["id"]) {
		t.Errorf("records while the storage is down = %v, want only %v", ids, before["id"])
	}
	e.do("GET", fmt.Sprintf("%s/%v", mediaPath, before["id"]), "").WantStatus(200)
}

// cuttingProxy forwards TCP connections to a backend until limit bytes
// have gone upstream in total; then it closes every connection and stops
// accepting.
type cuttingProxy struct {
	addr    string
	ln      net.Listener
	backend string
	limit   int64

	mu    sync.Mutex
	sent  int64
	cut   bool
	conns []net.Conn
}

func newCuttingProxy(t *testing.T, backend string, limit int64) *cuttingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cuttingProxy{addr: ln.Addr().String(), ln: ln, backend: backend, limit: limit}
	t.Cleanup(func() { p.breakAll() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *cuttingProxy) serve(c net.Conn) {
	up, err := net.Dial("tcp", p.backend)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns = append(p.conns, c, up)
	p.mu.Unlock()
	go func() { _, _ = io.Copy(c, up) }()
	buf := make([]byte, 16<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.sent += int64(n)
			over := p.sent > p.limit
			p.mu.Unlock()
			if over {
				p.breakAll()
				return
			}
			if _, err := up.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// breakAll closes the listener and every connection.
func (p *cuttingProxy) breakAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

func (p *cuttingProxy) wasCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut && p.sent > p.limit
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
