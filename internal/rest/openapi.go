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

// responses describes the answers of an operation: the success, 304 for
// reads, and the errors the request pipeline can give with their codes.
func (b *oaBuilder) responses(rt *route, e *endpoint, method string, shape Shape, created bool, item any, hasBody, hasPathParams bool) *Keyed {
	n := b.s.cfg.Names
	out := NewKeyed()
	ok := NewKeyed()
	status := "200"
	var body any
	switch {
	case rt.key == BatchPath:
		status = "207"
		ok.Add("description", "Multi-Status: one entry per request, in order.")
		body = ref("#/components/schemas/BatchResponse")
	case shape == ShapeList:
		ok.Add("description", "A page of items.")
		arr := NewKeyed()
		arr.Add("type", "array")
		arr.Add("items", item)
		body = arr
	case shape == ShapeMap:
		ok.Add("description", "The items keyed by name.")
		m := NewKeyed()
		m.Add("type", "object")
		m.Add("additionalProperties", item)
		body = m
	case shape == ShapeItem:
		if created {
			status = "201"
			ok.Add("description", "Created.")
		} else {
			ok.Add("description", "The item.")
		}
		body = item
	default:
		ok.Add("description", "The answer.")
		body = NewKeyed()
	}
	headers := NewKeyed()
	if shape == ShapeList && method == http.MethodGet {
		if _, paged := e.argIndex["per_page"]; paged {
			headers.Add(n.TotalHeader(), ref("#/components/headers/Total"))
			headers.Add(n.TotalPagesHeader(), ref("#/components/headers/TotalPages"))
			headers.Add("Link", ref("#/components/headers/Link"))
		}
	}
	if method == http.MethodGet {
		headers.Add("ETag", ref("#/components/headers/ETag"))
	}
	if created {
		headers.Add("Location", ref("#/components/headers/Location"))
	}
	if headers.Len() > 0 {
		ok.Add("headers", headers)
	}
	ok.Add("content", jsonContent(body))
	out.Add(status, ok)
	if method == http.MethodGet {
		out.Add("304", ref("#/components/responses/NotModified"))
	}

	var bad []string
	for _, a := range e.args {
		if a.Required {
			bad = append(bad, "rest_missing_callback_param")
			break
		}
	}
	if len(e.args) > 0 {
		bad = append(bad, "rest_invalid_param")
	}
	if hasBody {
		bad = append(bad, "rest_invalid_json")
	}
	if len(bad) > 0 {
		out.Add("400", b.errorRef(http.StatusBadRequest, "Invalid parameters or body.", bad))
	}
	unauth := []string{"rest_authentication_failed"}
	forbidden := []string{"rest_cookie_invalid_nonce"}
	desc401 := "Not signed in, or wrong credentials."
	desc403 := "Signed in but not allowed, or a wrong nonce."
	if e.Permission != nil {
		unauth = append([]string{"rest_forbidden"}, unauth...)
		forbidden = append([]string{"rest_forbidden"}, forbidden...)
		desc401 += " A permission check that fails for an anonymous caller answers 401 with rest_forbidden or the route's own code (such as rest_cannot_create)."
		desc403 += " A permission check that fails for a signed-in caller answers 403 with rest_forbidden or the route's own code."
	}
	out.Add("401", b.errorRef(http.StatusUnauthorized, desc401, unauth))
	out.Add("403", b.errorRef(http.StatusForbidden, desc403, forbidden))
	if hasPathParams {
		out.Add("404", b.errorRef(http.StatusNotFound, "No such item; the code names the resource (such as rest_post_invalid_id).", nil))
	}
	if hasBody {
		out.Add("413", b.errorRef(http.StatusRequestEntityTooLarge, "The body is larger than the server accepts.", []string{"rest_request_too_large"}))
	}
	out.Add("default", ref("#/components/responses/ServerError"))
	return out
}

// errorMessages are the messages of the codes the request pipeline gives,
// for the examples of error responses.
var errorMessages = map[string]string{
	"rest_missing_callback_param": "Missing parameter(s): name",
	"rest_invalid_param":          "Invalid parameter(s): name",
	"rest_invalid_json":           "Invalid JSON body passed: unexpected EOF",
	"rest_forbidden":              msgForbidden,
	"rest_authentication_failed":  "The login or application password is incorrect.",
	"rest_cookie_invalid_nonce":   "Cookie nonce is invalid",
	"rest_request_too_large":      msgTooLarge,
	"rest_internal_error":         msgInternal,
	"rest_database_unavailable":   msgDatabaseUnavailable,
}

