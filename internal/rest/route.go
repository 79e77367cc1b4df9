package rest

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/folio-server/folio/internal/schema"
)

// Method groups of endpoints.
const (
	Readable  = "GET"
	Creatable = "POST"
	Editable  = "POST, PUT, PATCH"
	Deletable = "DELETE"
)

// Route is a registered path pattern with its endpoints.
type Route struct {
	Endpoints []*Endpoint
	// Schema returns the item schema; OPTIONS and ?context=help show it.
	Schema func() *schema.Object
	// Upload bounds bodies by Config.MaxUploadBytes instead of
	// Config.MaxBodyBytes and streams the file of a POST, PUT or PATCH (a
	// raw body, or the multipart part "file") into a temporary file,
	// Request.Upload, instead of reading it into memory. JSON and
	// urlencoded bodies are read as on other routes.
	Upload bool
	// UploadTemp, for an Upload route, creates the temporary file an
	// upload streams into; nil creates it in os.TempDir.
	UploadTemp func() (*os.File, error)
	// Prefetch, when set, is called once with all the internal embed
	// requests that matched this route (already param-resolved) before
	// they are dispatched one by one, so a controller can batch-load what
	// they need into Request.Cache.
	Prefetch func(reqs []*Request)
	// AllowBatch lets the route's endpoints run as sub-requests of a batch
	// request (POST {api_root}batch/v1), as WordPress's allow_batch
	// route option does.
	AllowBatch bool
}

// Endpoint is one set of methods of a route with its handler, permission
// check and declared arguments.
type Endpoint struct {
	// Methods is one of Readable, Creatable, Editable, Deletable (or any
	// comma+space separated list of methods).
	Methods string
	// Handler answers the request. An *Error is sent as is; any other
	// error becomes a logged 500 rest_internal_error.
	Handler func(r *Request) (*Response, error)
	// Permission runs after validation. nil = allowed. It returns nil
	// (allowed), an *Error (sent as is) or ErrForbidden (rest_forbidden
	// with the authorization-required status).
	Permission func(r *Request) error
	// UploadGate, on an endpoint of a Route.Upload route, runs before the
	// file of a request is received, with the URL's parameters only (the
	// body is not read yet): it refuses callers that Permission could
	// never allow, so that their file is not taken in for nothing. It
	// answers as Permission does; Permission still runs after validation.
	UploadGate func(r *Request) error
	Args       []*Arg
	// Returns says what a successful response holds, for the API
	// description (see Shape); the zero value lets the route decide.
	Returns Shape
}

// Shape is what the body of an endpoint's successful response is, as the
// API description (OpenAPI) states it.
type Shape uint8

// The shapes of a response body.
const (
	// ShapeAuto is a list of the route's items for a GET endpoint that
	// declares per_page, else one item.
	ShapeAuto Shape = iota
	// ShapeItem is one item of the route's schema.
	ShapeItem
	// ShapeList is a JSON array of items.
	ShapeList
	// ShapeMap is a JSON object of items keyed by their names.
	ShapeMap
	// ShapeOther is a JSON value the route's schema does not describe.
	ShapeOther
)

// Arg declares one request parameter of an endpoint.
type Arg struct {
	Name, Description string
	// Type is string, integer, number, boolean, array or object (or
	// empty); "array" with Items "integer" is an id list.
	Type, Format string
	Items        string
	Enum         []string
	Default      any
	Required     bool
	Minimum      *int64
	Maximum      *int64
	// MaxItems, for an array, is the most elements it may have; the
	// indexes and OPTIONS show it (Validate enforces it).
	MaxItems int

	ExclusiveMinimum, ExclusiveMaximum bool
	// MaxLength, when positive, bounds a string's length in characters.
	MaxLength int

	// Sanitize replaces the default sanitizer for Type/Format; an error is
	// reported as the reason in rest_invalid_param.
	Sanitize func(r *Request, name string, v any) (any, error)
	// Validate runs after the schema validation; the error message is the
	// reason (an empty message gives "Invalid parameter.").
	Validate func(r *Request, name string, v any) error
}

// Int returns a pointer to v, for Arg.Minimum and Arg.Maximum.
func Int(v int64) *int64 { return &v }

// AbsInt is the non-negative integer sanitizer (absint): "12abc" becomes
// 12 and "-5" becomes 5.
func AbsInt(r *Request, name string, v any) (any, error) {
	return schema.AbsInt(v), nil
}

