package rest

import (
	"context"
	"errors"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/schema"
)

// Request is one API request, from HTTP or internal (embedding, tests).
type Request struct {
	// Method is the effective method after override, upper-case.
	Method string
	// Path is the route path without the prefix, e.g. "/svc/v2/posts/5".
	Path string
	// Route is the matched full pattern.
	Route string
	// User is the signed-in user, nil for anonymous callers.
	User   *auth.User
	Header http.Header
	Query  url.Values
	// JSON is the parsed JSON object body (nil when none or not an
	// object). Numbers are int64 when integral, float64 otherwise.
	JSON map[string]any
	// Form holds the form fields (only for POST, PUT and PATCH).
	Form  url.Values
	Files map[string][]*multipart.FileHeader
	// Body is the raw body (bounded); nil for a body streamed into Upload.
	Body []byte
	// Upload is the file of a request to a Route.Upload route (nil when
	// none was sent), streamed to a temporary file that the server
	// removes when the request ends.
	Upload    *UploadFile
	URLParams map[string]string
	// HTTP is the underlying request, nil for internal requests.
	HTTP *http.Request

	ctx   context.Context
	srv   *Server
	root  *Request
	cache map[any]any
	base  string // scheme://host of the API, without trailing slash

	rt   *route
	ep   *endpoint
	vals []argVal

	// validated is set once the parameters passed validate (a batch
	// validates its sub-requests before running any).
	validated bool

	permDone bool // the bound endpoint's permission check ran
	// etag is set for anonymous reads, whose 200 answers get an entity
	// tag and whose If-None-Match is honoured.
	etag   bool
	permOK bool // and said yes

	// embedded marks an internal _embed request, whose headers are
	// thrown away.
	embedded bool
	// mask is the request's _fields (nil: every field), parsed once
	// maskDone is set; an embedded request gets its relation's mask.
	mask     *fieldMask
	maskDone bool
	// allInputs is set when _fields names a registered field, so that
	// every field is computed for it (see Wants); inputsDone once known.
	allInputs, inputsDone bool
	// formBrackets and queryBrackets cache whether Form and Query have
	// any "name[…]" keys (0 unknown, 1 no, 2 yes), so looking up an
	// absent parameter does not rescan every key.
	formBrackets, queryBrackets uint8
}

type argState uint8

const (
	argUnresolved argState = iota
	argSent                // a source had a non-null value
	argDefault             // the declared default applies
	argAbsent
)

type argVal struct {
	v     any
	state argState
	bad   string // sanitize failure reason
}

// NewRequest returns an internal request for method and path (the route
// path without prefix, e.g. "/svc/v2/posts") with the given query.
func NewRequest(ctx context.Context, method, path string, query url.Values) *Request {
	if ctx == nil {
		ctx = context.Background()
	}
	if query == nil {
		query = url.Values{}
	}
	return &Request{
		Method: strings.ToUpper(method),
		Path:   path,
		Query:  query,
		Header: http.Header{},
		ctx:    ctx,
	}
}

// Context returns the request's context.
func (r *Request) Context() context.Context {
	if r.ctx != nil {
		return r.ctx
	}
	if r.HTTP != nil {
		return r.HTTP.Context()
	}
	return context.Background()
}

// Server returns the server dispatching the request.
func (r *Request) Server() *Server { return r.srv }

// Cache returns a request-scoped map shared by a top-level request and all
// its embedded sub-requests.
func (r *Request) Cache() map[any]any {
	top := r
	if r.root != nil {
		top = r.root
	}
	if top.cache == nil {
		top.cache = make(map[any]any)
	}
	return top.cache
}

// URL returns the absolute URL of path under the API root:
// URL("svc/v2/posts/5") is "http://host/api/svc/v2/posts/5".
func (r *Request) URL(path string) string {
	prefix := DefaultNames().Prefix
	if r.srv != nil {
		prefix = r.srv.cfg.Names.Prefix
	}
	return r.baseURL() + prefix + "/" + strings.TrimPrefix(path, "/")
}

// SiteURL returns the absolute URL of path under the site root.
func (r *Request) SiteURL(path string) string {
	if path != "" && path[0] != '/' {
		path = "/" + path
	}
	return r.baseURL() + path
}

func (r *Request) baseURL() string {
	if r.base != "" {
		return r.base
	}
	if r.root != nil && r.root.base != "" {
		return r.root.base
	}
	if r.srv != nil && r.srv.cfg.SiteURL != "" {
		return r.srv.cfg.SiteURL
	}
	if r.HTTP != nil {
		return requestBase(r.HTTP)
	}
	return "http://localhost"
}

// requestBase is the site URL of a request without a configured one: the
// scheme the client used (a trusted proxy's X-Forwarded-Proto counts) and
// the Host header.
func requestBase(h *http.Request) string {
	return forwarded.Scheme(h) + "://" + h.Host
}

