package endpoints_test

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/testkit"
)

// zipStream produces size bytes that sniff as a zip archive, generated on
// the fly so that the client holds none of them.
type zipStream struct{ off, size int64 }

func (z *zipStream) Read(p []byte) (int, error) {
	if z.off >= z.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if rest := z.size - z.off; n > rest {
		n = rest
	}
	for i := int64(0); i < n; i++ {
		o := z.off + i
		if o < 4 {
			p[i] = "PK\x03\x04"[o]
		} else {
			p[i] = byte(o*7 + o>>9)
		}
	}
	z.off += n
	return int(n), nil
}

func zipSum(size int64) string {
	h := md5.New()
	_, _ = io.Copy(h, &zipStream{size: size})
	return hex.EncodeToString(h.Sum(nil))
}

// bigUploads is the production upload limit.
func bigUploads(c *config.Config) { c.Limits.MaxUploadBytes = config.DefaultMaxUploadBytes }

// allocatedBy returns how many bytes of heap fn allocated, in all
// goroutines (the server's included).
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Uploads are streamed to a temporary file and renamed into place: the
// memory an upload takes does not grow with the file's size. Reading a
// 40 MiB body into memory allocates at least 40 MiB.
func TestMediaUploadStreamsLargeFiles(t *testing.T) {
	e := newMediaEnv(t, bigUploads)
	const size = 40 << 20
	sum := zipSum(size)
	const bound = 8 << 20

	post := func(body io.Reader, ctype string, headers ...string) *testkit.Response {
		t.Helper()
		req, err := http.NewRequest("POST", e.URL+mediaPath, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", ctype)
		req.SetBasicAuth("author", e.Users["author"].AppPassword)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := e.HTTP.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return &testkit.Response{T: t, Status: res.StatusCode, Header: res.Header, Body: data}
	}
	checkFile := func(r *testkit.Response, name string) {
		t.Helper()
		r.WantStatus(201)
		m := r.Object()
		if m["mime_type"] != "application/zip" || m["media_type"] != "file" {
			t.Errorf("type = %v / %v", m["mime_type"], m["media_type"])
		}
		p := filepath.Join(e.uploads, monthFolder(), name)
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		h := md5.New()
		n, err := io.Copy(h, f)
		if err != nil || n != size || hex.EncodeToString(h.Sum(nil)) != sum {
			t.Errorf("stored file: %d bytes, md5 %x, %v; want %d bytes, md5 %s", n, h.Sum(nil), err, size, sum)
		}
	}

	var raw *testkit.Response
	got := allocatedBy(func() {
		raw = post(&zipStream{size: size}, "application/zip",
			"Content-Disposition", `attachment; filename="big.zip"`, "Content-MD5", sum)
	})
	checkFile(raw, "big.zip")
	t.Logf("raw upload of %d MiB allocated %.2f MiB", size>>20, float64(got)/(1<<20))
	if got > bound {
		t.Errorf("raw upload of %d MiB allocated %d bytes, want under %d", size>>20, got, bound)
	}

	// Multipart, with fields before and after the file part.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		_ = mw.WriteField("title", "Big archive")
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="big-form.zip"`)
		h.Set("Content-Type", "application/zip")
		part, err := mw.CreatePart(h)
		if err == nil {
			_, err = io.Copy(part, &zipStream{size: size})
		}
		if err == nil {
			err = mw.WriteField("caption", "Caption after the file")
		}
		if err == nil {
			err = mw.WriteField("alt_text", "Alt")
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	var form *testkit.Response
	got = allocatedBy(func() { form = post(pr, mw.FormDataContentType()) })
	checkFile(form, "big-form.zip")
	m := form.Object()
	if m["title"].(map[string]any)["raw"] != "Big archive" || m["caption"] != "Caption after the file" || m["alt_text"] != "Alt" {
		t.Errorf("fields = %v / %v / %v", m["title"], m["caption"], m["alt_text"])
	}
	t.Logf("multipart upload of %d MiB allocated %.2f MiB", size>>20, float64(got)/(1<<20))
	if got > bound {
		t.Errorf("multipart upload of %d MiB allocated %d bytes, want under %d", size>>20, got, bound)
	}

	// A wrong Content-MD5 is still refused, and nothing is left behind.
	post(&zipStream{size: 1 << 20}, "application/zip", "Content-Disposition", `attachment; filename="bad.zip"`,
		"Content-MD5", strings.Repeat("0", 32)).WantError(412, "rest_upload_hash_mismatch")
	// Past the limit: 413 as before, also for a body of unknown length.
	req, _ := http.NewRequest("POST", e.URL+mediaPath, &zipStream{size: 65 << 20})
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/zip")
	req.Header.Set("Content-Disposition", `attachment; filename="huge.zip"`)
	req.SetBasicAuth("author", e.Users["author"].AppPassword)
	res, err := e.HTTP.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 413 || !strings.Contains(string(body), `"rest_request_too_large"`) {
		t.Errorf("over the limit: %d %s", res.StatusCode, body)
	}
	want := []string{monthFolder() + "/big-form.zip", monthFolder() + "/big.zip"}
	if files := e.files(); fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("files = %v, want %v (no temporary file left)", files, want)
	}
}

// A temporary upload file left by a crash (a streamed upload, or a Put of
// a size into its folder) is swept once it has not been written to for
// the given age; files of uploads in progress and stored files stay.
func TestMediaSweeperRemovesStaleTemporaryFiles(t *testing.T) {
	e := newMediaEnv(t)
	stored := e.png("author", "pic.png", 40, 30, "")["media_details"].(map[string]any)["file"].(string)
	old := time.Now().Add(-2 * time.Hour)
	var leftovers []string
	for _, rel := range []string{".upload-123456", monthFolder() + "/.upload-654321"} {
		p := filepath.Join(e.uploads, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte("half an upload"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		leftovers = append(leftovers, rel)
	}
	inProgress := filepath.Join(e.uploads, ".upload-777")
	if err := os.WriteFile(inProgress, []byte("still arriving"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := e.site.SweepUploadTemps(time.Hour); err != nil || n != len(leftovers) {
		t.Fatalf("sweep = %d, %v; want %d", n, err, len(leftovers))
	}
	want := []string{".upload-777", stored}
	if files := e.files(); fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("files after sweep = %v, want %v", files, want)
	}
	if n, err := e.site.SweepUploadTemps(time.Hour); err != nil || n != 0 {
		t.Errorf("second sweep = %d, %v", n, err)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// A caller who may not upload media at all is refused before the file is
// received (the create endpoint's UploadGate): anonymous callers get 401,
// subscribers 403, both rest_cannot_create, and the handler reads none of
// the body; nothing is stored. Served in-process so that the count is of
// what the server read, not what the client managed to send, by the
// endpoints' REST server with HTTP Basic authentication only: the site's
// browser sessions look for a nonce field in the first MiB of a form body
// before any endpoint runs, which is not the gate's doing.
func TestMediaUploadRefusedBeforeTheFileIsRead(t *testing.T) {
	e := newMediaEnv(t, bigUploads)
	h, _ := e.api(e.db, nil)
	const size = 32 << 20
	for _, tc := range []struct {
		login, ctype string
		status       int
	}{
		{"", "application/zip", 401},
		{"subscriber", "application/zip", 403},
		{"", "multipart/form-data; boundary=x", 401},
		{"subscriber", "multipart/form-data; boundary=x", 403},
	} {
		body := &countingReader{r: &zipStream{size: size}}
		req := httptest.NewRequest("POST", mediaPath, body)
		req.ContentLength = size
		req.Header.Set("Content-Type", tc.ctype)
		req.Header.Set("Content-Disposition", `attachment; filename="x.zip"`)
		if tc.login != "" {
			req.SetBasicAuth(tc.login, e.Users[tc.login].AppPassword)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		r := &testkit.Response{T: t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
		r.WantError(tc.status, "rest_cannot_create")
		if body.n != 0 {
			t.Errorf("%q %s: the server read %d bytes of the refused file", tc.login, tc.ctype, body.n)
		}
	}
	if files := e.files(); len(files) != 0 {
		t.Errorf("files = %v, want none", files)
	}
	// An author still uploads (the gate lets callers who may upload through).
	req := httptest.NewRequest("POST", mediaPath, &zipStream{size: 1 << 20})
	req.Header.Set("Content-Type", "application/zip")
	req.Header.Set("Content-Disposition", `attachment; filename="ok.zip"`)
	req.SetBasicAuth("author", e.Users["author"].AppPassword)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	(&testkit.Response{T: t, Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}).WantStatus(201)
}
