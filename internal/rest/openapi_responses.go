package rest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/schema"
)

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
