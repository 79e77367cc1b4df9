package rest

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/folio-server/folio/internal/schema"
)

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
