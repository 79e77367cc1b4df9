package rest

import (
	"strings"

	"github.com/folio-server/folio/internal/schema"
)

// fieldMask is a parsed _fields parameter ("id,title.rendered,_links"):
// the tree of field names a response shows. A node with all set shows
// its whole value; otherwise only the keys in sub. A nil *fieldMask
// shows everything.
type fieldMask struct {
	all bool
	sub map[string]*fieldMask
}

// parseFieldMask builds the mask of a _fields value: a comma (or white
// space) separated list, or a list of such strings. A parent listed whole
// wins over its listed children ("title,title.raw" shows all of title).
// It returns nil when the list is empty.
func parseFieldMask(v any) *fieldMask {
	var root *fieldMask
	for _, f := range schema.StringList(v) {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if root == nil {
			root = &fieldMask{sub: map[string]*fieldMask{}}
		}
		node := root
		parts := strings.Split(f, ".")
		for i, p := range parts {
			if node.all {
				break
			}
			c := node.sub[p]
			if c == nil {
				c = &fieldMask{}
				if node.sub == nil {
					node.sub = map[string]*fieldMask{}
				}
				node.sub[p] = c
			}
			if i == len(parts)-1 {
				c.all, c.sub = true, nil
			}
			node = c
		}
	}
	return root
}

// includes reports whether the field at a dotted path shows, as
// WordPress's rest_is_field_included decides: it is listed, one of its
// parents is listed whole, or one of its children is listed.
func (m *fieldMask) includes(path string) bool {
	node := m
	for {
		if node == nil || node.all {
			return true
		}
		seg, rest, more := strings.Cut(path, ".")
		c, ok := node.sub[seg]
		if !ok {
			return false
		}
		if !more {
			return true
		}
		node, path = c, rest
	}
}

// child returns the mask of the value under key and whether that key
// shows at all; the returned mask is nil when the whole value shows.
func (m *fieldMask) child(key string) (*fieldMask, bool) {
	if m == nil || m.all {
		return nil, true
	}
	c, ok := m.sub[key]
	if !ok {
		return nil, false
	}
	if c.all {
		return nil, true
	}
	return c, true
}

// equal reports whether two masks show the same fields.
func (m *fieldMask) equal(o *fieldMask) bool {
	if m == nil || o == nil {
		return m == o
	}
	if m.all || o.all {
		return m.all == o.all
	}
	if len(m.sub) != len(o.sub) {
		return false
	}
	for k, c := range m.sub {
		d, ok := o.sub[k]
		if !ok || !c.equal(d) {
			return false
		}
	}
	return true
}

// fields returns the request's _fields mask (nil when the request has no
// _fields or an empty one). An embedded request has the mask of its
// relation under "_embedded" instead of a parameter of its own.
func (r *Request) fields() *fieldMask {
	if !r.maskDone {
		r.maskDone = true
		if !r.embedded {
			if v, ok := r.raw("_fields", true); ok {
				r.mask = parseFieldMask(v)
			}
		}
	}
	return r.mask
}

// Wants reports whether the response to r shows the field at path
// ("content", "title.rendered", "_links"): always, unless the request's
// _fields leaves the field out. Controllers ask it before computing a
// field, so that a request for a few fields does not pay for the others
// (rendering, term and parent lookups, links).
//
// When _fields names a field an extension registered on the route's
// resource, every field is computed (and _fields still decides what is
// shown): the field's Get may read any other field of the resource, and
// must get the same inputs whatever _fields asks for.
func (r *Request) Wants(path string) bool {
	m := r.fields()
	return m.includes(path) || r.wantsRegisteredField(m)
}

// wantsRegisteredField reports whether mask (r's _fields) names a
// registered field with a Get of r's resource.
func (r *Request) wantsRegisteredField(mask *fieldMask) bool {
	if !r.inputsDone {
		r.inputsDone = true
		if r.srv != nil && mask != nil {
			for _, f := range r.srv.extra.fields[r.SchemaTitle()] {
				if f.Get != nil && mask.includes(f.Schema.Name) {
					r.allInputs = true
					break
				}
			}
		}
	}
	return r.allInputs
}

// WantsLinks reports whether the resources of r's response need their
// links: the response shows _links, or embeds linked resources (which are
// found through the links).
func (r *Request) WantsLinks() bool {
	m := r.fields()
	if m == nil || m.includes("_links") {
		return true
	}
	return r.embedRequested() && m.includes("_embedded")
}

// Embeds reports whether the response to r embeds linked resources: r is
// a top-level request with _embed and its _fields (if any) shows
// _embedded. Controllers ask it before keeping data that only the embedded
// sub-requests would read back from Cache.
func (r *Request) Embeds() bool {
	if !r.embedRequested() {
		return false
	}
	_, ok := r.fields().child("_embedded")
	return ok
}

// embedRequested reports whether r is a top-level request with _embed.
func (r *Request) embedRequested() bool {
	if r.embedded {
		return false
	}
	_, ok := r.Query["_embed"]
	return ok
}

// embedRels parses the _embed parameter like WordPress's
// rest_parse_embed_param: empty, "true" or "1" embed every relation (nil);
// otherwise the list of relation names to embed.
func embedRels(vals []string) []string {
	v := ""
	if len(vals) > 0 {
		v = vals[len(vals)-1]
	}
	if v == "" || v == "true" || v == "1" {
		return nil
	}
	var rels []string
	for _, s := range vals {
		rels = append(rels, schema.StringList(s)...)
	}
	if len(rels) == 0 {
		return nil
	}
	return rels
}
