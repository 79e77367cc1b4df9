package media_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/folio-server/folio/internal/media"
)

func TestParseDispositionRFC6266Forms(t *testing.T) {
	cases := []struct {
		values []string
		want   string
	}{
		{[]string{`attachment; filename="image.png"`}, "image.png"},
		{[]string{`attachment; filename=image.png`}, "image.png"},
		{[]string{`inline; filename="foo.html"`}, "foo.html"},
		{[]string{`form-data; name="file"; filename="up.jpg"`}, "up.jpg"},
		{[]string{`unknown-type; filename="x.gif"`}, "x.gif"},
		// Unquoted names keep inner spaces; keys and values are trimmed.
		{[]string{"attachment; filename = my foo picture.jpg"}, "my foo picture.jpg"},
		{[]string{"attachment;\tfilename=\ttabbed.png\t"}, "tabbed.png"},
		// Without ";" a value is skipped (beta13).
		{[]string{`filename="foo.jpg"`}, ""},
		{[]string{`attachment`}, ""},
		// Quoted strings may hold ";" and escapes.
		{[]string{`attachment; filename="a;b \"c\".png"`}, `a;b "c".png`},
		// RFC 6266 §5 examples: filename* (RFC 8187) wins over filename.
		{[]string{`attachment; filename*= UTF-8''%e2%82%ac%20rates.png`}, "€ rates.png"},
		{[]string{`attachment; filename="EURO rates.png"; filename*=utf-8''%e2%82%ac%20rates.png`}, "€ rates.png"},
		{[]string{`attachment; filename*=utf-8''%e2%82%ac%20rates.png; filename="EURO rates.png"`}, "€ rates.png"},
		{[]string{`attachment; filename*=iso-8859-1'en'%A3%20rates.png`}, "£ rates.png"},
		// An undecodable filename* falls back to filename.
		{[]string{`attachment; filename="plain.png"; filename*=koi8-r''%e2.png`}, "plain.png"},
		// Every value is examined; the last one with a name wins.
		{[]string{`attachment; filename="first.png"`, `attachment; filename="second.png"`}, "second.png"},
		{[]string{`attachment; filename="first.png"`, `attachment`}, "first.png"},
	}
	for _, tc := range cases {
		if got := media.ParseDisposition(tc.values); got != tc.want {
			t.Errorf("ParseDisposition(%q) = %q, want %q", tc.values, got, tc.want)
		}
	}
}

