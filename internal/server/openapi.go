package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/rest"
)

// The API description and the API reference page, under the API prefix
// (/api/openapi.json and /api/docs; /wp-json/... in WordPress-compatibility
// mode). Both describe routes, not data, and are public like the index.
const (
	openAPIPath = "/openapi.json"
	docsPath    = "/docs"
)

// docsCSP is the Content-Security-Policy of the API reference page: its
// scripts, style sheet and the description all come from this site, and
// no script or style is inline or evaluated (Swagger UI needs neither).
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// openAPITag caches the entity tag of the last description served.
type openAPITag struct {
	mu  sync.Mutex
	doc []byte
	tag string
}

var lastOpenAPITag openAPITag

// OpenAPI returns the site's OpenAPI 3.1 description, made from the REST
// server's route registry (rest.Server.OpenAPI caches it until the
// registry or the site's title and description change).
func (s *Server) OpenAPI() []byte {
	return s.openAPI(context.Background())
}

// openAPI is OpenAPI with the site's settings as of ctx.
func (s *Server) openAPI(ctx context.Context) []byte {
	set := s.site.SettingsOrLast(ctx)
	title := "Folio REST API"
	if set.Title != "" {
		title = set.Title + " REST API"
	}
	return s.api.OpenAPI(rest.OpenAPIInfo{
		Title:         title,
		Description:   set.Description,
		Version:       s.names.Namespace,
		SessionCookie: s.sessions.Cookie(),
	})
}

// openAPIETag returns the strong entity tag of doc.
func openAPIETag(doc []byte) string {
	t := &lastOpenAPITag
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tag == "" || !bytes.Equal(t.doc, doc) {
		sum := sha256.Sum256(doc)
		t.doc, t.tag = doc, `"`+hex.EncodeToString(sum[:16])+`"`
	}
	return t.tag
}

// serveOpenAPI answers GET and HEAD {api_root}openapi.json with the API
// description, with an ETag for conditional requests. Any origin may read
// it: it holds no data.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	doc := s.openAPI(r.Context())
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", openAPIETag(doc))
	http.ServeContent(w, r, "openapi.json", time.Time{}, bytes.NewReader(doc))
}

// serveAPIDocs answers GET and HEAD {api_root}docs with the API reference
// page: Swagger UI rendering the API description. A signed-in browser's
// page carries its nonce, so that "Try it out" requests sign in with the
// session cookie.
func (s *Server) serveAPIDocs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	title := s.pageSettings(r).Title
	if title == "" {
		title = "Folio"
	}
	nonceAttr := ""
	if u, token, err := s.sessions.Session(r); err == nil && u != nil {
		nonceAttr = " data-nonce=\"" + html.EscapeString(s.sessions.Nonce(u, token)) + "\""
	}
	page := "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
		"<title>API reference &lsaquo; " + html.EscapeString(title) + "</title>\n" +
		"<link rel=\"" + html.EscapeString(s.names.RelBase) + "\" href=\"" + html.EscapeString(s.APIRoot(r)) + "\">\n" +
		"<link rel=\"icon\" href=\"data:,\">\n" +
		"<link rel=\"stylesheet\" href=\"" + html.EscapeString(assetURL("swagger-ui.css")) + "\">\n" +
		"</head>\n<body>\n" +
		"<div id=\"api-docs\" data-spec-url=\"" + html.EscapeString(s.names.Prefix+openAPIPath) + "\"" +
		" data-nonce-header=\"" + html.EscapeString(s.names.NonceHeader()) + "\"" + nonceAttr + "></div>\n" +
		"<script src=\"" + html.EscapeString(assetURL("swagger-ui-bundle.js")) + "\"></script>\n" +
		"<script src=\"" + html.EscapeString(assetURL("apidocs.js")) + "\"></script>\n" +
		"</body>\n</html>\n"
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store") // like every page: it may carry a nonce
	h.Set("Content-Length", fmt.Sprint(len(page)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(page))
}
