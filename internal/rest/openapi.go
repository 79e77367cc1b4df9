package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/folio-server/folio/internal/schema"
)

// OpenAPIVersion is the version of the OpenAPI Specification the API
// description follows.
const OpenAPIVersion = "3.1.0"

// OpenAPIInfo is what the API description says that the route registry
// does not know.
type OpenAPIInfo struct {
	// Title and Description describe the API (info.title and
	// info.description); Version is info.version.
	Title, Description, Version string
	// SessionCookie names the browser session cookie of the cookie+nonce
	// security scheme; "" leaves that scheme out.
	SessionCookie string
}

// openAPICache holds the last API description built and what it was built
// from.
type openAPICache struct {
	mu   sync.Mutex
	gen  uint64
	info OpenAPIInfo
	doc  []byte
}

// OpenAPI returns the OpenAPI 3.1 description of every registered route
// as indented JSON: paths with their parameters, request bodies and
// responses, item schemas with registered fields, security schemes,
// pagination and conditional-request headers, the error object with the
// codes each operation can answer, and batch requests. It is built from
// the registry on first use and again only when routes, fields or
// collection arguments were registered since. The caller must not modify
// the returned slice.
func (s *Server) OpenAPI(info OpenAPIInfo) []byte {
	c := &s.openapi
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.doc != nil && c.gen == s.gen && c.info == info {
		return c.doc
	}
	doc := (&oaBuilder{s: s, info: info}).build()
	raw := s.AppendJSON(nil, doc)
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		// The encoder writes valid JSON; keep it unindented if not.
		out.Reset()
		out.Write(raw)
	}
	out.WriteByte('\n')
	c.doc, c.gen, c.info = out.Bytes(), s.gen, info
	return c.doc
}

// oaBuilder builds one API description.
type oaBuilder struct {
	s    *Server
	info OpenAPIInfo

	schemas  *Keyed            // components/schemas
	errResps *Keyed            // components/responses of errors, by name
	encoded  map[string][]byte // component name → encoded schema, to tell titles apart
	byObject map[*schema.Object]string
	tags     []string
	opIDs    map[string]bool
	unlisted []string
}

// oaMethods are the HTTP methods an OpenAPI path item can describe, in the
// order operations are written.
var oaMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// oaPath is one path of the description with the routes behind it.
type oaPath struct {
	template string
	params   []oaPathParam
	ops      *Keyed
}