// ArgsFromSchema turns every writable property of o into an argument with
// its type, format, enum and description; required and default are only
// carried over when creating.
func ArgsFromSchema(o *schema.Object, creating bool) []*Arg {
	args := make([]*Arg, 0, len(o.Properties))
	for _, p := range o.Properties {
		if p.Readonly {
			continue
		}
		a := &Arg{
			Name:        p.Name,
			Description: p.Description,
			Type:        p.Type,
			Format:      p.Format,
			Enum:        p.Enum,
		}
		if p.Items != nil {
			a.Items = p.Items.Type
		}
		if creating {
			a.Required = p.Required
			a.Default = p.Default
		}
		args = append(args, a)
	}
	return args
}

func (a *Arg) rule() schema.Rule {
	return schema.Rule{
		Type: a.Type, Format: a.Format, Items: a.Items, Enum: a.Enum,
		Minimum: a.Minimum, Maximum: a.Maximum,
		ExclusiveMinimum: a.ExclusiveMinimum, ExclusiveMaximum: a.ExclusiveMaximum,
		MaxLength: a.MaxLength,
	}
}

// endpoint is an Endpoint compiled at registration.
type endpoint struct {
	*Endpoint
	methods  []string
	args     []compiledArg
	argIndex map[string]int
}

type compiledArg struct {
	*Arg
	rule  schema.Rule
	multi bool // array-typed: repeated form fields are all kept
}

func compileEndpoint(e *Endpoint) *endpoint {
	ce := &endpoint{Endpoint: e, argIndex: make(map[string]int, len(e.Args))}
	for _, m := range strings.Split(e.Methods, ",") {
		if m = strings.ToUpper(strings.TrimSpace(m)); m != "" {
			ce.methods = append(ce.methods, m)
		}
	}
	for _, a := range e.Args {
		if i, ok := ce.argIndex[a.Name]; ok {
			ce.args[i] = compiledArg{Arg: a, rule: a.rule(), multi: a.Type == "array"}
			continue
		}
		ce.argIndex[a.Name] = len(ce.args)
		ce.args = append(ce.args, compiledArg{Arg: a, rule: a.rule(), multi: a.Type == "array"})
	}
	return ce
}

func (e *endpoint) accepts(method string) bool {
	for _, m := range e.methods {
		if m == method {
			return true
		}
	}
	return false
}

// route is a registered route.
type route struct {
	key string // full pattern, e.g. /svc/v2/posts/(?P<id>[\d]+)
	// label names the route in the request log and the metrics: the API
	// prefix and key, e.g. /api/svc/v2/posts/(?P<id>[\d]+).
	label     string
	namespace string
	literal   bool   // the pattern has no regexp syntax: compare directly
	prefix    string // lower-cased literal prefix of the pattern
	re        *regexp.Regexp
	names     []string // capture names
	hasVars   bool
	endpoints []*endpoint
	def       *Route
}

const regexMeta = `\.+*?()|[]{}^$`

func newRoute(namespace, key string, def *Route) (*route, error) {
	rt := &route{key: key, namespace: namespace, def: def}
	i := strings.IndexAny(key, regexMeta)
	if i < 0 {
		rt.literal = true
		rt.prefix = strings.ToLower(key)
	} else {
		rt.prefix = strings.ToLower(key[:i])
		re, err := regexp.Compile(`(?i)^` + key + `$`)
		if err != nil {
			return nil, fmt.Errorf("compile route %q: %w", key, err)
		}
		rt.re = re
		rt.names = re.SubexpNames()
		for _, n := range rt.names {
			if n != "" {
				rt.hasVars = true
			}
		}
	}
	for _, e := range def.Endpoints {
		rt.endpoints = append(rt.endpoints, compileEndpoint(e))
	}
	return rt, nil
}

// match reports whether the lower-cased path matches the route and
// returns its named captures (from the original path).
func (rt *route) match(path, lower string) (bool, map[string]string) {
	if rt.literal {
		return lower == rt.prefix, nil
	}
	if !strings.HasPrefix(lower, rt.prefix) {
		return false, nil
	}
	m := rt.re.FindStringSubmatchIndex(path)
	if m == nil {
		return false, nil
	}
	if !rt.hasVars {
		return true, nil
	}
	params := make(map[string]string, 2)
	for i, n := range rt.names {
		if n != "" && m[2*i] >= 0 {
			params[n] = path[m[2*i]:m[2*i+1]]
		}
	}
	return true, params
}

// endpointFor returns the endpoint handling method (HEAD falls back to
// GET), or nil.
func (rt *route) endpointFor(method string) *endpoint {
	for _, e := range rt.endpoints {
		if e.accepts(method) {
			return e
		}
	}
	if method == "HEAD" {
		for _, e := range rt.endpoints {
			if e.accepts("GET") {
				return e
			}
		}
	}
	return nil
}
