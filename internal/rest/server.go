// Package rest is the API server core: the route registry, dispatch,
// request parameters with their sanitizing and validation, responses,
// links and curies, _embed, _envelope and _jsonp, the indexes, OPTIONS and
// the error format.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/ratelimit"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/store"
)

// Names are the public names of the API: URL prefix, namespace, header
// prefix, link-relation base, nonce parameter, settings object and nonce
// endpoint. They are the only place these names are spelled; the default
// mode uses the spec's names (DefaultNames), the WordPress-compatibility
// mode WordPress's own (WordPressNames).
type Names struct {
	Prefix       string // URL path of the API root without trailing slash, e.g. "/api"
	Namespace    string // e.g. "svc/v2"
	HeaderPrefix string // e.g. "X-API-"
	RelBase      string // link-relation base, ending in "/"
	CurieName    string // curie name of RelBase relations
	// NonceParam is the query or form parameter that can carry the nonce
	// instead of the nonce header.
	NonceParam string
	// SettingsObject is the window global that hands pages of signed-in
	// browsers the API settings; SettingsAlias, when set, is a second name
	// for the same object.
	SettingsObject, SettingsAlias string
	// NonceEndpoint is the site path (with its query) that answers a
	// signed-in browser a fresh nonce as plain text.
	NonceEndpoint string
	// WordPress selects the later platform's shapes where they differ
	// from the spec's, for the clients of the compatibility mode: media
	// caption and description as {raw, rendered} objects instead of
	// strings, lists of slugs in the slug filters.
	WordPress bool
}

// DefaultNames returns Folio's own names.
func DefaultNames() Names {
	return Names{
		Prefix:         "/api",
		Namespace:      "svc/v2",
		HeaderPrefix:   "X-API-",
		RelBase:        "https://api.folio.dev/",
		CurieName:      "wp",
		NonceParam:     "_wpnonce",
		SettingsObject: "folioApiSettings",
		NonceEndpoint:  "/admin/nonce",
	}
}

// WordPressNames returns the names of the WordPress-compatibility mode.
func WordPressNames() Names {
	return Names{
		Prefix:         "/wp-json",
		Namespace:      "wp/v2",
		HeaderPrefix:   "X-WP-",
		RelBase:        "https://api.w.org/",
		CurieName:      "wp",
		NonceParam:     "_wpnonce",
		SettingsObject: "folioApiSettings",
		SettingsAlias:  "wpApiSettings",
		NonceEndpoint:  "/wp-admin/admin-ajax.php?action=rest-nonce",
		WordPress:      true,
	}
}

// TotalHeader is the header with a collection's total ("X-API-Total").
func (n Names) TotalHeader() string { return n.HeaderPrefix + "Total" }

// TotalPagesHeader is the header with a collection's page count
// ("X-API-TotalPages").
func (n Names) TotalPagesHeader() string { return n.HeaderPrefix + "TotalPages" }

// NonceHeader is the request and response header carrying the nonce
// ("X-API-Nonce").
func (n Names) NonceHeader() string { return n.HeaderPrefix + "Nonce" }