func (b *oaBuilder) build() *Keyed {
	s := b.s
	names := s.cfg.Names
	b.schemas = NewKeyed()
	b.errResps = NewKeyed()
	b.encoded = map[string][]byte{}
	b.byObject = map[*schema.Object]string{}
	b.opIDs = map[string]bool{}

	var paths []*oaPath
	byTemplate := map[string]*oaPath{}
	var batchable []string
	for _, rt := range s.routes {
		tmpl, params, ok := pathTemplate(rt.key)
		if !ok {
			b.unlisted = append(b.unlisted, rt.key)
			continue
		}
		p := byTemplate[tmpl]
		if p == nil {
			p = &oaPath{template: tmpl, params: params, ops: NewKeyed()}
			byTemplate[tmpl] = p
			paths = append(paths, p)
		}
		if rt.def.AllowBatch {
			batchable = append(batchable, tmpl)
		}
		for _, m := range oaMethods {
			lower := strings.ToLower(m)
			if _, done := p.ops.Get(lower); done {
				continue
			}
			for _, e := range rt.endpoints {
				if e.accepts(m) {
					p.ops.Add(lower, b.operation(rt, e, m, p))
					break
				}
			}
		}
	}

	pathsObj := NewKeyed()
	for _, p := range paths {
		if p.ops.Len() == 0 {
			continue
		}
		item := NewKeyed()
		if len(p.params) > 0 {
			ps := make([]any, len(p.params))
			for i, pp := range p.params {
				ps[i] = pp.object()
			}
			item.Add("parameters", ps)
		}
		for _, k := range p.ops.Keys() {
			v, _ := p.ops.Get(k)
			item.Add(k, v)
		}
		pathsObj.Add(p.template, item)
	}

	doc := NewKeyed()
	doc.Add("openapi", OpenAPIVersion)
	infoObj := NewKeyed()
	title := b.info.Title
	if title == "" {
		title = "Folio REST API"
	}
	infoObj.Add("title", title)
	infoObj.Add("version", orDefault(b.info.Version, names.Namespace))
	infoObj.Add("description", b.description())
	doc.Add("info", infoObj)
	server := NewKeyed()
	server.Add("url", s.cfg.SiteURL+names.Prefix)
	server.Add("description", "The API root ("+names.Prefix+"/).")
	doc.Add("servers", []any{server})
	doc.Add("security", b.security())
	tags := make([]any, len(b.tags))
	for i, t := range b.tags {
		to := NewKeyed()
		to.Add("name", t)
		to.Add("description", tagDescription(t, names))
		tags[i] = to
	}
	doc.Add("tags", tags)
	doc.Add("paths", pathsObj)
	doc.Add("components", b.components(batchable))
	if len(b.unlisted) > 0 {
		doc.Add("x-unlisted-routes", b.unlisted)
	}
	return doc
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// description is info.description: the site's own words, then how the
// API works.
func (b *oaBuilder) description() string {
	n := b.s.cfg.Names
	var d strings.Builder
	if b.info.Description != "" {
		d.WriteString(b.info.Description)
		d.WriteString("\n\n")
	}
	fmt.Fprintf(&d, "Generated at run time from the server's route registry: every route, argument, item schema and registered field of this site. "+
		"Items carry the properties of the request's `context` (view, embed or edit; each property lists its contexts in `x-context`), "+
		"limited by `_fields`; `_embed` adds linked items under `_embedded`. "+
		"Collections are paged with `page` and `per_page` and answer `%s`, `%s` and `Link` (rel=\"prev\"/\"next\"). "+
		"Anonymous reads carry an `ETag`; `If-None-Match` with it answers 304. "+
		"Errors are `{code, message, data: {status}}`. "+
		"Write requests can be grouped with `POST %s%s`.",
		n.TotalHeader(), n.TotalPagesHeader(), n.Prefix, BatchPath)
	return d.String()
}

// security is the top-level security requirement: anonymous, HTTP Basic
// with an application password, or the session cookie with the nonce.
func (b *oaBuilder) security() []any {
	out := []any{NewKeyed()}
	basic := NewKeyed()
	basic.Add("applicationPassword", []string{})
	out = append(out, basic)
	if b.info.SessionCookie != "" {
		cookie := NewKeyed()
		cookie.Add("sessionCookie", []string{})
		cookie.Add("nonce", []string{})
		out = append(out, cookie)
	}
	return out
}

// tagOf returns the tag of a path template: the first segment after the
// namespace, prefixed with the namespace when it is not the API's own.
func (b *oaBuilder) tagOf(rt *route, tmpl string) string {
	switch {
	case rt.key == BatchPath:
		return "batch"
	case rt.namespace == "" || tmpl == "/"+rt.namespace:
		return "index"
	}
	rest := strings.TrimPrefix(tmpl, "/"+rt.namespace+"/")
	seg, _, _ := strings.Cut(rest, "/")
	if rt.namespace != b.s.cfg.Names.Namespace {
		seg = rt.namespace + "/" + seg
	}
	return seg
}

func tagDescription(tag string, n Names) string {
	switch tag {
	case "index":
		return "The API root and namespace indexes."
	case "batch":
		return "Several write requests in one."
	}
	if strings.Contains(tag, "/") {
		return "Routes under " + n.Prefix + "/" + tag + "."
	}
	return "Routes under " + n.Prefix + "/" + n.Namespace + "/" + tag + "."
}

func (b *oaBuilder) addTag(t string) {
	if !slices.Contains(b.tags, t) {
		b.tags = append(b.tags, t)
	}
}

// shapeOf resolves an endpoint's response shape.
func shapeOf(rt *route, e *endpoint, method string) Shape {
	if e.Returns != ShapeAuto {
		return e.Returns
	}
	if rt.def.Schema == nil {
		return ShapeOther
	}
	if method == http.MethodGet {
		if _, ok := e.argIndex["per_page"]; ok {
			return ShapeList
		}
	}
	return ShapeItem
}

// creates reports whether method on e answers 201 Created: a POST-only
// endpoint on a route whose path ends in a literal segment and whose
// answer is an item.
func creates(e *endpoint, method, tmpl string, shape Shape) bool {
	return method == http.MethodPost && len(e.methods) == 1 && shape == ShapeItem && !strings.HasSuffix(tmpl, "}")
}

// operation describes method on endpoint e of route rt.
func (b *oaBuilder) operation(rt *route, e *endpoint, method string, p *oaPath) *Keyed {
	n := b.s.cfg.Names
	shape := shapeOf(rt, e, method)
	created := creates(e, method, p.template, shape)
	item := b.itemRef(rt)
	if item == nil && (shape == ShapeItem || shape == ShapeList || shape == ShapeMap) {
		shape = ShapeOther
	}
	tag := b.tagOf(rt, p.template)
	b.addTag(tag)
	batch := rt.key == BatchPath
	write := method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch

	op := NewKeyed()
	op.Add("tags", []string{tag})
	op.Add("summary", b.summary(rt, method, shape, created, p.template))
	op.Add("operationId", b.operationID(rt, method, shape, created, p.template))
	if batch {
		op.Add("description", fmt.Sprintf("Runs up to %d write requests (POST, PUT, PATCH, DELETE) in order, each as its own request by the caller, and answers 207 with one {body, status, headers} per request. "+
			"With `validation: require-all-validate` every request is matched and validated first; if any fails, the answer is 207 with `failed: validation` and each validation result, and none runs. "+
			"Only routes that allow batching take part (see `x-allow-batch`).", MaxBatchRequests))
	} else if rt.def.AllowBatch && (write || method == http.MethodDelete) {
		op.Add("description", "May also run inside a batch request (POST "+n.Prefix+BatchPath+").")
		op.Add("x-allow-batch", true)
	}

	// Parameters: the arguments of reads and deletes come from the query;
	// those of writes from the body (the query works too, see
	// the description).
	inPath := map[string]bool{}
	for _, pp := range p.params {
		inPath[pp.name] = true
	}
	var params []any
	seen := map[string]bool{}
	if !write {
		for _, a := range e.args {
			if inPath[a.Name] || seen[a.Name] {
				continue
			}
			seen[a.Name] = true
			params = append(params, queryParam(a.Arg))
		}
	}
	globals := []string{}
	if item != nil && shape != ShapeOther {
		globals = append(globals, "_fields", "_embed")
	}
	globals = append(globals, "_envelope")
	if method == http.MethodGet {
		globals = append(globals, "_jsonp", "If-None-Match")
	}
	for _, g := range globals {
		if !seen[g] {
			params = append(params, ref("#/components/parameters/"+paramComponent(g)))
		}
	}
	if len(params) > 0 {
		op.Add("parameters", params)
	}
	hasBody := false
	if batch {
		rb := NewKeyed()
		rb.Add("required", true)
		rb.Add("content", jsonContent(ref("#/components/schemas/BatchRequest")))
		op.Add("requestBody", rb)
		hasBody = true
	} else if write {
		if rb := b.requestBody(rt, e, inPath); rb != nil {
			op.Add("requestBody", rb)
			hasBody = true
		}
	}

	op.Add("responses", b.responses(rt, e, method, shape, created, item, hasBody, len(p.params) > 0))
	return op
}

// summary is a one-line description of an operation.
func (b *oaBuilder) summary(rt *route, method string, shape Shape, created bool, tmpl string) string {
	switch {
	case rt.key == BatchPath:
		return "Run several write requests in one"
	case rt.key == "/":
		return "The API root index"
	case rt.namespace != "" && rt.key == "/"+rt.namespace:
		return "The " + rt.namespace + " namespace index"
	}
	title := ""
	if o := routeSchema(rt); o != nil {
		title = o.Title
	}
	if title == "" || shape == ShapeOther {
		return method + " " + tmpl
	}
	switch {
	case method == http.MethodGet && (shape == ShapeList || shape == ShapeMap):
		return "List " + title + " items"
	case method == http.MethodGet:
		return "Retrieve a " + title
	case created:
		return "Create a " + title
	case method == http.MethodDelete:
		return "Delete a " + title
	case method == http.MethodPut:
		return "Replace a " + title
	case method == http.MethodPatch:
		return "Patch a " + title
	}
	return "Update a " + title
}

// operationID names an operation after its verb and its path, e.g.
// listPosts, getPostsById, updatePostsById; paths outside the API's own
// namespace keep their namespace (getMyExtV1Things).
func (b *oaBuilder) operationID(rt *route, method string, shape Shape, created bool, tmpl string) string {
	var verb string
	switch {
	case rt.key == BatchPath:
		verb = "batch"
	case method == http.MethodGet && (shape == ShapeList || shape == ShapeMap):
		verb = "list"
	case method == http.MethodGet:
		verb = "get"
	case created:
		verb = "create"
	case method == http.MethodPost:
		verb = "update"
	case method == http.MethodPut:
		verb = "replace"
	default:
		verb = strings.ToLower(method)
	}
	rest := tmpl
	switch ns := b.s.cfg.Names.Namespace; {
	case rt.key == "/":
		rest = "/index"
	case rt.namespace != "" && rt.key == "/"+rt.namespace:
		rest = tmpl + "/index"
	case rt.namespace == ns:
		rest = strings.TrimPrefix(tmpl, "/"+ns)
	}
	var id strings.Builder
	id.WriteString(verb)
	if rt.key != BatchPath {
		for _, seg := range strings.Split(rest, "/") {
			if seg == "" {
				continue
			}
			if strings.HasPrefix(seg, "{") {
				id.WriteString("By")
				seg = strings.Trim(seg, "{}")
			}
			id.WriteString(pascal(seg))
		}
	}
	name := id.String()
	for i := 2; b.opIDs[name]; i++ {
		name = id.String() + strconv.Itoa(i)
	}
	b.opIDs[name] = true
	return name
}

// pascal turns "application-passwords" into "ApplicationPasswords".
func pascal(s string) string {
	var out strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		out.WriteRune(r)
	}
	return out.String()
}

