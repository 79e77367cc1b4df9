package rest_test

import (
	"bytes"
	"crypto/md5"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/rest"
)

// uploadServer has one Upload route whose temporary files go to dir; its
// handler reports what it got and whether the file was still in place.
func uploadServer(t testing.TB, dir string) *rest.Server {
	t.Helper()
	s := rest.NewServer(rest.Config{MaxBodyBytes: 64, MaxUploadBytes: 4096,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.Register("svc/v2", "/files", &rest.Route{Upload: true,
		UploadTemp: func() (*os.File, error) { return os.CreateTemp(dir, ".upload-*") },
		Endpoints: []*rest.Endpoint{{Methods: rest.Creatable, Handler: func(r *rest.Request) (*rest.Response, error) {
			out := map[string]any{"title": r.String("title"), "form": len(r.Form), "body": len(r.Body)}
			if u := r.Upload; u != nil {
				b, err := os.ReadFile(u.File.Name())
				if err != nil {
					return nil, err
				}
				out["size"], out["file"], out["head"], out["name"] = u.Size, string(b), string(u.Head), u.Filename
				out["md5ok"] = u.MD5 == md5.Sum(b)
				out["multipart"] = u.Header != nil
			}
			return rest.NewResponse(201, out), nil
		}}}})
	return s
}

func postTo(t *testing.T, s *rest.Server, body io.Reader, ctype string, length int64) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest("POST", "http://example.test/api/svc/v2/files", body)
	req.ContentLength = length
	req.Header.Set("Content-Type", ctype)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	return w.Code, out
}

func tempFiles(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestUploadRouteStreamsTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := uploadServer(t, dir)
	data := strings.Repeat("0123456789", 300) // over MaxBodyBytes, under MaxUploadBytes

	code, out := postTo(t, s, strings.NewReader(data), "application/zip", -1)
	if code != 201 || out["file"] != data || out["size"] != float64(len(data)) || out["md5ok"] != true ||
		out["head"] != data[:rest.UploadHeadSize] || out["multipart"] != false || out["body"] != float64(0) {
		t.Fatalf("raw: %d %v", code, out)
	}

	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("title", "Before")
	fw, _ := mw.CreateFormFile("other", "x.txt") // not the file field: skipped
	_, _ = fw.Write([]byte("ignored"))
	fw, _ = mw.CreateFormFile("file", "dir/a.zip")
	_, _ = fw.Write([]byte(data))
	_ = mw.WriteField("caption", "After")
	_ = mw.Close()
	code, out = postTo(t, s, bytes.NewReader(b.Bytes()), mw.FormDataContentType(), int64(b.Len()))
	if code != 201 || out["file"] != data || out["md5ok"] != true || out["name"] != "a.zip" || out["multipart"] != true ||
		out["title"] != "Before" || out["form"] != float64(2) {
		t.Fatalf("multipart: %d %v", code, out)
	}
	if es := tempFiles(t, dir); len(es) != 0 {
		t.Errorf("temporary files left: %v", es)
	}
}

func TestUploadRouteLimitsAndErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := uploadServer(t, dir)
	big := strings.Repeat("x", 5000)
	code, out := postTo(t, s, strings.NewReader(big), "application/zip", -1)
	if code != 413 || out["code"] != "rest_request_too_large" {
		t.Errorf("raw over the limit: %d %v", code, out)
	}
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("file", "a.zip")
	_, _ = fw.Write([]byte(big))
	_ = mw.Close()
	code, out = postTo(t, s, bytes.NewReader(b.Bytes()), mw.FormDataContentType(), -1)
	if code != 413 || out["code"] != "rest_request_too_large" {
		t.Errorf("multipart over the limit: %d %v", code, out)
	}
	// Form fields are bounded by MaxBodyBytes.
	b.Reset()
	mw = multipart.NewWriter(&b)
	_ = mw.WriteField("title", strings.Repeat("t", 100))
	_ = mw.Close()
	code, out = postTo(t, s, bytes.NewReader(b.Bytes()), mw.FormDataContentType(), int64(b.Len()))
	if code != 400 || out["code"] != "rest_invalid_body" {
		t.Errorf("fields over the limit: %d %v", code, out)
	}
	// A body that breaks off mid-part.
	code, out = postTo(t, s, strings.NewReader("--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nabc"),
		"multipart/form-data; boundary=B", -1)
	if code != 400 || out["code"] != "rest_invalid_body" {
		t.Errorf("truncated multipart: %d %v", code, out)
	}
	code, out = postTo(t, s, strings.NewReader("x"), "multipart/form-data", 1)
	if code != 400 || out["code"] != "rest_invalid_body" {
		t.Errorf("no boundary: %d %v", code, out)
	}
	// JSON bodies are still read and parsed.
	code, out = postTo(t, s, strings.NewReader(`{"title":"J"}`), "application/json", -1)
	if code != 201 || out["title"] != "J" || out["size"] != nil {
		t.Errorf("json: %d %v", code, out)
	}
	if es := tempFiles(t, dir); len(es) != 0 {
		t.Errorf("temporary files left: %v", es)
	}
}