// Config configures a Server.
type Config struct {
	Names           Names
	SiteName        string
	SiteDescription string
	// SiteInfo, when set, gives what the index says about the site
	// instead of SiteName and SiteDescription, for sites whose settings
	// change while they run (an error fails the index request).
	SiteInfo func(ctx context.Context) (SiteInfo, error)
	// SiteURL is the public site URL without trailing slash; "" means the
	// scheme and host of each request (the scheme as forwarded.Scheme
	// says: X-Forwarded-Proto counts from trusted proxies only).
	SiteURL string
	// MaxBodyBytes bounds JSON and form bodies (default 10 MiB).
	MaxBodyBytes int64
	// MaxUploadBytes bounds bodies of Route.Upload routes (default 64 MiB).
	MaxUploadBytes int64
	// UploadGrace and UploadMinRate set the minimum-rate rule of upload
	// bodies (see uploadDeadline): the body of a Route.Upload request may
	// take UploadGrace (default 60 s, the HTTP server's read timeout) plus
	// one second per UploadMinRate bytes received (default 32 KiB/s).
	UploadGrace   time.Duration
	UploadMinRate int64
	// DisableJSONP makes _jsonp fail with rest_callback_disabled.
	DisableJSONP bool
	// Authenticate returns the caller (nil, nil = anonymous). An error
	// (*Error or *auth.Error) stops the request before routing.
	Authenticate func(r *http.Request) (*auth.User, error)
	// ResponseHeaders, when set, returns headers added to the response of
	// every request that authenticated without error (u is nil for
	// anonymous callers), e.g. a fresh nonce for cookie sessions.
	ResponseHeaders func(r *http.Request, u *auth.User) http.Header
	// HelpURL is the documentation link of the root index.
	HelpURL string
	// Cache, when set, serves repeated anonymous GET requests from memory
	// until the next write (see CacheConfig).
	Cache *CacheConfig
	// Version, when set, returns the store's write version (it defaults
	// to Cache.Version). Anonymous GET and HEAD responses then carry an
	// ETag made of it and the URL, and a request whose If-None-Match
	// names the current tag is answered 304 Not Modified without running
	// the route. The version read goes into the request's context
	// (store.WithVersion) for the caches further down.
	Version func(ctx context.Context) (int64, error)
	// CORS says which other origins' pages may call the API (none by
	// default).
	CORS CORS
	// RateLimit, when set, is asked once per request, after
	// authentication (u is nil for anonymous callers), whether the caller
	// may make a request of class c now. A positive duration refuses it:
	// 429 rest_too_many_requests with Retry-After in whole seconds.
	RateLimit func(r *http.Request, u *auth.User, c ratelimit.Class) time.Duration
	Logger    *slog.Logger
}

// SiteInfo is what the root index says about the site.
type SiteInfo struct {
	Name, Description string
	// Timezone, when set, adds WordPress's gmt_offset (its offset from
	// UTC now, in hours) and timezone_string (its IANA name) to the
	// index, which clients need to write local dates.
	Timezone *time.Location
}

// Server dispatches API requests to registered routes. Register all routes
// before serving.
type Server struct {
	cfg        Config
	routes     []*route
	byKey      map[string]*route
	namespaces []string
	comp       *compactor
	log        *slog.Logger

	// cors is the CORS policy, replaced whole by SetCORS.
	cors atomic.Pointer[corsPolicy]

	// extra holds the fields and collection args extensions registered.
	extra fieldSet
	// cache keeps encoded anonymous GET responses (nil when off).
	cache *responseCache

	// gen moves on with every route, field and collection argument
	// registered: the API description is rebuilt when it changed.
	gen uint64
	// openapi caches the API description (openapi.go).
	openapi openAPICache
}

var (
	hdrJSON       = []string{"application/json; charset=UTF-8"}
	hdrJS         = []string{"application/javascript; charset=UTF-8"}
	hdrNosniff    = []string{"nosniff"}
	hdrTrue       = []string{"true"}
	hdrVaryOrigin = []string{"Origin"}
	hdrExpires    = []string{"Wed, 11 Jan 1984 05:00:00 GMT"}
	hdrNoCache    = []string{"no-cache, must-revalidate, max-age=0"}
	hdrPragma     = []string{"no-cache"}
)

// NewServer returns a server with the built-in root index route.
func NewServer(cfg Config) *Server {
	if cfg.Names == (Names{}) {
		cfg.Names = DefaultNames()
	}
	cfg.Names.Prefix = strings.TrimRight(cfg.Names.Prefix, "/")
	cfg.SiteURL = strings.TrimRight(cfg.SiteURL, "/")
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 10 << 20
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = 64 << 20
	}
	if cfg.UploadGrace <= 0 {
		cfg.UploadGrace = 60 * time.Second
	}
	if cfg.UploadMinRate <= 0 {
		cfg.UploadMinRate = 32 << 10
	}
	if cfg.HelpURL == "" {
		cfg.HelpURL = "https://developer.wordpress.org/rest-api/"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Version == nil && cfg.Cache != nil {
		cfg.Version = cfg.Cache.Version
	}
	s := &Server{
		cfg:   cfg,
		byKey: map[string]*route{},
		comp:  newCompactor(cfg.Names),
		log:   cfg.Logger,
	}
	s.cors.Store(newCORSPolicy(cfg.CORS, cfg.Names))
	if cfg.Cache != nil && cfg.Cache.Version != nil {
		s.cache = newResponseCache(*cfg.Cache)
	}
	s.add("", "/", &Route{Endpoints: []*Endpoint{{
		Methods: Readable,
		Handler: s.rootIndex,
		Args:    []*Arg{{Name: "context", Default: "view"}},
	}}})
	s.registerBatch()
	return s
}