// requestBody describes the arguments of a write as a JSON object (the
// route's upload as multipart or a raw body on Upload routes).
func (b *oaBuilder) requestBody(rt *route, e *endpoint, inPath map[string]bool) *Keyed {
	props := NewKeyed()
	var required []string
	item := routeSchema(rt)
	for _, a := range e.args {
		if inPath[a.Name] {
			continue
		}
		var prop *schema.Property
		if item != nil {
			prop = item.Prop(a.Name)
		}
		props.Add(a.Name, writeSchema(a.Arg, prop))
		if a.Required {
			required = append(required, a.Name)
		}
	}
	upload := rt.def.Upload && len(e.methods) == 1 && e.methods[0] == http.MethodPost
	if props.Len() == 0 && !upload {
		return nil
	}
	obj := NewKeyed()
	obj.Add("type", "object")
	obj.Add("properties", props)
	if len(required) > 0 {
		obj.Add("required", required)
	}
	content := NewKeyed()
	if upload {
		mp := NewKeyed()
		mp.Add("type", "object")
		mprops := NewKeyed()
		file := NewKeyed()
		file.Add("type", "string")
		file.Add("format", "binary")
		file.Add("description", "The file to upload.")
		mprops.Add("file", file)
		for _, k := range props.Keys() {
			v, _ := props.Get(k)
			mprops.Add(k, v)
		}
		mp.Add("properties", mprops)
		mp.Add("required", []string{"file"})
		mt := NewKeyed()
		mt.Add("schema", mp)
		content.Add("multipart/form-data", mt)
		raw := NewKeyed()
		rs := NewKeyed()
		rs.Add("type", "string")
		rs.Add("format", "binary")
		rs.Add("description", "The file itself, named by a Content-Disposition header (attachment; filename=...), with its type in Content-Type.")
		raw.Add("schema", rs)
		content.Add("application/octet-stream", raw)
	} else {
		mt := NewKeyed()
		mt.Add("schema", obj)
		content.Add("application/json", mt)
	}
	rb := NewKeyed()
	rb.Add("description", "The arguments as a JSON object; form-encoded bodies and query parameters are accepted too.")
	if upload {
		rb.Add("description", "The file, as multipart/form-data (part \"file\", with the other arguments as fields) or as the raw body.")
	}
	rb.Add("required", len(required) > 0 || upload)
	rb.Add("content", content)
	return rb
}
