package server

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/folio-server/folio/web"
)

// assetsPrefix is the URL path under which the embedded browser assets
// are served: /assets/api-client.js (the bundled API client),
// /assets/admin.js and /assets/admin.css.
const assetsPrefix = "/assets/"

// Cache lifetimes of assets: a URL whose ver parameter names the asset's
// current version never changes; the plain URL is revalidated hourly.
const (
	assetMaxAge          = "public, max-age=3600"
	assetVersionedMaxAge = "public, max-age=31536000, immutable"
)

// serveAsset answers GET and HEAD for an embedded asset, with an ETag so
// that conditional requests get 304, and 404 for unknown names.
func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := web.Lookup(strings.TrimPrefix(r.URL.Path, assetsPrefix))
	if !ok {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ContentType)
	h.Set("ETag", a.ETag)
	h.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("ver") == a.Version {
		h.Set("Cache-Control", assetVersionedMaxAge)
	} else {
		h.Set("Cache-Control", assetMaxAge)
	}
	http.ServeContent(w, r, a.Name, time.Time{}, bytes.NewReader(a.Body))
}

// assetURL returns the versioned URL of an embedded asset.
func assetURL(name string) string {
	a, ok := web.Lookup(name)
	if !ok {
		return assetsPrefix + name
	}
	return assetsPrefix + name + "?ver=" + a.Version
}