// Names returns the server's names.
func (s *Server) Names() Names { return s.cfg.Names }

// SetCORS replaces the CORS policy while the server runs (a configuration
// reload); requests under way keep the policy they started with. Config
// still reports the CORS the server was built with.
func (s *Server) SetCORS(c CORS) {
	s.cors.Store(newCORSPolicy(c, s.cfg.Names))
}

// Config returns the server's configuration with defaults applied.
func (s *Server) Config() Config { return s.cfg }

// Register adds a route under namespace; pattern is relative to the
// namespace (e.g. `/posts/(?P<id>[\d]+)`), the full key is
// "/"+namespace+pattern. Routes match in registration order. The first
// route of a namespace also registers the namespace index route. Routes
// registered twice merge their endpoints. Register panics on an invalid
// pattern, like http.ServeMux does.
func (s *Server) Register(namespace, pattern string, rt *Route) {
	namespace = strings.Trim(namespace, "/")
	if !s.hasNamespace(namespace) {
		s.namespaces = append(s.namespaces, namespace)
		ns := namespace
		s.add(ns, "/"+ns, &Route{Endpoints: []*Endpoint{{
			Methods: Readable,
			Handler: func(r *Request) (*Response, error) { return s.namespaceIndex(r, ns) },
			Args:    []*Arg{{Name: "namespace", Default: ns}, {Name: "context", Default: "view"}},
		}}})
	}
	s.add(namespace, "/"+namespace+pattern, rt)
}

func (s *Server) hasNamespace(ns string) bool {
	for _, n := range s.namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

func (s *Server) add(namespace, key string, def *Route) {
	s.gen++
	s.extend(def)
	if key != "/" {
		key = strings.TrimRight(key, "/")
	}
	if old, ok := s.byKey[key]; ok {
		merged := *old.def
		merged.Endpoints = append(append([]*Endpoint(nil), old.def.Endpoints...), def.Endpoints...)
		if def.Schema != nil {
			merged.Schema = def.Schema
		}
		if def.Prefetch != nil {
			merged.Prefetch = def.Prefetch
		}
		merged.Upload = merged.Upload || def.Upload
		merged.AllowBatch = merged.AllowBatch || def.AllowBatch
		if def.UploadTemp != nil {
			merged.UploadTemp = def.UploadTemp
		}
		def = &merged
	}
	rt, err := newRoute(namespace, key, def)
	if err != nil {
		panic(fmt.Errorf("rest: register: %w", err))
	}
	rt.label = s.cfg.Names.Prefix + key
	if old, ok := s.byKey[key]; ok {
		for i, r := range s.routes {
			if r == old {
				s.routes[i] = rt
			}
		}
	} else {
		s.routes = append(s.routes, rt)
	}
	s.byKey[key] = rt
}

// cleanPath normalises a route path: leading slash, no trailing slash
// (decisions #9), "" is the root.
func cleanPath(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		return "/" + p
	}
	return p
}

// find returns the first route matching path with an endpoint for method.
func (s *Server) find(method, path string) (*route, *endpoint, map[string]string) {
	lower := strings.ToLower(path)
	for _, rt := range s.routes {
		ok, params := rt.match(path, lower)
		if !ok {
			continue
		}
		if ep := rt.endpointFor(method); ep != nil {
			return rt, ep, params
		}
	}
	return nil, nil, nil
}

// findAny returns the first route matching path, whatever the method,
// with its captures.
func (s *Server) findAny(path string) (*route, map[string]string) {
	lower := strings.ToLower(path)
	for _, rt := range s.routes {
		if ok, params := rt.match(path, lower); ok {
			return rt, params
		}
	}
	return nil, nil
}

