package rest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CORS says which web pages on other origins may call the API from a
// browser.
type CORS struct {
	// AllowedOrigins lists the origins ("https://app.example", scheme and
	// host with an optional port, no path) whose pages may read responses,
	// with credentials (cookies, Authorization). "*" lets every origin read
	// them without credentials. Empty: no origin gets CORS headers.
	AllowedOrigins []string
	// MaxAge is how long a browser may keep a preflight answer; 0 means
	// DefaultCORSMaxAge.
	MaxAge time.Duration
}

// DefaultCORSMaxAge is how long browsers keep preflight answers unless
// CORS.MaxAge says otherwise.
const DefaultCORSMaxAge = time.Hour

// corsPolicy is a CORS compiled for serving: the per-request decision and
// the pre-built header values.
type corsPolicy struct {
	origins map[string]bool
	any     bool // "*" is allowed
	// vary is set when the answer depends on the Origin header, so that
	// shared caches keep one copy per origin.
	vary bool

	exposeHeaders []string
	allowHeaders  []string
	allowMethods  []string
	maxAge        []string
}

func newCORSPolicy(c CORS, n Names) *corsPolicy {
	p := &corsPolicy{origins: map[string]bool{}}
	for _, o := range c.AllowedOrigins {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		switch {
		case o == "*":
			p.any = true
		case o != "":
			p.origins[strings.ToLower(o)] = true
		}
	}
	p.vary = len(p.origins) > 0
	age := c.MaxAge
	if age <= 0 {
		age = DefaultCORSMaxAge
	}
	p.exposeHeaders = []string{n.TotalHeader() + ", " + n.TotalPagesHeader() + ", Link, Allow"}
	p.allowHeaders = []string{"Authorization, " + n.NonceHeader() + ", Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override"}
	p.allowMethods = []string{"OPTIONS, GET, POST, PUT, PATCH, DELETE"}
	p.maxAge = []string{strconv.Itoa(int(age / time.Second))}
	return p
}

// allow returns the Access-Control-Allow-Origin value for a request's
// Origin ("" when the origin may not read the response) and whether
// credentials are allowed with it. A listed origin wins over "*", so that
// it keeps its credentials.
func (p *corsPolicy) allow(origin string) (string, bool) {
	if origin == "" {
		return "", false
	}
	if p.origins[strings.ToLower(origin)] {
		return origin, true
	}
	if p.any {
		return "*", false
	}
	return "", false
}

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// setHeaders adds the CORS headers of a request to h and reports whether
// the request was a preflight, which the caller then answers with a 204
// and nothing else: a preflight carries no credentials and is answered
// the same for every route, including those that need authentication.
func (p *corsPolicy) setHeaders(h http.Header, r *http.Request) (preflight bool) {
	if p.vary {
		h["Vary"] = hdrVaryOrigin
	}
	// Every answer names the headers a cross-origin reader may see (the
	// totals, Link, Allow; reference §1), whatever its Origin: the list
	// grants nothing by itself, the allowed origins do.
	h["Access-Control-Expose-Headers"] = p.exposeHeaders
	acao, cred := p.allow(r.Header.Get("Origin"))
	if acao != "" {
		h["Access-Control-Allow-Origin"] = []string{acao}
		if cred {
			h["Access-Control-Allow-Credentials"] = hdrTrue
		}
	}
	if !isPreflight(r) {
		return false
	}
	if acao != "" {
		h["Access-Control-Allow-Methods"] = p.allowMethods
		h["Access-Control-Allow-Headers"] = p.allowHeaders
		h["Access-Control-Max-Age"] = p.maxAge
	}
	return true
}