// errorRef returns a reference to the shared error response of status
// with these codes, adding it to the components on first use; it is
// named after the status and the codes (UnauthorizedForbiddenAuthenticationFailed).
func (b *oaBuilder) errorRef(status int, desc string, codes []string) *Keyed {
	name := pascal(http.StatusText(status))
	for _, c := range codes {
		name += pascal(strings.TrimPrefix(c, "rest_"))
	}
	if _, ok := b.errResps.Get(name); !ok {
		b.errResps.Add(name, errorResponseObject(status, desc, codes))
	}
	return ref("#/components/responses/" + name)
}

// errorResponseObject is an error response whose examples name codes.
func errorResponseObject(status int, desc string, codes []string) *Keyed {
	r := NewKeyed()
	if len(codes) > 0 {
		desc += " Codes: " + strings.Join(codes, ", ") + "."
	}
	r.Add("description", desc)
	mt := NewKeyed()
	mt.Add("schema", ref("#/components/schemas/Error"))
	if len(codes) > 0 {
		ex := NewKeyed()
		for _, c := range codes {
			ex.Add(c, errorExample(c, status))
		}
		mt.Add("examples", ex)
	}
	content := NewKeyed()
	content.Add("application/json", mt)
	r.Add("content", content)
	return r
}

// errorExample is an example object of an error code.
func errorExample(code string, status int) *Keyed {
	data := NewKeyed()
	data.Add("status", status)
	val := NewKeyed()
	val.Add("code", code)
	val.Add("message", errorMessages[code])
	val.Add("data", data)
	ex := NewKeyed()
	ex.Add("value", val)
	return ex
}

func ref(to string) *Keyed {
	r := NewKeyed()
	r.Add("$ref", to)
	return r
}

func jsonContent(schemaObj any) *Keyed {
	mt := NewKeyed()
	mt.Add("schema", schemaObj)
	c := NewKeyed()
	c.Add("application/json", mt)
	return c
}

// paramComponent is the name of a shared parameter's component.
func paramComponent(name string) string {
	switch name {
	case "If-None-Match":
		return "IfNoneMatch"
	}
	return strings.TrimPrefix(name, "_")
}

// queryParam describes an argument read from the query string.
func queryParam(a *Arg) *Keyed {
	p := NewKeyed()
	p.Add("name", a.Name)
	p.Add("in", "query")
	if a.Description != "" {
		p.Add("description", a.Description)
	}
	if a.Required {
		p.Add("required", true)
	}
	switch a.Type {
	case "array":
		p.Add("style", "form")
		p.Add("explode", true)
	case "object":
		p.Add("style", "deepObject")
		p.Add("explode", true)
	}
	p.Add("schema", argSchema(a, false))
	return p
}

// writeSchema is the JSON Schema of a write argument. An object with a
// raw part (title, content, excerpt) takes the raw value as a string, or
// an object with its writable parts.
func writeSchema(a *Arg, prop *schema.Property) *Keyed {
	if a.Type != "object" || prop == nil || prop.Type != "object" {
		return argSchema(a, true)
	}
	i := slices.IndexFunc(prop.Properties, func(p *schema.Property) bool { return p.Name == "raw" })
	if i < 0 {
		return argSchema(a, true)
	}
	obj := NewKeyed()
	obj.Add("type", "object")
	props := NewKeyed()
	props.Add("raw", propertySchema(prop.Properties[i]))
	obj.Add("properties", props)
	out := NewKeyed()
	if a.Description != "" {
		out.Add("description", a.Description+" A string sets the raw value.")
	}
	out.Add("anyOf", []any{typed("string", ""), obj})
	return out
}

