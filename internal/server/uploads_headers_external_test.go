package server_test

import (
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/testkit"
)

func TestUploadsAreServedNosniffAndAsAttachmentsUnlessMedia(t *testing.T) {
	f := newUploadsFixture(t, func(c *config.Config) {
		c.Media.AllowedTypes = []string{"png", "mp4", "mp3", "pdf", "txt", "js", "css", "html", "svg", "zip"}
	})
	cases := []struct {
		name, body  string
		attachment  bool
		sandbox     bool
		contentType string
	}{
		{"pic.png", string(testkit.PNG(20, 10)), false, true, "image/png"},
		{"clip.mp4", "\x00\x00\x00\x18ftypmp42", false, true, "video/mp4"},
		{"song.mp3", "ID3\x03\x00", false, true, "audio/mpeg"},
		{"doc.pdf", "%PDF-1.4\n", false, false, "application/pdf"},
		{"notes.txt", "hello", true, true, "text/plain"},
		{"app.js", "alert(document.cookie)", true, true, "application/javascript"},
		{"site.css", "body{}", true, true, "text/css"},
		{"page.html", "<html><script>alert(1)</script></html>", true, true, "text/html"},
		{"logo.svg", `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`, true, true, "image/svg+xml"},
		{"bundle.zip", "PK\x03\x04", true, true, "application/zip"},
	}
	for _, tc := range cases {
		// The editor has unfiltered_html, so even active types are stored.
		m := f.json(f.req("POST", "/api/svc/v2/media", "editor", []byte(tc.body), "Content-Type", "application/octet-stream",
			"Content-Disposition", `attachment; filename="`+tc.name+`"`), 201)
		rec := f.req("GET", urlPath(m["source_url"].(string)), "", nil)
		if rec.Code != 200 {
			t.Fatalf("%s: GET %d", tc.name, rec.Code)
		}
		h := rec.Header()
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Type") != tc.contentType {
			t.Errorf("%s: nosniff %q, type %q", tc.name, h.Get("X-Content-Type-Options"), h.Get("Content-Type"))
		}
		cd := h.Get("Content-Disposition")
		if tc.attachment && (!strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, tc.name)) {
			t.Errorf("%s: Content-Disposition %q, want an attachment", tc.name, cd)
		}
		if !tc.attachment && cd != "" {
			t.Errorf("%s: Content-Disposition %q, want none (shown in place)", tc.name, cd)
		}
		if got := h.Get("Content-Security-Policy") == "sandbox"; got != tc.sandbox {
			t.Errorf("%s: Content-Security-Policy %q", tc.name, h.Get("Content-Security-Policy"))
		}
	}
}
