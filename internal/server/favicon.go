package server

import (
	"bytes"
	_ "embed"
	"net/http"
	"time"
)

// favicon is the site icon browsers ask every page's origin for: a 32×32
// PNG in an ICO container.
//
//go:embed favicon.ico
var favicon []byte

// faviconModTime is fixed so that conditional requests work across
// restarts and nodes.
var faviconModTime = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

// serveFavicon answers /favicon.ico, cacheable for a day.
func (s *Server) serveFavicon(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/x-icon")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "favicon.ico", faviconModTime, bytes.NewReader(favicon))
}