// argSchema is the JSON Schema of an argument's value; withDesc adds its
// description.
func argSchema(a *Arg, withDesc bool) *Keyed {
	out := NewKeyed()
	if withDesc && a.Description != "" {
		out.Add("description", a.Description)
	}
	typ, format := jsonType(a.Type, a.Format)
	if typ != "" {
		out.Add("type", typ)
	}
	if format != "" && typ != "array" {
		out.Add("format", format)
	}
	if a.Type == "array" {
		items := NewKeyed()
		if a.Items != "" {
			items.Add("type", a.Items)
		}
		if len(a.Enum) > 0 {
			items.Add("enum", a.Enum)
		}
		out.Add("items", items)
	} else if len(a.Enum) > 0 {
		out.Add("enum", a.Enum)
	}
	if typ == "object" {
		out.Add("additionalProperties", true)
	}
	if a.MaxItems > 0 && a.Type == "array" {
		out.Add("maxItems", a.MaxItems)
	}
	if a.MaxLength > 0 && typ != "array" {
		out.Add("maxLength", a.MaxLength)
	}
	if a.Minimum != nil {
		if a.ExclusiveMinimum {
			out.Add("exclusiveMinimum", *a.Minimum)
		} else {
			out.Add("minimum", *a.Minimum)
		}
	}
	if a.Maximum != nil {
		if a.ExclusiveMaximum {
			out.Add("exclusiveMaximum", *a.Maximum)
		} else {
			out.Add("maximum", *a.Maximum)
		}
	}
	if a.Default != nil {
		out.Add("default", a.Default)
	}
	return out
}

// jsonType returns a JSON Schema type and format for a schema type: the
// original's schemas name some string formats as types ("date-time"),
// which JSON Schema spells as type string with that format.
func jsonType(typ, format string) (string, string) {
	switch typ {
	case "", "string", "integer", "number", "boolean", "array", "object", "null":
		return typ, format
	case "date-time", "email", "uri":
		return "string", typ
	}
	return "", format
}

// routeSchema returns the item schema of a route, nil when it has none.
func routeSchema(rt *route) *schema.Object {
	if rt.def.Schema == nil {
		return nil
	}
	return rt.def.Schema()
}

// itemRef returns a reference to the component describing the route's
// items, adding the component on first use; nil when the route has no
// item schema.
func (b *oaBuilder) itemRef(rt *route) *Keyed {
	o := routeSchema(rt)
	if o == nil {
		return nil
	}
	if name, ok := b.byObject[o]; ok {
		return ref("#/components/schemas/" + name)
	}
	obj := itemSchema(o)
	enc := b.s.AppendJSON(nil, obj)
	base := componentName(o.Title)
	name := base
	for i := 2; ; i++ {
		prev, taken := b.encoded[name]
		if !taken {
			b.encoded[name] = enc
			b.schemas.Add(name, obj)
			break
		}
		if bytes.Equal(prev, enc) {
			break
		}
		name = base + strconv.Itoa(i)
	}
	b.byObject[o] = name
	return ref("#/components/schemas/" + name)
}

// componentName turns a schema title into a component name: "post" is
// Post, "post-revision" PostRevision.
func componentName(title string) string {
	n := pascal(title)
	if n == "" || !unicode.IsLetter(rune(n[0])) {
		n = "Item" + n
	}
	return n
}

// itemSchema is the JSON Schema of a resource: its properties (with their
// contexts under x-context), then _links and _embedded.
func itemSchema(o *schema.Object) *Keyed {
	out := NewKeyed()
	out.Add("type", "object")
	if o.Title != "" {
		out.Add("title", o.Title)
	}
	out.Add("description", "A "+orDefault(o.Title, "item")+" as the API answers it. Which properties are present depends on the request's context (see x-context on each) and _fields.")
	props := NewKeyed()
	for _, p := range o.Properties {
		props.Add(p.Name, propertySchema(p))
	}
	props.Add("_links", ref("#/components/schemas/Links"))
	emb := NewKeyed()
	emb.Add("type", "object")
	emb.Add("description", "Linked items, when the request has _embed, by relation.")
	arr := NewKeyed()
	arr.Add("type", "array")
	emb.Add("additionalProperties", arr)
	props.Add("_embedded", emb)
	out.Add("properties", props)
	return out
}

