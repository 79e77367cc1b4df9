package server

import (
	"fmt"
	"html"
	"html/template"
	"net/http"

	"github.com/folio-server/folio/internal/frontend"
)

// newFrontEnd builds the built-in reader when [site] front_end is
// "builtin" (the default); with "none" or an external front end the site
// serves no public pages.
func (s *Server) newFrontEnd() error {
	if !s.cfg.Site.BuiltinFrontEnd() {
		return nil
	}
	h, err := frontend.New(frontend.Options{
		Site:         s.site,
		Sessions:     s.sessions,
		Nonces:       s.sessions.Nonces,
		ThemeDir:     s.cfg.Site.ThemeDir,
		SiteURL:      s.siteBase,
		APIRoot:      s.APIRoot,
		Head:         s.frontEndHead,
		PostsPerPage: s.cfg.Site.PostsPerPage,
		AdminURL:     adminPath,
		LoginURL:     "/login",
		Logger:       s.logger,
	})
	if err != nil {
		return fmt.Errorf("front end: %w", err)
	}
	s.front = h
	return nil
}

// frontEndHead sets the headers of a reader page (the page CSP, allowing
// the settings script by its nonce, and the API discovery Link) and
// returns the page's <head> additions: the discovery <link> and, for a
// signed-in browser, the settings script.
func (s *Server) frontEndHead(w http.ResponseWriter, r *http.Request) template.HTML {
	root := s.APIRoot(r)
	rel := s.names.RelBase
	nonce := newScriptNonce()
	setPageHeaders(w.Header(), nonce)
	w.Header().Set("Link", fmt.Sprintf("<%s>; rel=%q", root, rel))
	head := "<link rel=\"" + html.EscapeString(rel) + "\" href=\"" + html.EscapeString(root) + "\"/>\n" +
		settingsScript(s.settingsObject(r), nonce)
	return template.HTML(head) // built from escaped values and JSON (settingsObject)
}

// serveFrontEnd answers a path no other part of the site serves: a reader
// page, or 404 without the built-in reader.
func (s *Server) serveFrontEnd(w http.ResponseWriter, r *http.Request) {
	if s.front == nil {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	s.front.ServeHTTP(w, r)
}