func noRoute() *Error { return NewError("rest_no_route", http.StatusNotFound, msgNoRoute) }

// Dispatch runs one request through matching, parameters, permission and
// handler, and adds the Allow header. It never panics.
func (s *Server) Dispatch(req *Request) *Response {
	if req.srv == nil {
		req.srv = s
	}
	req.Method = strings.ToUpper(req.Method)
	req.Path = cleanPath(req.Path)
	if req.Method == http.MethodOptions {
		return s.options(req)
	}
	if !s.bind(req) {
		return errorResponse(noRoute())
	}
	resp := s.execute(req)
	s.addAllow(req, resp)
	return resp
}

// bind matches req to a route and endpoint.
func (s *Server) bind(req *Request) bool {
	rt, ep, params := s.find(req.Method, req.Path)
	if rt == nil {
		return false
	}
	req.rt, req.ep, req.Route = rt, ep, rt.key
	if len(params) > 0 {
		if req.URLParams == nil {
			req.URLParams = params
		} else {
			for k, v := range params {
				req.URLParams[k] = v
			}
		}
	}
	return true
}

// execute runs the parameter pipeline, the permission check and the
// handler of a bound request, recovering panics.
func (s *Server) execute(req *Request) (resp *Response) {
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(req.Context(), "rest: panic in handler", "method", req.Method, "path", req.Path, "panic", p, "stack", string(debug.Stack()))
			resp = errorResponse(NewError("rest_internal_error", http.StatusInternalServerError, msgInternal))
		}
	}()
	if !req.validated {
		if e := req.checkText(); e != nil {
			return errorResponse(e)
		}
		if e := req.validate(); e != nil {
			return errorResponse(e)
		}
	}
	if e := s.checkPermission(req); e != nil {
		return errorResponse(e)
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		withRequest(req)
	}
	out, err := req.ep.Handler(req)
	if err != nil {
		return errorResponse(s.apiError(req, err))
	}
	if out == nil {
		out = NewResponse(http.StatusOK, nil)
	}
	s.addFields(req, out)
	if out.Status == 0 {
		out.Status = http.StatusOK
	}
	return out
}

// checkPermission runs the bound endpoint's permission check and records
// its answer for the Allow header.
func (s *Server) checkPermission(req *Request) *Error {
	if req.ep.Permission == nil {
		return nil
	}
	err := req.ep.Permission(req)
	req.permDone = true
	req.permOK = err == nil
	if err == nil {
		return nil
	}
	return s.apiError(req, err)
}

// allowed reports whether e's permission check says yes for req.
func (s *Server) allowed(req *Request, e *endpoint) (ok bool) {
	if e.Permission == nil {
		return true
	}
	if e == req.ep && req.permDone {
		return req.permOK
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(req.Context(), "rest: panic in permission check", "path", req.Path, "panic", p)
			ok = false
		}
	}()
	return e.Permission(req.probe(e)) == nil
}

// allowHeader computes the Allow header of the matched route (§7.4).
func (s *Server) allowHeader(req *Request) string {
	var seen [8]string
	methods := seen[:0]
	for _, e := range req.rt.endpoints {
		if !s.allowed(req, e) {
			continue
		}
	next:
		for _, m := range e.methods {
			if m == http.MethodHead {
				continue
			}
			for _, x := range methods {
				if x == m {
					continue next
				}
			}
			methods = append(methods, m)
		}
	}
	switch len(methods) {
	case 0:
		return ""
	case 1:
		return methods[0]
	}
	return strings.Join(methods, ", ")
}

