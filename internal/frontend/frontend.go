// Package frontend is Folio's built-in reader: server-rendered, accessible
// HTML pages at the site's permalinks (a paginated home, single posts and
// pages with their comments and a comment form, attachment pages,
// category, tag, taxonomy and author archives, and search), drawn with Go
// html/template files that a theme directory can replace.
//
// It reads and writes only through internal/content, with the rules of
// the REST API: lists show what the API lists to the same visitor
// (published posts, and private ones only to those allowed), a
// password-protected post shows its text only once its password was
// given, comments are those the API shows (never an email address) and a
// comment goes through the same creation rules (moderation, flood and
// duplicate checks, closed comments).
package frontend

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// Sessions finds the user a browser's session cookie signs in
// (*auth.SessionAuth).
type Sessions interface {
	Session(r *http.Request) (*auth.User, string, error)
}

// Nonces makes and checks the short-lived tokens of the reader's forms
// (*auth.Nonces): a comment form's nonce is bound to the visitor's session,
// and the cookie that unlocks a protected post to the post and its
// password.
type Nonces interface {
	Create(userID int64, token, action string) string
	Verify(nonce string, userID int64, token, action string) int
}

// Options configure a Handler.
type Options struct {
	Site     *content.Site
	Sessions Sessions
	Nonces   Nonces
	// ThemeDir holds templates that replace the built-in ones of the same
	// file name; "" uses the built-in theme.
	ThemeDir string
	// SiteURL returns the site's URL for a request, without a trailing
	// slash (the configured site URL, or the request's scheme and host).
	SiteURL func(*http.Request) string
	// APIRoot returns the API root URL for a request.
	APIRoot func(*http.Request) string
	// Head sets the security headers of a page about to be written and
	// returns what goes into its <head>: the API discovery link and, for a
	// signed-in browser, the settings script with the response's CSP
	// nonce.
	Head func(w http.ResponseWriter, r *http.Request) template.HTML
	// PostsPerPage is the length of a page of posts (default 10).
	PostsPerPage int
	// AdminURL and LoginURL are site paths of the admin and sign-in pages.
	AdminURL, LoginURL string
	Logger             *slog.Logger
}

// Handler serves the reader's pages.
type Handler struct {
	opts      Options
	site      *content.Site
	templates *template.Template
	log       *slog.Logger
}

// New builds the reader, parsing the built-in templates and those of
// opts.ThemeDir; a template that does not parse is an error here, not on
// a visitor's request.
func New(opts Options) (*Handler, error) {
	if opts.Site == nil || opts.Sessions == nil || opts.Nonces == nil || opts.SiteURL == nil || opts.APIRoot == nil || opts.Head == nil {
		return nil, errors.New("frontend: Site, Sessions, Nonces, SiteURL, APIRoot and Head are required")
	}
	if opts.PostsPerPage <= 0 {
		opts.PostsPerPage = 10
	}
	if opts.AdminURL == "" {
		opts.AdminURL = "/admin/"
	}
	if opts.LoginURL == "" {
		opts.LoginURL = "/login"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	t, err := parseTemplates(opts.ThemeDir)
	if err != nil {
		return nil, err
	}
	return &Handler{opts: opts, site: opts.Site, templates: t, log: opts.Logger}, nil
}

// visit is one request to the reader: who asks, from where, and the
// site's base URL for the links of the answer.
type visit struct {
	h     *Handler
	w     http.ResponseWriter
	r     *http.Request
	ctx   context.Context
	user  *auth.User // nil: anonymous
	token string     // the session token, "" when anonymous
	base  string     // site URL, no trailing slash
}

// ServeHTTP answers a request for a reader page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	u, token, err := h.opts.Sessions.Session(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := &visit{h: h, w: w, r: r, ctx: r.Context(), user: u, token: token, base: h.opts.SiteURL(r)}
	if err := v.route(); err != nil {
		h.fail(w, r, err)
	}
}

// fail answers a request that could not be served: 503 while the
// database is unreachable or busy, 500 otherwise, logged once.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if store.Unavailable(err) {
		h.log.Warn("front end: database unavailable", "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(store.RetryAfterSeconds))
		http.Error(w, "503 the site is temporarily unavailable; please try again in a moment", http.StatusServiceUnavailable)
		return
	}
	h.log.ErrorContext(r.Context(), "front end", "path", r.URL.Path, "err", err)
	http.Error(w, "500 internal server error", http.StatusInternalServerError)
}

// errNotFound makes route answer the not-found page.
var errNotFound = errors.New("frontend: no such page")

// route dispatches on the path: the permalink forms content.Site.Permalink,
// TermLink and AuthorLink build, plus /page/N/ and the search.
func (v *visit) route() error {
	segs, ok := v.segments()
	if !ok {
		return v.notFound()
	}
	// POST is for the forms of single pages; lists refuse it.
	err := v.dispatch(segs, v.r.URL.Query())
	if errors.Is(err, errNotFound) {
		return v.notFound()
	}
	return err
}

