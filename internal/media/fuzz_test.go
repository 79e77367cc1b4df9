package media_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/media"
)

// FuzzContentDisposition parses arbitrary Content-Disposition values (a
// raw upload's header, split in two values to exercise the "last one
// wins" rule, and a multipart part's) and sanitises the names: nothing
// panics, and a stored name is valid UTF-8 with no path separator, no
// control character, no leading dot, a lower-case extension, and is
// stable when sanitised again.
func FuzzContentDisposition(f *testing.F) {
	for _, s := range []string{
		`attachment; filename="image.png"`,
		`attachment; filename = my foo picture.jpg`,
		`form-data; name="file"; filename="up.jpg"`,
		`attachment; filename*=UTF-8''%e2%82%ac%20rates.png`,
		`attachment; filename*=iso-8859-1'en'%A3%20rates.png; filename="x.png"`,
		`attachment; filename="a;b \"c\".png"`,
		`attachment; filename="../../etc/passwd"`,
		`attachment; filename="C:\\Windows\\evil.PHP"`,
		`attachment; filename=".htaccess"`,
		`attachment; filename*=utf-8''%2e%2e%2f%2e%2e%2fx.js`,
		`inline; filename="\x00\x01.png"`,
		`attachment; filename="` + strings.Repeat("é", 300) + `.jpg"`,
		`filename="foo.jpg"`,
		`;;;=;"`,
	} {
		f.Add(s, "attachment")
	}
	f.Fuzz(func(t *testing.T, v1, v2 string) {
		for _, name := range []string{media.ParseDisposition([]string{v1, v2}), media.MultipartFileName(v1)} {
			safe := media.SanitizeFileName(name)
			if safe == "" {
				continue
			}
			if !utf8.ValidString(safe) || strings.ContainsAny(safe, `/\`) || strings.HasPrefix(safe, ".") {
				t.Fatalf("SanitizeFileName(%q) = %q", name, safe)
			}
			for _, r := range safe {
				if unicode.IsControl(r) {
					t.Fatalf("SanitizeFileName(%q) = %q keeps a control character", name, safe)
				}
			}
			if ext := media.Ext(safe); ext != strings.ToLower(ext) {
				t.Fatalf("SanitizeFileName(%q) = %q: extension not lower-case", name, safe)
			}
			if again := media.SanitizeFileName(safe); again != safe {
				t.Fatalf("SanitizeFileName is not stable: %q -> %q -> %q", name, safe, again)
			}
		}
	})
}

// FuzzTypesCheck runs the upload type rules on arbitrary names and
// contents: for a caller without unfiltered_html an accepted file is never
// of an active type and never sniffs as HTML, SVG, XML, Flash or a
// program; an accepted file's type always comes from the allowlist.
func FuzzTypesCheck(f *testing.F) {
	f.Add("a.png", []byte("\x89PNG\r\n\x1a\n"))
	f.Add("a.jpg", []byte("<html><script>alert(1)</script>"))
	f.Add("a.txt", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`))
	f.Add("a.js", []byte("alert(1)"))
	f.Add("a.PhP5", []byte("<?php"))
	f.Add("a.mp4", []byte("FWS\x0a\x10\x00\x00\x00"))
	f.Add("a.csv", []byte("#!/bin/sh"))
	types := media.DefaultTypes()
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		for _, trusted := range []bool{false, true} {
			stored, mt, err := types.Check(name, data, trusted)
			if err != nil {
				continue
			}
			if got, ok := types.MimeOf(stored); !ok || got != mt {
				t.Fatalf("Check(%q) stored %q as %q, not the allowlist's type %q", name, stored, mt, got)
			}
			if trusted {
				continue
			}
			if media.IsActiveType(mt) {
				t.Fatalf("untrusted Check(%q) accepted active type %q", name, mt)
			}
			switch media.Sniff(data) {
			case "text/html", "image/svg+xml", "text/xml", "application/x-shockwave-flash", "application/x-executable":
				t.Fatalf("untrusted Check(%q) accepted content sniffed as %q", name, media.Sniff(data))
			}
		}
	})
}