func (s *Server) addAllow(req *Request, resp *Response) {
	if req.rt == nil {
		return
	}
	if allow := s.allowHeader(req); allow != "" {
		if resp.Header == nil {
			resp.Header = make(http.Header, 4)
		}
		resp.Header["Allow"] = []string{allow}
	}
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// validCallback reports whether s is an acceptable JSONP callback name
// ([A-Za-z0-9_.]+).
func validCallback(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// msgTooManyRequests is the message of rest_too_many_requests.
const msgTooManyRequests = "Too many requests. Please wait a moment and try again."

// rateClass says which rate-limit budget req draws on: uploads are writes
// to a route that takes a file, searches are reads with a search argument
// or of a search route.
func (s *Server) rateClass(req *Request) ratelimit.Class {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if req.Query.Get("search") != "" || strings.HasSuffix(req.Path, "/search") {
			return ratelimit.Search
		}
		return ratelimit.Read
	}
	if rt, _, _ := s.find(req.Method, req.Path); rt != nil && rt.def.Upload {
		return ratelimit.Upload
	}
	return ratelimit.Write
}

// ServeHTTP serves the API. Mount it at Names.Prefix+"/" (and
// Names.Prefix); r.URL.Path includes the prefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["X-Content-Type-Options"] = hdrNosniff
	if s.cors.Load().setHeaders(h, r) {
		// A preflight is answered before authentication: browsers send it
		// without credentials, also for routes that need them.
		delete(h, "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return
	}

	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(r.Context(), "rest: panic while serving", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			s.writeError(w, NewError("rest_internal_error", http.StatusInternalServerError, msgInternal))
		}
	}()

	q := r.URL.Query()
	path := r.URL.Path
	if p := s.cfg.Names.Prefix; strings.HasPrefix(path, p) && (len(path) == len(p) || path[len(p)] == '/') {
		path = path[len(p):]
	}
	path = cleanPath(path)
	if path == "/" {
		if rr := q.Get("rest_route"); rr != "" {
			path = cleanPath(rr)
		}
	}

	callback := ""
	if vs, ok := q["_jsonp"]; ok {
		if s.cfg.DisableJSONP {
			s.writeError(w, NewError("rest_callback_disabled", http.StatusBadRequest, "JSONP support is disabled on this site."))
			return
		}
		if len(vs) > 0 {
			callback = vs[len(vs)-1]
		}
		if !validCallback(callback) {
			s.writeError(w, NewError("rest_callback_invalid", http.StatusBadRequest, "The JSONP callback function is invalid."))
			return
		}
	}

	// The override (`_method`, X-HTTP-Method-Override) is honoured on POST
	// only: a GET or HEAD, which links, images and script tags on any page
	// can make, never writes.
	method := r.Method
	if method == http.MethodPost {
		if m, ok := q["_method"]; ok && len(m) > 0 && m[len(m)-1] != "" {
			method = m[len(m)-1]
		} else if m := r.Header.Get("X-HTTP-Method-Override"); m != "" {
			method = m
		}
	}
	method = strings.ToUpper(method)

	req := &Request{
		Method: method,
		Path:   path,
		Header: r.Header,
		Query:  q,
		HTTP:   r,
		ctx:    r.Context(),
		srv:    s,
	}
	if s.cfg.SiteURL != "" {
		req.base = s.cfg.SiteURL
	} else {
		req.base = requestBase(r)
	}

	var resp *Response
	var form *multipart.Form
	if s.cfg.Authenticate != nil {
		u, err := s.cfg.Authenticate(r)
		if err != nil {
			resp = errorResponse(s.apiError(req, err))
			if rt, _ := s.findAny(path); rt != nil {
				// Refused credentials still count under their route.
				reqlog.SetRoute(r.Context(), rt.label)
			}
		} else {
			req.User = u
			if s.cfg.ResponseHeaders != nil {
				for k, v := range s.cfg.ResponseHeaders(r, u) {
					h[k] = v
				}
			}
		}
	}
	if resp == nil && s.cfg.RateLimit != nil {
		if d := s.cfg.RateLimit(r, req.User, s.rateClass(req)); d > 0 {
			resp = errorResponse(NewError("rest_too_many_requests", http.StatusTooManyRequests, msgTooManyRequests))
			resp.SetHeader("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
		}
	}
	if req.User != nil {
		h["Expires"] = hdrExpires
		h["Cache-Control"] = hdrNoCache
		h["Pragma"] = hdrPragma
	}
	key := ""
	var version int64
	if resp == nil {
		if key = s.cacheKey(r, req); key != "" {
			v, err := s.version(r.Context())
			if err != nil {
				key = "" // the request itself will report the store's state
			} else {
				version = v
				if s.cache != nil {
					if e := s.cache.get(key, v); e != nil {
						reqlog.SetRoute(r.Context(), e.route)
						if e.etag != "" {
							if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, e.etag) {
								notModified(w, e.etag)
								return
							}
							h.Set("ETag", e.etag)
						}
						serveCached(w, r, e)
						return
					}
				}
				req.ctx = store.WithVersion(req.ctx, v)
				req.etag = true
			}
		}
	}
	if resp == nil {
		if method == http.MethodOptions {
			resp = s.options(req)
		} else if !s.bind(req) {
			resp = errorResponse(noRoute())
		} else {
			var e *Error
			// The upload's temporary file, streamed by readBody or made
			// by the handler, goes when the request ends.
			defer func() {
				if req.Upload != nil {
					_ = req.Upload.Remove()
				}
			}()
			form, e = s.readBody(w, r, req)
			if e != nil {
				resp = errorResponse(e)
			} else {
				resp = s.execute(req)
			}
			s.addAllow(req, resp)
		}
		if req.rt != nil {
			reqlog.SetRoute(r.Context(), req.rt.label)
		}
	}
	if form != nil {
		defer func() { _ = form.RemoveAll() }()
	}
	embed := q["_embed"] // nil when absent; "?_embed" gives [""]
	_, envelope := q["_envelope"]
	if key == "" || s.cache == nil || resp.Status >= 500 || resp.Status == StatusClientClosedRequest {
		s.write(w, req, resp, embed, envelope, callback)
		return
	}
	rec := &recorder{ResponseWriter: w}
	s.write(rec, req, resp, embed, envelope, callback)
	// Only what the route produced is cached; per-request headers (CORS,
	// nonces) are set anew on every request.
	hdr := http.Header{"Content-Type": h["Content-Type"], "Content-Length": h["Content-Length"]}
	if !envelope {
		for k, v := range resp.Header {
			hdr[s.headerName(k)] = v
		}
	}
	body := rec.body
	if r.Method == http.MethodHead || rec.status == http.StatusNotModified {
		return // no body to keep
	}
	route := ""
	if req.rt != nil {
		route = req.rt.label
	}
	s.cache.put(key, &cachedResponse{version: version, status: rec.status, header: hdr, body: body, etag: h.Get("ETag"), route: route})
}