func (r *Request) formAllowed() bool {
	switch r.Method {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}

// raw looks name up in the sources in precedence order: JSON body, form
// body (POST, PUT, PATCH only), query, URL captures. multi keeps every
// value of a repeated form field.
func (r *Request) raw(name string, multi bool) (any, bool) {
	if r.JSON != nil {
		if v, ok := r.JSON[name]; ok && v != nil {
			return v, true
		}
	}
	if r.Form != nil && r.formAllowed() {
		if v, ok := formValue(r.Form, name, multi, &r.formBrackets); ok {
			return v, true
		}
	}
	if v, ok := formValue(r.Query, name, multi, &r.queryBrackets); ok {
		return v, true
	}
	if v, ok := r.URLParams[name]; ok {
		return v, true
	}
	return nil, false
}

// formValue reads name from form-style values: name (the last value, or
// all of them when multi), name[] (a list) or name[key] (an object).
func formValue(vals url.Values, name string, multi bool, brackets *uint8) (any, bool) {
	if len(vals) == 0 {
		return nil, false
	}
	if vs, ok := vals[name]; ok && len(vs) > 0 {
		if multi && len(vs) > 1 {
			return append([]string(nil), vs...), true
		}
		return vs[len(vs)-1], true
	}
	if *brackets == 0 {
		*brackets = 1
		for k := range vals {
			if strings.IndexByte(k, '[') > 0 {
				*brackets = 2
				break
			}
		}
	}
	if *brackets == 1 {
		return nil, false
	}
	var list []string
	var obj map[string]any
	for k, vs := range vals {
		if len(k) <= len(name)+1 || k[len(name)] != '[' || k[:len(name)] != name || len(vs) == 0 {
			continue
		}
		sub := k[len(name)+1:]
		if sub == "]" {
			list = append(list, vs...)
			continue
		}
		end := strings.IndexByte(sub, ']')
		if end <= 0 {
			continue
		}
		if obj == nil {
			obj = make(map[string]any)
		}
		obj[sub[:end]] = vs[len(vs)-1]
	}
	if obj != nil {
		return obj, true
	}
	if list != nil {
		return list, true
	}
	return nil, false
}

// resolve computes the value of the i-th declared argument: the raw value
// sanitized, or the default.
func (r *Request) resolve(i int) *argVal {
	if r.vals == nil {
		r.vals = make([]argVal, len(r.ep.args))
	}
	av := &r.vals[i]
	if av.state != argUnresolved {
		return av
	}
	a := &r.ep.args[i]
	v, ok := r.raw(a.Name, a.multi)
	if !ok {
		if a.Default != nil {
			av.v, av.state = a.Default, argDefault
		} else {
			av.state = argAbsent
		}
		return av
	}
	av.state = argSent
	// Type errors come before range errors: a value with no number in
	// front at all ("abc") is refused as such, before a sanitizer (absint)
	// could turn it into 0 and fail a range check instead; "12abc" is still
	// sanitized to 12 (reference §2.3).
	if a.Type == "integer" || a.Type == "number" {
		if s, scalar := schema.ScalarString(v); scalar && !schema.IsNumeric(v) && !leadingNumber(s) {
			av.v, av.bad = v, a.Name+" is not of type "+a.Type
			return av
		}
	}
	if a.Sanitize != nil {
		s, err := a.Sanitize(r, a.Name, v)
		if err != nil {
			av.v, av.bad = v, reason(err)
			return av
		}
		av.v = s
		return av
	}
	s, bad := schema.Sanitize(a.rule, a.Name, v)
	av.v, av.bad = s, bad
	return av
}

// leadingNumber reports whether s starts, after white space and a sign,
// with a digit (or a point and a digit): what a numeric cast would read.
func leadingNumber(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	s = strings.TrimLeft(s, "+-")
	s = strings.TrimPrefix(s, ".")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

func reason(err error) string {
	var ae *Error
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	if msg := err.Error(); msg != "" {
		return msg
	}
	return msgInvalidParam
}

// Get returns the resolved value of name: the first non-null value of the
// JSON body, form body (POST/PUT/PATCH), query and URL captures, sanitized
// for declared arguments, else the declared default. Undeclared names give
// the raw value.
func (r *Request) Get(name string) (any, bool) {
	if r.ep != nil {
		if i, ok := r.ep.argIndex[name]; ok {
			av := r.resolve(i)
			if av.state == argAbsent {
				return nil, false
			}
			return av.v, true
		}
	}
	return r.raw(name, false)
}

// Has reports whether the client sent a non-null value for name in any
// source; defaults do not count.
func (r *Request) Has(name string) bool {
	if r.ep != nil {
		if i, ok := r.ep.argIndex[name]; ok {
			return r.resolve(i).state == argSent
		}
	}
	_, ok := r.raw(name, false)
	return ok
}

// Set overrides the resolved value of name for the rest of the request
// (e.g. a handler normalising a parameter).
func (r *Request) Set(name string, v any) {
	if r.ep != nil {
		if i, ok := r.ep.argIndex[name]; ok {
			r.resolve(i)
			r.vals[i] = argVal{v: v, state: argSent}
			return
		}
	}
	if r.JSON == nil {
		r.JSON = map[string]any{}
	}
	r.JSON[name] = v
}

// String returns the value of name as a string ("" when absent).
func (r *Request) String(name string) string {
	v, _ := r.Get(name)
	switch x := v.(type) {
	case string:
		return x
	case []string:
		if len(x) > 0 {
			return x[len(x)-1]
		}
		return ""
	}
	s, _ := schema.ScalarString(v)
	return s
}

// Int returns the value of name as an integer (0 when absent).
func (r *Request) Int(name string) int64 {
	v, _ := r.Get(name)
	n, _ := schema.ToInt(v)
	return n
}

// Bool returns the value of name as a boolean: true, 1 (any case) are
// true; everything else is false.
func (r *Request) Bool(name string) bool {
	v, _ := r.Get(name)
	b, _ := schema.ParseBool(v)
	return b
}

// IDs returns the value of name as a de-duplicated list of non-negative
// integers (nil when absent).
func (r *Request) IDs(name string) []int64 {
	v, ok := r.Get(name)
	if !ok || v == nil {
		return nil
	}
	if ids, ok := v.([]int64); ok {
		return ids
	}
	return schema.IDList(v)
}

// Strings returns the value of name as a list of strings (nil when
// absent); a string is split at commas and white space.
func (r *Request) Strings(name string) []string {
	v, ok := r.Get(name)
	if !ok || v == nil {
		return nil
	}
	if ss, ok := v.([]string); ok {
		return ss
	}
	return schema.StringList(v)
}

// ContextName returns the resolved "context" parameter, "view" if none.
func (r *Request) ContextName() string {
	if s := r.String("context"); s != "" {
		return s
	}
	return "view"
}

// SchemaContext returns the resolved "context" parameter as a schema
// context (View when none or unknown).
func (r *Request) SchemaContext() schema.Context {
	if c, ok := schema.ParseContext(r.ContextName()); ok {
		return c
	}
	return schema.View
}

// Params returns the names of the declared arguments of the matched
// endpoint, in declaration order.
func (r *Request) Params() []string {
	if r.ep == nil {
		return nil
	}
	out := make([]string, len(r.ep.args))
	for i, a := range r.ep.args {
		out[i] = a.Name
	}
	return out
}

// validate runs the parameter pipeline of the matched endpoint: sanitize,
// defaults, required, validate. It returns the first failing step's
// error.
func (r *Request) validate() *Error {
	args := r.ep.args
	if len(args) == 0 {
		return nil
	}
	if r.vals == nil {
		r.vals = make([]argVal, len(args))
	}
	var invalid []int
	for i := range args {
		if av := r.resolve(i); av.bad != "" {
			invalid = append(invalid, i)
		}
	}
	var missing []string
	for i := range args {
		if args[i].Required && r.vals[i].state == argAbsent {
			missing = append(missing, args[i].Name)
		}
	}
	if len(missing) > 0 {
		return NewError("rest_missing_callback_param", http.StatusBadRequest,
			"Missing parameter(s): "+strings.Join(missing, ", ")).WithData("params", missing)
	}
	reasons := make(map[int]string, len(invalid))
	for _, i := range invalid {
		reasons[i] = r.vals[i].bad
	}
	for i := range args {
		av := &r.vals[i]
		if av.bad != "" || av.v == nil || av.state == argAbsent {
			continue
		}
		a := &args[i]
		if msg := schema.Validate(a.rule, a.Name, av.v); msg != "" {
			reasons[i] = msg
			invalid = append(invalid, i)
			continue
		}
		if a.Validate != nil {
			if err := a.Validate(r, a.Name, av.v); err != nil {
				reasons[i] = reason(err)
				invalid = append(invalid, i)
			}
		}
	}
	if len(invalid) == 0 {
		return nil
	}
	names := make([]string, 0, len(invalid))
	params := NewKeyed()
	for i := range args {
		if msg, ok := reasons[i]; ok {
			names = append(names, args[i].Name)
			params.Add(args[i].Name, msg)
		}
	}
	return NewError("rest_invalid_param", http.StatusBadRequest,
		"Invalid parameter(s): "+strings.Join(names, ", ")).WithData("params", params)
}

// probe returns a copy of r bound to endpoint e with nothing resolved,
// for running e's permission check when computing Allow.
func (r *Request) probe(e *endpoint) *Request {
	c := *r
	c.ep = e
	c.vals = nil
	if r.root == nil {
		c.root = r
	}
	return &c
}
