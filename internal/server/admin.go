package server

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio-server/folio/web"
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

// adminPage is the admin page's HTML: a header with the site's name, who
// is signed in and the sign-out form, the navigation and main regions the
// admin scripts fill, then the settings object (the page's one inline
// script, allowed by the response's CSP nonce), the API client, the editor
// bundle and the admin's scripts. The site's title travels in a data
// attribute, not in a script.
func (s *Server) adminPage(r *http.Request, settings, nonce string) string {
	title := html.EscapeString(s.pageSettings(r).Title)
	if title == "" {
		title = "Folio"
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"robots\" content=\"noindex\">\n")
	b.WriteString("<title>Admin &lsaquo; " + title + "</title>\n")
	b.WriteString("<link rel=\"" + html.EscapeString(s.names.RelBase) + "\" href=\"" + html.EscapeString(s.APIRoot(r)) + "\">\n")
	b.WriteString("<link rel=\"stylesheet\" href=\"" + html.EscapeString(assetURL("admin.css")) + "\">\n</head>\n")
	b.WriteString("<body data-site-title=\"" + title + "\">\n")
	b.WriteString("<a class=\"skip-link\" href=\"#main\">Skip to content</a>\n")
	b.WriteString("<header class=\"bar\">\n")
	b.WriteString("<button type=\"button\" class=\"menu-toggle\" id=\"menu-toggle\" aria-expanded=\"false\" aria-controls=\"admin-nav\">Menu</button>\n")
	b.WriteString("<p class=\"site\"><a href=\"/\">" + title + "</a></p>\n")
	b.WriteString("<p class=\"who\" id=\"who\"></p>\n")
	b.WriteString("<form method=\"post\" action=\"/logout\"><button type=\"submit\" id=\"sign-out\">Sign out</button></form>\n</header>\n")
	b.WriteString("<div class=\"layout\">\n<nav id=\"admin-nav\" class=\"side\" aria-label=\"Admin\"><ul id=\"nav-list\"></ul></nav>\n")
	b.WriteString("<div class=\"content\">\n<div id=\"status\" class=\"notice\" role=\"status\" aria-live=\"polite\"></div>\n")
	b.WriteString("<main id=\"main\" tabindex=\"-1\"><p>Loading&hellip;</p></main>\n</div>\n</div>\n")
	b.WriteString(settingsScript(settings, nonce))
	for _, name := range append([]string{"api-client.js", "editor.js"}, web.AdminScripts()...) {
		b.WriteString("<script src=\"" + html.EscapeString(assetURL(name)) + "\"></script>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}