// write encodes resp and sends it. embed holds the values of the _embed
// parameter (nil when there is none). The request's _fields mask, when
// set, limits what is written; embedding happens only when it shows
// _embedded.
func (s *Server) write(w http.ResponseWriter, req *Request, resp *Response, embed []string, envelope bool, callback string) {
	h := w.Header()
	bp := bufPool.Get().(*[]byte)
	e := encoder{buf: (*bp)[:0], c: s.comp}
	mask := req.fields()
	if embed != nil {
		if em, ok := mask.child("_embedded"); ok {
			e.embeds = s.embedAll(req, resp.Data, embedRels(embed), em)
		}
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if callback != "" {
		h["Content-Type"] = hdrJS
		e.buf = append(e.buf, "/**/"...)
		e.buf = append(e.buf, callback...)
		e.buf = append(e.buf, '(')
	}
	if envelope {
		e.buf = append(e.buf, `{"body":`...)
		e.masked(resp.Data, mask)
		e.buf = append(e.buf, `,"status":`...)
		e.buf = strconv.AppendInt(e.buf, int64(status), 10)
		e.buf = append(e.buf, `,"headers":`...)
		hdrs := make(map[string]string, len(resp.Header))
		for k, v := range resp.Header {
			hdrs[s.headerName(k)] = strings.Join(v, ", ")
		}
		e.value(hdrs)
		e.buf = append(e.buf, '}')
		status = http.StatusOK
	} else {
		for k, v := range resp.Header {
			// The spec's spelling (X-API-Total), not Go's canonical one;
			// header names are case-insensitive, but clients grep them.
			h[s.headerName(k)] = v
		}
		e.masked(resp.Data, mask)
	}
	if callback != "" {
		e.buf = append(e.buf, ')')
	}
	if req.etag && status == http.StatusOK {
		// The tag names the representation itself, so that it changes
		// only when what this caller sees changes (a write it may not
		// see leaves it alone).
		tag := contentTag(e.buf, h, s.cfg.Names)
		h.Set("ETag", tag)
		if inm := req.HTTP.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, tag) {
			status = http.StatusNotModified
		}
	}
	if status == http.StatusNotModified {
		notModified(w, h.Get("ETag"))
	} else {
		h["Content-Length"] = []string{strconv.Itoa(len(e.buf))}
		w.WriteHeader(status)
		if req.Method != http.MethodHead && req.HTTP != nil && req.HTTP.Method != http.MethodHead {
			_, _ = w.Write(e.buf)
		}
	}
	if cap(e.buf) <= 1<<20 {
		*bp = e.buf[:0]
		bufPool.Put(bp)
	}
}

