// Package rest is the API server core: the route registry, dispatch,
// request parameters with their sanitizing and validation, responses,
// links and curies, _embed, _envelope and _jsonp, the indexes, OPTIONS and
// the error format.
package rest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/ratelimit"
)

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
	// DeferSignIn lets a write signed in with Basic credentials go on
	// with a kept sign-in where the authenticator offers one
	// (auth.User.SignInCheck, on a store.SignInDeferrer): what it does
	// commits, and what it answers is sent, only once the check passed,
	// and it runs again from its start when it failed.
	DeferSignIn bool
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
