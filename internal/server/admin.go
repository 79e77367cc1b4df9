package server

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
)

// adminPath is the admin page. It needs a signed-in browser; everyone else
// is sent to the sign-in form, which comes back here.
const adminPath = "/admin/"

// serveAdmin answers /admin and /admin/: the admin page for signed-in
// users, a redirect to /login for others.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != adminPath {
		if r.URL.Path == strings.TrimSuffix(adminPath, "/") {
			http.Redirect(w, r, adminPath, http.StatusMovedPermanently)
			return
		}
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	settings := s.settingsObject(r)
	if settings == "" {
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, "/login?redirect_to="+url.QueryEscape(adminPath), http.StatusFound)
		return
	}
	nonce := newScriptNonce()
	page := s.adminPage(r, settings, nonce)
	h := w.Header()
	setPageHeaders(h, nonce)
	h.Set("Content-Length", fmt.Sprint(len(page)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(page))
}

// adminPage is the admin page's HTML: a header with navigation and the
// sign-out form, a status region and the main region the admin script
// fills, then the settings object (with a fresh nonce), the API client and
// the admin script.
func (s *Server) adminPage(r *http.Request, settings, nonce string) string {
	title := html.EscapeString(s.cfg.Site.Title)
	if title == "" {
		title = "Folio"
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"robots\" content=\"noindex\">\n")
	b.WriteString("<title>Admin &lsaquo; " + title + "</title>\n")
	b.WriteString("<link rel=\"" + html.EscapeString(s.names.RelBase) + "\" href=\"" + html.EscapeString(s.APIRoot(r)) + "\">\n")
	b.WriteString("<link rel=\"stylesheet\" href=\"" + html.EscapeString(assetURL("admin.css")) + "\">\n</head>\n<body>\n")
	b.WriteString("<a class=\"skip-link\" href=\"#main\">Skip to content</a>\n")
	b.WriteString("<header class=\"bar\">\n<p class=\"site\"><a href=\"/\">" + title + "</a></p>\n")
	b.WriteString("<nav aria-label=\"Admin\"><ul>\n")
	for _, l := range []struct{ view, href, label string }{
		{"posts", "#posts", "Posts"},
		{"new", "#posts/new", "New post"},
		{"media", "#media", "Media"},
		{"comments", "#comments", "Comments"},
	} {
		b.WriteString("<li><a data-view=\"" + l.view + "\" href=\"" + l.href + "\">" + l.label + "</a></li>\n")
	}
	b.WriteString("</ul></nav>\n")
	b.WriteString("<form method=\"post\" action=\"/logout\"><button type=\"submit\" id=\"sign-out\">Sign out</button></form>\n</header>\n")
	b.WriteString("<div id=\"status\" class=\"notice\" role=\"status\" aria-live=\"polite\"></div>\n")
	b.WriteString("<main id=\"main\" tabindex=\"-1\"><p>Loading&hellip;</p></main>\n")
	// The one inline script, allowed by the response's CSP nonce.
	b.WriteString("<script nonce=\"" + nonce + "\">window.folioAdmin = {siteTitle: " + jsString(s.cfg.Site.Title) + "}; " + settings + "</script>\n")
	b.WriteString("<script src=\"" + html.EscapeString(assetURL("api-client.js")) + "\"></script>\n")
	b.WriteString("<script src=\"" + html.EscapeString(assetURL("admin.js")) + "\"></script>\n")
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// jsString quotes s as a JavaScript string literal that is safe inside a
// <script> element.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '<' || c == '>' || c == '&' || c < 0x20 || c == 0x2028 || c == 0x2029:
			fmt.Fprintf(&b, "\\u%04x", c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