// propertySchema is the JSON Schema of one property of an item schema.
func propertySchema(p *schema.Property) *Keyed {
	out := NewKeyed()
	if p.Description != "" {
		out.Add("description", p.Description)
	}
	typ, format := jsonType(p.Type, p.Format)
	if typ != "" {
		out.Add("type", typ)
	}
	if format != "" {
		out.Add("format", format)
	}
	if len(p.Enum) > 0 {
		out.Add("enum", p.Enum)
	}
	if p.Items != nil {
		out.Add("items", propertySchema(p.Items))
	}
	if len(p.Properties) > 0 {
		props := NewKeyed()
		for _, c := range p.Properties {
			props.Add(c.Name, propertySchema(c))
		}
		out.Add("properties", props)
	} else if typ == "object" {
		out.Add("additionalProperties", true)
	}
	if p.Readonly {
		out.Add("readOnly", true)
	}
	if p.Default != nil {
		out.Add("default", p.Default)
	}
	if p.Context != 0 {
		out.Add("x-context", p.Context.Names())
	}
	return out
}

// components holds the shared schemas, parameters, headers, responses
// and security schemes.
func (b *oaBuilder) components(batchable []string) *Keyed {
	n := b.s.cfg.Names
	schemas := NewKeyed()
	for _, k := range b.schemas.Keys() {
		v, _ := b.schemas.Get(k)
		schemas.Add(k, v)
	}
	schemas.Add("Links", linksSchema())
	schemas.Add("Link", linkSchema())
	schemas.Add("Error", errorSchema())
	schemas.Add("BatchRequest", batchRequestSchema(batchable, n))
	schemas.Add("BatchResponse", batchResponseSchema())
	schemas.Add("BatchItemResponse", batchItemSchema())

	params := NewKeyed()
	params.Add("fields", sharedParam("_fields", "query", "Limit the response to these fields: a comma-separated list, with dotted paths for nested fields (title.rendered).", "string"))
	params.Add("embed", sharedParam("_embed", "query", "Embed the linked items of embeddable links under _embedded (all of them, or only the named relations).", "string"))
	params.Add("envelope", sharedParam("_envelope", "query", "Answer 200 with {body, status, headers} instead of the real status and headers.", "string"))
	params.Add("jsonp", sharedParam("_jsonp", "query", "Answer as JavaScript calling this function ([A-Za-z0-9_.]+) with the JSON.", "string"))
	params.Add("IfNoneMatch", sharedParam("If-None-Match", "header", "An ETag of an earlier answer: when it is still current, the answer is 304 Not Modified (anonymous reads).", "string"))

	headers := NewKeyed()
	headers.Add("Total", headerObject("The number of items in the whole collection.", "integer"))
	headers.Add("TotalPages", headerObject("The number of pages at this per_page.", "integer"))
	headers.Add("Link", headerObject(`Links to the neighbouring pages: <url>; rel="prev", <url>; rel="next".`, "string"))
	headers.Add("ETag", headerObject("The entity tag of an anonymous read, for If-None-Match.", "string"))
	headers.Add("Location", headerObject("The URL of the created item.", "string"))

	responses := NewKeyed()
	nm := NewKeyed()
	nm.Add("description", "Not Modified: the If-None-Match tag is current.")
	responses.Add("NotModified", nm)
	se := errorResponseObject(http.StatusInternalServerError, "The server failed (500 rest_internal_error), its database is unavailable (503 rest_database_unavailable, with Retry-After) or the caller went past a rate limit (429 rest_too_many_requests, with Retry-After).", []string{"rest_internal_error"})
	responses.Add("ServerError", se)
	for _, k := range b.errResps.Keys() {
		v, _ := b.errResps.Get(k)
		responses.Add(k, v)
	}

	sec := NewKeyed()
	basic := NewKeyed()
	basic.Add("type", "http")
	basic.Add("scheme", "basic")
	basic.Add("description", "HTTP Basic with the user's login and one of their application passwords (never the account password).")
	sec.Add("applicationPassword", basic)
	if b.info.SessionCookie != "" {
		cookie := NewKeyed()
		cookie.Add("type", "apiKey")
		cookie.Add("in", "cookie")
		cookie.Add("name", b.info.SessionCookie)
		cookie.Add("description", "The browser session cookie set by POST /login. It signs a request in only together with a valid nonce.")
		sec.Add("sessionCookie", cookie)
		nonce := NewKeyed()
		nonce.Add("type", "apiKey")
		nonce.Add("in", "header")
		nonce.Add("name", n.NonceHeader())
		nonce.Add("description", "The nonce of the session (window."+n.SettingsObject+".nonce on the site's pages, or "+n.NonceEndpoint+"); also accepted as the "+n.NonceParam+" parameter.")
		sec.Add("nonce", nonce)
	}

	out := NewKeyed()
	out.Add("schemas", schemas)
	out.Add("parameters", params)
	out.Add("headers", headers)
	out.Add("responses", responses)
	out.Add("securitySchemes", sec)
	return out
}

