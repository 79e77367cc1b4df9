package rest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/rest"
)

// slowServer serves an Upload route over a real listener whose read
// timeout (300 ms) is far shorter than the uploads below take; the route
// allows 300 ms plus a second per 1000 bytes.
func slowServer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s := rest.NewServer(rest.Config{MaxUploadBytes: 8192, UploadGrace: 300 * time.Millisecond, UploadMinRate: 1000,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.Register("svc/v2", "/files", &rest.Route{Upload: true,
		UploadTemp: func() (*os.File, error) { return os.CreateTemp(dir, ".upload-*") },
		Endpoints: []*rest.Endpoint{{Methods: rest.Creatable, Handler: func(r *rest.Request) (*rest.Response, error) {
			return rest.NewResponse(201, map[string]any{"size": r.Upload.Size}), nil
		}}}})
	ts := httptest.NewUnstartedServer(s)
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Config.WriteTimeout = 300 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	return strings.TrimPrefix(ts.URL, "http://")
}

// trickle sends a request with a body of size bytes (a raw body, or a
// multipart form holding it) in chunks of chunk bytes every gap, then
// reads the response's status and body.
func trickle(t *testing.T, addr string, multi bool, size, chunk int, gap time.Duration) (int, string) {
	t.Helper()
	body, ctype := bytes.Repeat([]byte("x"), size), "application/zip"
	if multi {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", "slow.zip")
		_, _ = fw.Write(body)
		_ = mw.Close()
		body, ctype = b.Bytes(), mw.FormDataContentType()
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/svc/v2/files HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ctype, len(body))
	for len(body) > 0 {
		n := min(chunk, len(body))
		if _, err := c.Write(body[:n]); err != nil {
			break // the server gave up on the body
		}
		body = body[n:]
		time.Sleep(gap)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestUploadSlowerThanReadTimeoutAtTheMinimumRateSucceeds(t *testing.T) {
	t.Parallel()
	addr := slowServer(t)
	for _, multi := range []bool{false, true} {
		// 3000 bytes over about 1.5 s (2000 B/s): five read timeouts long,
		// but above the minimum rate.
		code, body := trickle(t, addr, multi, 3000, 300, 150*time.Millisecond)
		var out map[string]any
		_ = json.Unmarshal([]byte(body), &out)
		if code != 201 || out["size"] != float64(3000) {
			t.Fatalf("multipart=%v: %d %s", multi, code, body)
		}
	}
}

func TestUploadBelowTheMinimumRateIsCutOffWith408(t *testing.T) {
	t.Parallel()
	addr := slowServer(t)
	for _, multi := range []bool{false, true} {
		// 500 B/s: half the minimum rate.
		code, body := trickle(t, addr, multi, 3000, 100, 200*time.Millisecond)
		var out map[string]any
		_ = json.Unmarshal([]byte(body), &out)
		if code != http.StatusRequestTimeout || out["code"] != "rest_upload_timeout" {
			t.Fatalf("multipart=%v: %d %s", multi, code, body)
		}
	}
	// A body that stalls after its first bytes (slowloris).
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /api/svc/v2/files HTTP/1.1\r\nHost: x\r\nContent-Type: application/zip\r\nContent-Length: 3000\r\n\r\nxxxxxxxxxx")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("stalled body: no response: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %d", resp.StatusCode)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("stalled body held the connection for %s", d)
	}
}