func (v *visit) dispatch(segs []string, q url.Values) error {
	if len(segs) == 0 {
		switch {
		case q.Has("p"):
			return v.singleByID(q.Get("p"), q.Get("post_type"))
		case q.Has("page_id"):
			return v.singleByID(q.Get("page_id"), "page")
		case q.Has("attachment_id"):
			return v.singleByID(q.Get("attachment_id"), "attachment")
		case q.Has("s"):
			return v.search(q.Get("s"), pageParam(q.Get("paged")))
		}
		return v.home(pageParam(q.Get("paged")))
	}
	rest, page := splitPage(segs)
	if page == 0 {
		return errNotFound
	}
	if len(rest) == 0 {
		return v.home(page)
	}
	if len(segs) == 4 && isNumber(segs[0], 4) && isNumber(segs[1], 2) && isNumber(segs[2], 2) {
		return v.datedPost(segs)
	}
	if len(rest) >= 2 {
		if rest[0] == "author" && len(rest) == 2 {
			return v.authorArchive(rest[1], page)
		}
		for _, tx := range v.h.site.Taxonomies().All() {
			if tx.ShowInRest && rest[0] == taxonomyBase(tx.Name) {
				return v.termArchive(tx, rest[1:], page)
			}
		}
		if pt, ok := v.h.site.Types().Get(rest[0]); ok && !pt.Builtin && pt.Public && pt.ShowInRest && page == 1 && len(rest) == len(segs) {
			return v.singleByPath(pt, segs, rest[1:])
		}
	}
	if page != 1 || len(rest) != len(segs) {
		return errNotFound
	}
	pt, _ := v.h.site.Types().Get("page")
	return v.singleByPath(pt, segs, segs)
}

// segments returns the path below the site URL's own path, split at
// slashes, still percent-encoded and lower-cased as slugs are stored; ok
// is false for paths outside the site.
func (v *visit) segments() ([]string, bool) {
	p := v.r.URL.EscapedPath()
	if u, err := url.Parse(v.base); err == nil && u.Path != "" && u.Path != "/" {
		prefix := strings.TrimRight(u.EscapedPath(), "/")
		if p != prefix && !strings.HasPrefix(p, prefix+"/") {
			return nil, false
		}
		p = strings.TrimPrefix(p, prefix)
	}
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, strings.ToLower(s))
		}
	}
	return out, true
}

// splitPage takes a trailing "page/N" off segs: it returns the rest and N
// (1 without one, 0 for a page number that is not one).
func splitPage(segs []string) ([]string, int) {
	if n := len(segs); n >= 2 && segs[n-2] == "page" {
		p, err := strconv.Atoi(segs[n-1])
		if err != nil || p < 1 || segs[n-1] != strconv.Itoa(p) {
			return nil, 0
		}
		return segs[:n-2], p
	}
	return segs, 1
}

// pageParam reads the paged query parameter (1 when absent or not a
// positive number).
func pageParam(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func isNumber(s string, digits int) bool {
	if len(s) != digits {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// taxonomyBase is the first path segment of a taxonomy's archives, as
// content.Site.TermLink builds them.
func taxonomyBase(name string) string {
	if name == "post_tag" {
		return "tag"
	}
	return name
}

// render writes the page with template name and status.
func (v *visit) render(name string, status int, page *Page) error {
	page.Site = v.siteInfo()
	page.Status = status
	if v.user != nil {
		page.Viewer = &Viewer{Name: v.user.Record().DisplayName}
	}
	page.Head = v.h.opts.Head(v.w, v.r)
	var b strings.Builder
	if err := v.h.templates.ExecuteTemplate(&b, name, page); err != nil {
		return fmt.Errorf("template %s: %w", name, err)
	}
	v.w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	v.w.WriteHeader(status)
	if v.r.Method != http.MethodHead {
		_, _ = v.w.Write([]byte(b.String()))
	}
	return nil
}

// notFound answers the not-found page.
func (v *visit) notFound() error {
	return v.render("404.html", http.StatusNotFound, &Page{Kind: "notfound", Title: "Page not found"})
}

// siteInfo describes the site to the templates.
func (v *visit) siteInfo() SiteInfo {
	set := v.h.site.SettingsOrLast(v.ctx)
	return SiteInfo{
		Title:       set.Title,
		Description: set.Description,
		Home:        v.base + "/",
		Search:      v.base + "/",
		Admin:       v.base + v.h.opts.AdminURL,
		Login:       v.base + v.h.opts.LoginURL + "?redirect_to=" + url.QueryEscape(v.r.URL.RequestURI()),
		API:         v.h.opts.APIRoot(v.r),
	}
}