func sharedParam(name, in, desc, typ string) *Keyed {
	p := NewKeyed()
	p.Add("name", name)
	p.Add("in", in)
	p.Add("description", desc)
	s := NewKeyed()
	s.Add("type", typ)
	p.Add("schema", s)
	return p
}

func headerObject(desc, typ string) *Keyed {
	h := NewKeyed()
	h.Add("description", desc)
	s := NewKeyed()
	s.Add("type", typ)
	h.Add("schema", s)
	return h
}

func typed(typ, desc string) *Keyed {
	k := NewKeyed()
	k.Add("type", typ)
	if desc != "" {
		k.Add("description", desc)
	}
	return k
}

func linksSchema() *Keyed {
	out := typed("object", "Links to related resources by relation; relations under the link-relation base are compacted to curies.")
	arr := typed("array", "")
	arr.Add("items", ref("#/components/schemas/Link"))
	out.Add("additionalProperties", arr)
	return out
}

func linkSchema() *Keyed {
	out := typed("object", "")
	props := NewKeyed()
	href := typed("string", "")
	href.Add("format", "uri")
	props.Add("href", href)
	props.Add("embeddable", typed("boolean", "Whether _embed embeds the linked item."))
	props.Add("templated", typed("boolean", ""))
	props.Add("name", typed("string", ""))
	props.Add("taxonomy", typed("string", ""))
	props.Add("count", typed("integer", ""))
	out.Add("properties", props)
	out.Add("required", []string{"href"})
	return out
}

func errorSchema() *Keyed {
	out := typed("object", "The error object every failure answers with.")
	props := NewKeyed()
	props.Add("code", typed("string", "A machine-readable code, such as rest_invalid_param."))
	props.Add("message", typed("string", "A human-readable message."))
	data := typed("object", "")
	dprops := NewKeyed()
	dprops.Add("status", typed("integer", "The HTTP status."))
	params := typed("object", "For rest_invalid_param, the reason of each invalid parameter; for rest_missing_callback_param, the missing names.")
	dprops.Add("params", params)
	data.Add("properties", dprops)
	props.Add("data", data)
	out.Add("properties", props)
	out.Add("required", []string{"code", "message"})
	return out
}

func batchRequestSchema(batchable []string, n Names) *Keyed {
	out := typed("object", "")
	props := NewKeyed()
	v := typed("string", "require-all-validate runs nothing unless every request is valid; normal runs each valid request. require-all-valid is accepted for require-all-validate.")
	v.Add("enum", []string{BatchRequireAllValid, BatchNormal})
	v.Add("default", BatchNormal)
	props.Add("validation", v)
	reqs := typed("array", "")
	reqs.Add("maxItems", MaxBatchRequests)
	item := typed("object", "")
	ip := NewKeyed()
	m := typed("string", "")
	m.Add("enum", batchMethods)
	m.Add("default", http.MethodPost)
	ip.Add("method", m)
	desc := "The route path with its query, relative to the API root, such as /" + n.Namespace + "/posts/5?context=edit."
	if len(batchable) > 0 {
		desc += " Routes that allow batching: " + strings.Join(batchable, ", ") + "."
	}
	ip.Add("path", typed("string", desc))
	body := typed("object", "The arguments, as a JSON body would carry them.")
	ip.Add("body", body)
	hv := NewKeyed()
	hv.Add("anyOf", []any{typed("string", ""), func() *Keyed {
		a := typed("array", "")
		a.Add("items", typed("string", ""))
		return a
	}()})
	hdr := typed("object", "Request headers of this request (authentication is the batch's own).")
	hdr.Add("additionalProperties", hv)
	ip.Add("headers", hdr)
	item.Add("properties", ip)
	item.Add("required", []string{"path"})
	reqs.Add("items", item)
	props.Add("requests", reqs)
	out.Add("properties", props)
	out.Add("required", []string{"requests"})
	return out
}

