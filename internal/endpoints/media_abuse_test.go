package endpoints_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/testkit"
)

// rawUpload posts data as a raw body named name.
func (e *mediaEnv) rawUpload(login, name, ctype string, data []byte) *testkit.Response {
	e.T.Helper()
	return e.uploadRaw(login, "", data, "Content-Type", ctype, "Content-Disposition", `attachment; filename="`+name+`"`)
}

func TestMediaActiveTypesNeedUnfilteredHTML(t *testing.T) {
	// The default list has js and css; HTML, SVG and XML are opted in.
	e := newMediaEnv(t, func(c *config.Config) {
		c.Media.AllowedTypes = []string{"png", "txt", "pdf", "js", "css", "html", "htm", "svg", "xml", "dfxp=application/ttaf+xml"}
	})
	files := []struct{ name, ctype, body string }{
		{"app.js", "application/javascript", "alert(document.cookie)"},
		{"site.css", "text/css", "body{background:url(javascript:alert(1))}"},
		{"page.html", "text/html", "<html><script>alert(1)</script></html>"},
		{"page.htm", "text/html", "<html></html>"},
		{"logo.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`},
		{"data.xml", "application/xml", `<?xml version="1.0"?><r/>`},
		{"subs.dfxp", "application/ttaf+xml", `<?xml version="1.0"?><tt/>`},
	}
	// An author has no unfiltered_html: 400, on both upload forms, and
	// nothing is stored.
	for _, f := range files {
		m := e.rawUpload("author", f.name, f.ctype, []byte(f.body)).WantError(400, "rest_upload_invalid_type")
		if !strings.Contains(m["message"].(string), "not allowed to upload this file type") {
			t.Errorf("%s: message %v", f.name, m["message"])
		}
		e.uploadForm("author", f.name, []byte(f.body), nil).WantError(400, "rest_upload_invalid_type")
	}
	// Server-side scripts and Flash are refused whatever the list says.
	for _, name := range []string{"shell.php", "shell.phtml", "shell.php5", "shell.phar", "inc.shtml", "old.swf"} {
		e.rawUpload("author", name, "application/octet-stream", []byte("<?php system($_GET['c']);")).WantError(400, "rest_upload_invalid_type")
	}
	if got := e.files(); len(got) != 0 {
		t.Fatalf("refused uploads left files: %v", got)
	}
	// An editor and an administrator have unfiltered_html.
	for _, login := range []string{"editor", "administrator"} {
		for _, f := range files {
			r := e.rawUpload(login, f.name, f.ctype, []byte(f.body))
			r.WantStatus(201)
			if r.Object()["mime_type"] != f.ctype {
				t.Errorf("%s %s: mime_type %v", login, f.name, r.Object()["mime_type"])
			}
		}
		e.rawUpload(login, "shell.php", "application/octet-stream", []byte("<?php")).WantError(400, "rest_upload_invalid_type")
	}
	// Plain files stay open to authors.
	e.rawUpload("author", "notes.txt", "text/plain", []byte("hello")).WantStatus(201)
	e.rawUpload("author", "a.png", "image/png", pngOf(t, 8, 8)).WantStatus(201)
}

func TestMediaHTMLOrSVGBodyNamedAsImageIsRefused(t *testing.T) {
	e := newMediaEnv(t)
	bodies := map[string]string{
		"photo.jpg":   "<!DOCTYPE html><html><script>alert(1)</script></html>",
		"photo.png":   `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"photo.gif":   `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`,
		"clip.mp4":    "<html><body onload=alert(1)>",
		"report.pdf":  `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>`,
		"notes.txt":   "<script>alert(1)</script>",
		"feed.csv":    `<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="#"?><x/>`,
		"archive.zip": "\x7fELF\x02\x01\x01\x00",
	}
	for _, login := range []string{"author", "administrator"} {
		for name, body := range bodies {
			e.rawUpload(login, name, "application/octet-stream", []byte(body)).WantError(400, "rest_upload_sniffed_type_not_allowed")
			e.uploadForm(login, name, []byte(body), nil).WantError(400, "rest_upload_sniffed_type_not_allowed")
		}
	}
	if got := e.files(); len(got) != 0 {
		t.Fatalf("refused uploads left files: %v", got)
	}
}

func TestMediaImageMetaIsSanitizedAsPlainText(t *testing.T) {
	e := newMediaEnv(t)
	data := iptcJPEG(t, 64, 48, map[byte][]string{
		5:   {`<img src=x onerror=alert(1)>Sunset`},
		120: {"<script>alert(1)</script>Boats\n<b>at dawn</b>"},
		25:  {`<svg onload=alert(1)>`, "harbour <i>boats</i>"},
		110: {`<a href="javascript:alert(1)">Folio Press</a>`},
		116: {`&copy; 2024 <iframe src=//evil>`},
	})
	r := e.rawUpload("author", "sunset.jpg", "image/jpeg", data)
	r.WantStatus(201)
	obj := r.Object()
	meta := obj["media_details"].(map[string]any)["image_meta"].(map[string]any)
	want := map[string]any{"title": "Sunset", "caption": "Boats\nat dawn", "credit": "Folio Press", "copyright": "&copy; 2024"}
	for k, v := range want {
		if meta[k] != v {
			t.Errorf("image_meta.%s = %q, want %q", k, meta[k], v)
		}
	}
	if kw := meta["keywords"].([]any); len(kw) != 1 || kw[0] != "harbour boats" {
		t.Errorf("keywords = %v", kw)
	}
	// The title and caption defaults come from the sanitised values.
	if title := obj["title"].(map[string]any)["raw"]; title != "Sunset" {
		t.Errorf("title.raw = %q", title)
	}
	// (caption is a string in the spec's names.)
	if caption := obj["caption"]; caption != "Boats\nat dawn" {
		t.Errorf("caption.raw = %q", caption)
	}
	for _, bad := range []string{"onerror", "<script", "javascript:", "<svg", "<iframe"} {
		if strings.Contains(string(r.Body), bad) {
			t.Errorf("response still carries %q: %s", bad, r.Body)
		}
	}
}