func TestSanitizeFileNameStripsPathsAndUnsafeCharacters(t *testing.T) {
	cases := map[string]string{
		"../../etc/passwd.png":        "passwd.png",
		`C:\Users\me\Photo.JPG`:       "Photo.jpg",
		"my foo picture.jpg":          "my-foo-picture.jpg",
		"a<b>c?d*e|f.png":             "abcdef.png",
		"  --weird name--.png":        "weird-name.png",
		"€ rates.png":                 "€-rates.png",
		".htaccess":                   "htaccess",
		"name\x00with\x01control.gif": "namewithcontrol.gif",
		"double..dots.png":            "double..dots.png",
		"quote'and\"semi;colon.png":   "quoteandsemicolon.png",
		"percent%20encoded+plus.png":  "percent20encodedplus.png",
		"/":                           "",
	}
	for in, want := range cases {
		if got := media.SanitizeFileName(in); got != want {
			t.Errorf("SanitizeFileName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := media.Candidate("photo.jpg", 2); got != "photo-2.jpg" {
		t.Errorf("Candidate = %q", got)
	}
	if got := media.SizedName("photo.jpg", "jpg", 150, 100); got != "photo-150x100.jpg" {
		t.Errorf("SizedName = %q", got)
	}
}

func TestTypesCheckSniffsContent(t *testing.T) {
	types := media.DefaultTypes()
	pngData := pngBytes(t, 8, 8)
	cases := []struct {
		name    string
		data    []byte
		want    string
		mime    string
		wantErr error
	}{
		{"a.png", pngData, "a.png", "image/png", nil},
		// Image content corrects a wrong image extension.
		{"a.jpg", pngData, "a.png", "image/png", nil},
		{"notes.txt", []byte("hello"), "notes.txt", "text/plain", nil},
		{"empty.txt", nil, "", "", media.ErrEmptyFile},
		// Not on the allowlist.
		{"setup.exe", []byte("MZ\x90\x00"), "", "", media.ErrTypeNotAllowed},
		{"noext", []byte("hello"), "", "", media.ErrTypeNotAllowed},
		{"page.html", []byte("<html></html>"), "", "", media.ErrTypeNotAllowed},
		{"logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "", "", media.ErrTypeNotAllowed},
		// Allowed extensions with content of an active kind they do not
		// declare.
		{"evil.txt", []byte("<html><script>alert(1)</script></html>"), "", "", media.ErrSniffedType},
		{"evil.png", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script/></svg>`), "", "", media.ErrSniffedType},
		{"evil.jpg", []byte(`<!DOCTYPE html><img src=x onerror=alert(1)>`), "", "", media.ErrSniffedType},
		{"evil.gif", []byte(`<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>`), "", "", media.ErrSniffedType},
		{"feed.txt", []byte(`<?xml version="1.0"?><?xml-stylesheet href="x.xsl"?><r/>`), "", "", media.ErrSniffedType},
		{"movie.mp4", []byte("FWS\x0a\x10\x00\x00\x00\x78\x00"), "", "", media.ErrSniffedType},
		{"evil.pdf", []byte("\x7fELF\x02\x01\x01"), "", "", media.ErrSniffedType},
		{"run.csv", []byte("#!/bin/sh\nrm -rf /"), "", "", media.ErrSniffedType},
		// XML content under an XML type is what it says.
		{"subs.dfxp", []byte(`<?xml version="1.0"?><tt xmlns="http://www.w3.org/ns/ttml"/>`), "subs.dfxp", "application/ttaf+xml", nil},
	}
	for _, tc := range cases {
		name, mt, err := types.Check(tc.name, tc.data, true)
		if !errors.Is(err, tc.wantErr) || name != tc.want || mt != tc.mime {
			t.Errorf("Check(%q) = %q, %q, %v; want %q, %q, %v", tc.name, name, mt, err, tc.want, tc.mime, tc.wantErr)
		}
	}
	if got := strings.Join(types.Categories(), ","); got != "application,audio,image,text,video" {
		t.Errorf("Categories = %s", got)
	}
}

func TestTypesActiveTypesNeedUnfilteredHTML(t *testing.T) {
	types, err := media.ParseTypes([]string{"png", "txt", "js", "css", "html", "htm", "xhtml", "svg", "svgz", "xml", "xsl", "swf", "dfxp=application/ttaf+xml", "mjs"})
	if err != nil {
		t.Fatal(err)
	}
	active := map[string][]byte{
		"app.js": []byte("alert(1)"), "site.css": []byte("body{}"), "page.html": []byte("<html></html>"),
		"page.htm": []byte("<html></html>"), "page.xhtml": []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>`),
		"logo.svg": []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "logo.svgz": []byte("\x1f\x8b\x08"),
		"data.xml": []byte(`<?xml version="1.0"?><r/>`), "t.xsl": []byte(`<?xml version="1.0"?><xsl:stylesheet/>`),
		"old.swf": []byte("FWS\x0a\x10\x00\x00\x00"), "subs.dfxp": []byte(`<?xml version="1.0"?><tt/>`), "mod.mjs": []byte("export {}"),
	}
	for name, data := range active {
		if _, _, err := types.Check(name, data, false); !errors.Is(err, media.ErrActiveType) {
			t.Errorf("untrusted %s: %v, want ErrActiveType", name, err)
		}
		if _, _, err := types.Check(name, data, true); err != nil {
			t.Errorf("trusted %s (on the allowlist): %v", name, err)
		}
	}
	// Active extensions are refused for untrusted callers even when the
	// allowlist does not have them, and server-side scripts for everyone.
	def := media.DefaultTypes()
	for _, name := range []string{"x.php", "x.phtml", "x.php5", "x.phar", "x.shtml", "x.svg", "x.html", "x.js", "x.css"} {
		if _, _, err := def.Check(name, []byte("x"), false); !errors.Is(err, media.ErrActiveType) {
			t.Errorf("untrusted %s: %v, want ErrActiveType", name, err)
		}
	}
	for _, name := range []string{"x.php", "x.phtml", "x.php7", "x.phar", "x.shtml"} {
		if _, _, err := def.Check(name, []byte("<?php echo 1;"), true); !errors.Is(err, media.ErrActiveType) {
			t.Errorf("trusted %s: %v, want ErrActiveType", name, err)
		}
	}
	for _, bad := range []string{"php", "phtml=text/plain", "phar", "shtml"} {
		if _, err := media.ParseTypes([]string{bad}); err == nil {
			t.Errorf("ParseTypes(%q) accepted a server-side script", bad)
		}
	}
	// Plain files stay allowed for everyone.
	if _, _, err := types.Check("a.txt", []byte("hello"), false); err != nil {
		t.Errorf("untrusted txt: %v", err)
	}
}

func TestServedInlineOnlyForMediaAndPDF(t *testing.T) {
	for mt, want := range map[string]bool{
		"image/png": true, "image/jpeg": true, "video/mp4": true, "audio/mpeg": true, "application/pdf": true,
		"image/svg+xml": false, "text/html": false, "text/plain": false, "application/javascript": false,
		"text/css": false, "application/zip": false, "application/ttaf+xml": false, "application/octet-stream": false,
	} {
		if got := media.ServedInline(mt); got != want {
			t.Errorf("ServedInline(%s) = %v, want %v", mt, got, want)
		}
	}
}

func TestTypesAllowlistIsConfigurable(t *testing.T) {
	types, err := media.ParseTypes([]string{"png", "html", "svg", "dat=application/x-folio"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := types.Check("a.html", []byte("<html></html>"), true); err != nil {
		t.Errorf("html opted in: %v", err)
	}
	if _, mt, err := types.Check("a.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), true); err != nil || mt != "image/svg+xml" {
		t.Errorf("svg opted in: %q %v", mt, err)
	}
	if _, mt, err := types.Check("x.dat", []byte("data"), false); err != nil || mt != "application/x-folio" {
		t.Errorf("custom type: %q %v", mt, err)
	}
	if _, _, err := types.Check("a.jpg", jpegBytes(t, 4, 4), true); !errors.Is(err, media.ErrTypeNotAllowed) {
		t.Errorf("jpg not in the list: %v", err)
	}
	for _, bad := range []string{"", "weird", "x=notamime", "a/b"} {
		if _, err := media.ParseTypes([]string{bad}); err == nil {
			t.Errorf("ParseTypes(%q) accepted", bad)
		}
	}
}

type sizeWant struct {
	name string
	w, h int
}

func TestProcessGeneratesSizesNeverUpscaled(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 50_000_000, Workers: 2})
	ctx := context.Background()
	cases := []struct {
		what  string
		data  []byte
		mime  string
		w, h  int
		sizes []sizeWant
		out   string
	}{
		{"png 1200x800", pngBytes(t, 1200, 800), "image/png", 1200, 800,
			[]sizeWant{{"thumbnail", 150, 150}, {"medium", 300, 200}, {"medium_large", 768, 512}, {"large", 1024, 683}}, "image/png"},
		{"jpeg 800x1200", jpegBytes(t, 800, 1200), "image/jpeg", 800, 1200,
			[]sizeWant{{"thumbnail", 150, 150}, {"medium", 200, 300}, {"medium_large", 768, 1152}, {"large", 683, 1024}}, "image/jpeg"},
		{"gif 400x100", gifBytes(t, 400, 100), "image/gif", 400, 100,
			[]sizeWant{{"thumbnail", 150, 100}, {"medium", 300, 75}}, "image/gif"},
		{"png 100x100 smaller than every size", pngBytes(t, 100, 100), "image/png", 100, 100, nil, ""},
		{"png 300x200 exactly medium", pngBytes(t, 300, 200), "image/png", 300, 200,
			[]sizeWant{{"thumbnail", 150, 150}}, "image/png"},
		{"webp 1200x800", webpBytes(t, 1200, 800), "image/webp", 1200, 800,
			[]sizeWant{{"thumbnail", 150, 150}, {"medium", 300, 200}, {"medium_large", 768, 512}, {"large", 1024, 683}}, "image/webp"},
		{"webp lossless 1x1", webpLossless, "image/webp", 1, 1, nil, ""},
		{"webp lossy 1x1", webpLossy, "image/webp", 1, 1, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			info, err := p.Process(ctx, tc.data, tc.mime)
			if err != nil {
				t.Fatal(err)
			}
			if info.Width != tc.w || info.Height != tc.h {
				t.Fatalf("dims = %dx%d, want %dx%d", info.Width, info.Height, tc.w, tc.h)
			}
			if len(info.Sizes) != len(tc.sizes) {
				t.Fatalf("sizes = %+v, want %+v", names(info.Sizes), tc.sizes)
			}
			for i, s := range tc.sizes {
				got := info.Sizes[i]
				if got.Name != s.name || got.Width != s.w || got.Height != s.h || got.Mime != tc.out {
					t.Errorf("size %d = %s %dx%d %s, want %s %dx%d %s", i, got.Name, got.Width, got.Height, got.Mime, s.name, s.w, s.h, tc.out)
				}
				cfg, format, err := image.DecodeConfig(bytes.NewReader(got.Data))
				if err != nil || cfg.Width != s.w || cfg.Height != s.h || "image/"+format != tc.out {
					t.Errorf("size %s encodes %s %dx%d (%v)", s.name, format, cfg.Width, cfg.Height, err)
				}
			}
		})
	}
}

func names(rs []media.Rendition) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// webpLossless and webpLossy are 1×1 WebP images (the well-known feature
// probes), decoded through golang.org/x/image/webp.
var (
	webpLossless, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	webpLossy, _    = base64.StdEncoding.DecodeString("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA")
)

func TestProcessHonoursExifOrientation(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 50_000_000, Workers: 1})
	// Stored 400×200, left half red; orientation 6 = turn 90° clockwise,
	// so it displays 200×400 with red on top.
	info, err := p.Process(context.Background(), jpegWithOrientation(t, 400, 200, 6), "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != 200 || info.Height != 400 {
		t.Fatalf("displayed dims = %dx%d, want 200x400", info.Width, info.Height)
	}
	if info.Meta.Orientation != "6" || info.Meta.Camera != "FolioCam" {
		t.Errorf("image_meta = %+v", info.Meta)
	}
	var medium *media.Rendition
	for i := range info.Sizes {
		if info.Sizes[i].Name == "medium" {
			medium = &info.Sizes[i]
		}
	}
	if medium == nil || medium.Width != 150 || medium.Height != 300 {
		t.Fatalf("medium = %+v", medium)
	}
	img, err := jpeg.Decode(bytes.NewReader(medium.Data))
	if err != nil {
		t.Fatal(err)
	}
	top, bottom := img.At(75, 20), img.At(75, 280)
	if r, _, b, _ := top.RGBA(); r < b {
		t.Errorf("top of turned image is not red: %v", top)
	}
	if r, _, b, _ := bottom.RGBA(); b < r {
		t.Errorf("bottom of turned image is not blue: %v", bottom)
	}
}