func batchResponseSchema() *Keyed {
	out := typed("object", "")
	props := NewKeyed()
	f := typed("string", "Present when validation was require-all-validate and a request failed it: then nothing ran.")
	f.Add("enum", []string{"validation"})
	props.Add("failed", f)
	rs := typed("array", "One entry per request, in order; null for a valid request of a batch that failed validation.")
	rs.Add("items", func() *Keyed {
		k := NewKeyed()
		k.Add("anyOf", []any{ref("#/components/schemas/BatchItemResponse"), typed("null", "")})
		return k
	}())
	props.Add("responses", rs)
	out.Add("properties", props)
	out.Add("required", []string{"responses"})
	return out
}

func batchItemSchema() *Keyed {
	out := typed("object", "")
	props := NewKeyed()
	body := NewKeyed()
	body.Add("description", "The body the request would have answered on its own.")
	props.Add("body", body)
	props.Add("status", typed("integer", "Its HTTP status."))
	h := typed("object", "Its headers.")
	h.Add("additionalProperties", typed("string", ""))
	props.Add("headers", h)
	out.Add("properties", props)
	out.Add("required", []string{"body", "status", "headers"})
	return out
}

// oaPathParam is a path variable of a route pattern.
type oaPathParam struct {
	name, expr string
}

// object describes the path parameter: integers for digit patterns, else
// a string with the route's pattern.
func (pp oaPathParam) object() *Keyed {
	p := NewKeyed()
	p.Add("name", pp.name)
	p.Add("in", "path")
	p.Add("required", true)
	s := NewKeyed()
	switch pp.expr {
	case `[\d]+`, `\d+`, `[0-9]+`:
		s.Add("type", "integer")
	default:
		s.Add("type", "string")
		if pat, ok := jsPattern(pp.expr); ok {
			s.Add("pattern", "^(?:"+pat+")$")
		}
	}
	p.Add("schema", s)
	return p
}

// jsPattern rewrites a route's RE2 group as an ECMA-262 pattern (the
// dialect of JSON Schema, with the u flag): a '-' next to a class escape in
// a character class is escaped. Groups with features JavaScript lacks
// give false.
func jsPattern(expr string) (string, bool) {
	for _, bad := range []string{"(?P", "(?i", "(?s", "(?m", "(?U", `\A`, `\z`, `\Q`, `\p`, `\P`, "[[:"} {
		if strings.Contains(expr, bad) {
			return "", false
		}
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			b.WriteByte(c)
			b.WriteByte(expr[i+1])
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case c == '-' && inClass:
			prevEscape := i >= 2 && expr[i-2] == '\\'
			nextEnd := i+1 < len(expr) && (expr[i+1] == ']' || expr[i+1] == '\\')
			if prevEscape || nextEnd || expr[i-1] == '[' {
				b.WriteString(`\-`)
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// pathTemplate turns a route pattern into an OpenAPI path template:
// `/svc/v2/posts/(?P<id>[\d]+)` is /svc/v2/posts/{id} with the variable id.
// A pattern with regular-expression syntax outside its named groups
// cannot be written as a template and gives false.
func pathTemplate(key string) (string, []oaPathParam, bool) {
	var b strings.Builder
	var params []oaPathParam
	for i := 0; i < len(key); {
		c := key[i]
		switch {
		case strings.HasPrefix(key[i:], "(?P<"):
			end := strings.IndexByte(key[i+4:], '>')
			if end <= 0 {
				return "", nil, false
			}
			name := key[i+4 : i+4+end]
			start := i + 4 + end + 1
			close, ok := groupEnd(key, start)
			if !ok {
				return "", nil, false
			}
			params = append(params, oaPathParam{name: name, expr: key[start:close]})
			b.WriteString("{" + name + "}")
			i = close + 1
		case c == '\\' && i+1 < len(key) && !isWordByte(key[i+1]):
			b.WriteByte(key[i+1])
			i += 2
		case strings.IndexByte(regexMeta, c) >= 0:
			return "", nil, false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), params, true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// groupEnd returns the index of the ')' that closes a group whose body
// starts at start, skipping escapes and character classes.
func groupEnd(s string, start int) (int, bool) {
	depth := 1
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i++
			if i < len(s) && s[i] == '^' {
				i++
			}
			if i < len(s) && s[i] == ']' {
				i++
			}
			for i < len(s) && s[i] != ']' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}