// gated serves data; a read past its first 4096 bytes (the decoder's)
// waits until open is closed, and closes hit.
type gated struct {
	data      []byte
	open, hit chan struct{}
	once      sync.Once
}

func (g *gated) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > 4096 {
		g.once.Do(func() { close(g.hit) })
		select {
		case <-g.open:
		case <-time.After(10 * time.Second):
		}
	}
	return bytes.NewReader(g.data).ReadAt(p, off)
}

func noisyPNG(t *testing.T, w, h int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMediaImageQueueFullIs503WithRetryAfter(t *testing.T) {
	queue := 0
	e := newMediaEnv(t, func(c *config.Config) {
		c.Media.ImageWorkers = 1
		c.Media.ImageQueue = &queue
	})
	// Another upload holds the only worker.
	busy := noisyPNG(t, 200, 200)
	g := &gated{data: busy, open: make(chan struct{}), hit: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := e.site.ImageProcessor().ProcessFile(context.Background(), g, int64(len(busy)), "image/png")
		done <- err
	}()
	<-g.hit
	r := e.rawUpload("author", "wait.png", "image/png", pngOf(t, 40, 30))
	r.WantError(503, "rest_upload_queue_full")
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("no Retry-After: %v", r.Header)
	}
	// Files that are not images do not queue.
	e.rawUpload("author", "notes.txt", "text/plain", []byte("hello")).WantStatus(201)
	close(g.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.files(); len(got) != 1 {
		t.Errorf("files after a refused image: %v", got)
	}
	e.rawUpload("author", "now.png", "image/png", pngOf(t, 40, 30)).WantStatus(201)
}

// pngDeclaring is a PNG whose header declares w×h pixels at the given bit
// depth and colour type, with a token of image data.
func pngDeclaring(w, h uint32, depth, ctype byte) []byte {
	chunk := func(typ string, data []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(append(b, typ...), data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	ihdr = append(ihdr, depth, ctype, 0, 0, 0)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(make([]byte, 64))
	_ = zw.Close()
	out := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", z.Bytes())...)
	return append(out, chunk("IEND", nil)...)
}

func TestMediaImageOverTheMemoryBudgetIsRefused(t *testing.T) {
	e := newMediaEnv(t, func(c *config.Config) { c.Media.MaxImagePixels = 50_000_000 })
	// 16-bit 7000×7000: under the pixel limit, 392 MB decoded.
	start := time.Now()
	m := e.rawUpload("author", "huge.png", "image/png", pngDeclaring(7000, 7000, 16, 2)).WantError(500, "rest_upload_sideload_error")
	if !strings.Contains(m["message"].(string), "more memory than the site allows") {
		t.Errorf("message %v", m["message"])
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("refusing took %s", d)
	}
	if got := e.files(); len(got) != 0 {
		t.Fatalf("files left: %v", got)
	}
}