func TestProcessRefusesDecompressionBombs(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 1_000_000, Workers: 1})
	_, err := p.Process(context.Background(), pngClaiming(t, 50000, 50000), "image/png")
	if !errors.Is(err, media.ErrTooManyPixels) {
		t.Fatalf("err = %v, want ErrTooManyPixels", err)
	}
	_, err = p.Process(context.Background(), []byte("\x89PNG\r\n\x1a\ngarbage"), "image/png")
	if !errors.Is(err, media.ErrBadImage) {
		t.Fatalf("err = %v, want ErrBadImage", err)
	}
}

func TestProcessSemaphoreBoundsConcurrency(t *testing.T) {
	p := media.NewProcessor(media.ProcessorConfig{MaxPixels: 50_000_000, Workers: 1})
	data := pngBytes(t, 600, 600)
	// With one slot taken, a request whose context ends gives up waiting.
	var wg sync.WaitGroup
	release := make(chan struct{})
	started := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		close(started)
		_, _ = p.Process(ctx, data, "image/png")
		<-release
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	// Either the first finished already (slot free: success) or the slot
	// is held and the timeout ends the wait.
	if _, err := p.Process(ctx, data, "image/png"); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	close(release)
	wg.Wait()
}

// blobSuite runs the same checks against any Blobs implementation.
func blobSuite(t *testing.T, b media.Blobs) {
	ctx := context.Background()
	data := []byte("hello, blob")
	if ok, err := b.Exists(ctx, "2024/05/a.txt"); err != nil || ok {
		t.Fatalf("Exists before put = %v, %v", ok, err)
	}
	if _, err := b.Open(ctx, "2024/05/a.txt"); !errors.Is(err, media.ErrNotExist) {
		t.Fatalf("Open missing = %v", err)
	}
	if err := b.Put(ctx, "2024/05/a.txt", bytes.NewReader(data), int64(len(data)), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Exists(ctx, "2024/05/a.txt"); err != nil || !ok {
		t.Fatalf("Exists after put = %v, %v", ok, err)
	}
	obj, err := b.Open(ctx, "2024/05/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if obj.Size() != int64(len(data)) || obj.ModTime().IsZero() {
		t.Errorf("size %d mod %v", obj.Size(), obj.ModTime())
	}
	if _, err := obj.Seek(7, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(obj)
	obj.Close()
	if string(rest) != "blob" {
		t.Errorf("after seek read %q", rest)
	}
	// A failed write (short body) leaves nothing visible.
	if err := b.Put(ctx, "2024/05/short.txt", strings.NewReader("abc"), 10, "text/plain"); err == nil {
		t.Error("short write succeeded")
	}
	if ok, _ := b.Exists(ctx, "2024/05/short.txt"); ok {
		t.Error("a failed write left an object")
	}
	for _, bad := range []string{"../x", "/abs", "a//b", "a/./b", ""} {
		if err := b.Put(ctx, bad, strings.NewReader("x"), 1, "text/plain"); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
	}
	if err := b.Delete(ctx, "2024/05/a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, "2024/05/a.txt"); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if ok, _ := b.Exists(ctx, "2024/05/a.txt"); ok {
		t.Error("deleted blob still exists")
	}
}

func TestLocalBlobs(t *testing.T) {
	b, err := media.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobSuite(t, b)
}

// newFakeS3 starts an in-process S3 server (gofakes3 speaks the S3 wire
// protocol) with an empty bucket.
func newFakeS3(t *testing.T, bucket string) media.S3Options {
	t.Helper()
	backend := s3mem.New()
	if bucket != "" {
		if err := backend.CreateBucket(bucket); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(ts.Close)
	return media.S3Options{Endpoint: strings.TrimPrefix(ts.URL, "http://"), Region: "us-east-1", Bucket: "uploads",
		AccessKey: "key", SecretKey: "secret"}
}

func TestS3Blobs(t *testing.T) {
	o := newFakeS3(t, "uploads")
	o.Prefix = "site1"
	b, err := media.NewS3(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	blobSuite(t, b)
}

func TestS3MissingBucketFailsWrites(t *testing.T) {
	o := newFakeS3(t, "")
	b, err := media.NewS3(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(context.Background(), "a.txt", strings.NewReader("x"), 1, "text/plain"); err == nil {
		t.Fatal("put into a missing bucket succeeded")
	}
}

var _ = png.Encode