// headerName restores the configured spelling of the total headers, which
// http.Header stores canonicalised ("X-Api-Total").
func (s *Server) headerName(k string) string {
	n := s.cfg.Names
	switch {
	case strings.EqualFold(k, n.TotalHeader()):
		return n.TotalHeader()
	case strings.EqualFold(k, n.TotalPagesHeader()):
		return n.TotalPagesHeader()
	}
	return k
}

// writeError sends an error before a request was built.
func (s *Server) writeError(w http.ResponseWriter, e *Error) {
	b := (&encoder{c: s.comp}).encodeError(e)
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(e.HTTPStatus())
	_, _ = w.Write(b)
}

func (e *encoder) encodeError(x *Error) []byte {
	e.errorBody(x)
	return e.buf
}

// readBody reads and parses the body of a bound request: JSON when the
// content type is application/json, form fields for POST, PUT and PATCH;
// the file of an upload (Route.Upload) is streamed into req.Upload.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, req *Request) (*multipart.Form, *Error) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil, nil
	}
	limit := s.cfg.MaxBodyBytes
	if req.rt.def.Upload {
		limit = s.cfg.MaxUploadBytes
	}
	tooLarge := NewError("rest_request_too_large", http.StatusRequestEntityTooLarge, msgTooLarge)
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if req.rt.def.Upload && req.formAllowed() {
		// A file is streamed to disk; JSON and urlencoded bodies (and
		// bodies without a type, read as urlencoded) are read below.
		switch mt {
		case "application/json", "", "application/x-www-form-urlencoded":
		default:
			if g := req.ep.UploadGate; g != nil {
				if err := g(req); err != nil {
					return nil, s.apiError(req, err)
				}
			}
		}
		switch mt {
		case "application/json", "", "application/x-www-form-urlencoded":
		case "multipart/form-data":
			return nil, s.streamMultipartUpload(w, r, req, limit)
		default:
			return nil, s.streamRawUpload(w, r, req, limit)
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		return nil, NewError("rest_invalid_body", http.StatusBadRequest, "The request body could not be read.")
	}
	req.Body = body
	switch {
	case mt == "application/json":
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, nil
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		if err == nil && dec.More() {
			err = errors.New("unexpected data after the JSON value")
		}
		if err == nil {
			if _, terr := dec.Token(); terr != io.EOF {
				err = errors.New("unexpected data after the JSON value")
			}
		}
		if err != nil {
			return nil, NewError("rest_invalid_json", http.StatusBadRequest, "Invalid JSON body passed: "+err.Error())
		}
		if m, ok := normalizeJSON(v).(map[string]any); ok {
			req.JSON = m
		}
	case !req.formAllowed():
	case mt == "" || mt == "application/x-www-form-urlencoded":
		vals, _ := url.ParseQuery(string(body))
		req.Form = vals
	case mt == "multipart/form-data":
		_, params, err := mime.ParseMediaType(ct)
		if err != nil || params["boundary"] == "" {
			return nil, NewError("rest_invalid_body", http.StatusBadRequest, "The multipart body has no boundary.")
		}
		form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(32 << 20)
		if err != nil {
			return nil, NewError("rest_invalid_body", http.StatusBadRequest, "The multipart body could not be parsed.")
		}
		req.Form = url.Values(form.Value)
		req.Files = form.File
		return form, nil
	}
	return nil, nil
}

// normalizeJSON turns json.Number values into int64 (integral) or float64.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}
