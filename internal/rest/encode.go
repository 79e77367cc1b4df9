package rest

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/schema"
)

// encoder appends JSON to a byte slice. It knows the response types of
// this package (Resource, Keyed, Error) and the common Go values, and
// falls back to encoding/json for everything else. Strings are not
// HTML-escaped.
type encoder struct {
	buf []byte
	c   *compactor
	// embeds, when set, maps resources to their pre-encoded "_embedded"
	// object.
	embeds map[*Resource][]byte
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip plain ASCII eight bytes at a time: most of a response is
		// long runs of it (rendered content), copied in one append below.
		// A word is plain when none of its bytes is a control character,
		// '"', '\\' or part of a multi-byte sequence: each test sets the
		// high bit of such a byte. A borrow in the subtractions only
		// crosses a byte that is itself flagged, so a plain word is never
		// taken for another; a flagged one is looked at byte by byte.
		for i+8 <= len(s) {
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if (x|(x-0x20*ones8)|((x^'"'*ones8)-ones8)|((x^'\\'*ones8)-ones8))&highs8 != 0 {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const (
	ones8  = 0x0101010101010101
	highs8 = 0x8080808080808080
)

func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// value appends any value.
func (e *encoder) value(v any) {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.buf = appendString(e.buf, x)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, x, 10)
	case uint:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case float64:
		e.buf = appendFloat(e.buf, x)
	case json.Number:
		e.buf = append(e.buf, x...)
	case json.RawMessage:
		if len(x) == 0 {
			e.buf = append(e.buf, "null"...)
		} else {
			e.buf = append(e.buf, x...)
		}
	case *Resource:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.resource(x, nil)
	case []*Resource:
		e.buf = append(e.buf, '[')
		for i, r := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.value(r)
		}
		e.buf = append(e.buf, ']')
	case *Keyed:
		e.keyed(x)
	case *Error:
		e.errorBody(x)
	case []int64:
		e.buf = append(e.buf, '[')
		for i, n := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = strconv.AppendInt(e.buf, n, 10)
		}
		e.buf = append(e.buf, ']')
	case []int:
		e.buf = append(e.buf, '[')
		for i, n := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = strconv.AppendInt(e.buf, int64(n), 10)
		}
		e.buf = append(e.buf, ']')
	case []string:
		e.buf = append(e.buf, '[')
		for i, s := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = appendString(e.buf, s)
		}
		e.buf = append(e.buf, ']')
	case []any:
		e.buf = append(e.buf, '[')
		for i, s := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.value(s)
		}
		e.buf = append(e.buf, ']')
	case map[string]any:
		e.mapSorted(x)
	case map[string]string:
		e.buf = append(e.buf, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			e.key(i == 0, k)
			e.buf = appendString(e.buf, x[k])
		}
		e.buf = append(e.buf, '}')
	case schema.Ordered:
		e.buf = append(e.buf, '{')
		for i, kv := range x {
			e.key(i == 0, kv.Key)
			e.value(kv.Value)
		}
		e.buf = append(e.buf, '}')
	default:
		b, err := json.Marshal(x)
		if err != nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.buf = append(e.buf, b...)
	}
}

// key appends "k": to an object, after a comma unless it is the first
// member.
func (e *encoder) key(first bool, k string) {
	if !first {
		e.buf = append(e.buf, ',')
	}
	e.buf = appendString(e.buf, k)
	e.buf = append(e.buf, ':')
}

// mapSorted appends m as an object with its keys in sorted order.
func (e *encoder) mapSorted(m map[string]any) {
	e.buf = append(e.buf, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		e.key(i == 0, k)
		e.value(m[k])
	}
	e.buf = append(e.buf, '}')
}

// masked appends v showing only the fields of mask (everything when mask
// is nil): the properties of resources, the keys of objects, and for
// lists, of each element. A keyed collection of resources (/types) masks
// each resource; errors are never masked.
func (e *encoder) masked(v any, mask *fieldMask) {
	if mask == nil {
		e.value(v)
		return
	}
	switch x := v.(type) {
	case *Resource:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.resource(x, mask)
	case []*Resource:
		e.buf = append(e.buf, '[')
		for i, r := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.masked(r, mask)
		}
		e.buf = append(e.buf, ']')
	case []any:
		e.buf = append(e.buf, '[')
		for i, s := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.masked(s, mask)
		}
		e.buf = append(e.buf, ']')
	case *Keyed:
		if x != nil && x.ofResources() {
			e.buf = append(e.buf, '{')
			for i, kv := range x.items {
				e.key(i == 0, kv.Key)
				e.masked(kv.Value, mask)
			}
			e.buf = append(e.buf, '}')
			return
		}
		var items []schema.KV
		if x != nil {
			items = x.items
		}
		e.maskedKVs(items, mask)
	case schema.Ordered:
		e.maskedKVs(x, mask)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kvs := make([]schema.KV, len(keys))
		for i, k := range keys {
			kvs[i] = schema.KV{Key: k, Value: x[k]}
		}
		e.maskedKVs(kvs, mask)
	default:
		e.value(v)
	}
}

// maskedKVs appends an object of the pairs whose keys mask shows.
func (e *encoder) maskedKVs(kvs []schema.KV, mask *fieldMask) {
	e.buf = append(e.buf, '{')
	first := true
	for _, kv := range kvs {
		sub, ok := mask.child(kv.Key)
		if !ok {
			continue
		}
		e.key(first, kv.Key)
		first = false
		e.masked(kv.Value, sub)
	}
	e.buf = append(e.buf, '}')
}

// nested appends a nested object value filtered by the nested properties'
// contexts and by mask, in their declaration order.
func (e *encoder) nested(props []*schema.Property, ctx schema.Context, v any, mask *fieldMask) {
	m, ok := v.(map[string]any)
	if !ok {
		e.masked(v, mask)
		return
	}
	e.buf = append(e.buf, '{')
	first := true
	for _, p := range props {
		if p.Context&ctx == 0 {
			continue
		}
		if x, ok := m[p.Name]; ok {
			e.property(p, ctx, x, mask, &first)
		}
	}
	e.buf = append(e.buf, '}')
}

// property appends "name":value for a property shown by mask (nothing
// when mask hides it), a comma first unless *first, filtering a nested
// object's properties by ctx and the mask below p.
func (e *encoder) property(p *schema.Property, ctx schema.Context, v any, mask *fieldMask, first *bool) {
	sub, shown := mask.child(p.Name)
	if !shown {
		return
	}
	e.key(*first, p.Name)
	*first = false
	if len(p.Properties) > 0 {
		e.nested(p.Properties, ctx, v, sub)
	} else {
		e.masked(v, sub)
	}
}

// resource appends a resource: its set properties visible in its context
// (and shown by mask, nil = all), in declaration order, then _links, then
// _embedded when present.
func (e *encoder) resource(r *Resource, mask *fieldMask) {
	e.buf = append(e.buf, '{')
	first := true
	props := r.Schema.Properties
	for i, v := range r.values {
		if !r.isSet(i) || i >= len(props) {
			continue
		}
		p := props[i]
		if p.Context&r.Context != 0 {
			e.property(p, r.Context, v, mask, &first)
		}
	}
	if lm, shown := mask.child("_links"); shown && len(r.links) > 0 {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, `"_links":`...)
		e.buf = e.c.appendLinks(e.buf, r.links, lm)
	}
	if emb, ok := e.embeds[r]; ok && len(emb) > 0 {
		if !first {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, `"_embedded":`...)
		e.buf = append(e.buf, emb...)
	}
	e.buf = append(e.buf, '}')
}

func (e *encoder) keyed(k *Keyed) {
	e.buf = append(e.buf, '{')
	if k != nil {
		for i, kv := range k.items {
			e.key(i == 0, kv.Key)
			e.value(kv.Value)
		}
	}
	e.buf = append(e.buf, '}')
}

// errorBody appends {"code","message","data"}.
func (e *encoder) errorBody(x *Error) {
	e.buf = append(e.buf, `{"code":`...)
	e.buf = appendString(e.buf, x.Code)
	e.buf = append(e.buf, `,"message":`...)
	e.buf = appendString(e.buf, x.Message)
	e.buf = append(e.buf, `,"data":`...)
	if x.RawData != nil {
		e.value(x.RawData)
	} else {
		e.buf = append(e.buf, `{"status":`...)
		e.buf = strconv.AppendInt(e.buf, int64(x.HTTPStatus()), 10)
		if len(x.Data) > 0 {
			keys := make([]string, 0, len(x.Data))
			for k := range x.Data {
				if k != "status" {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				e.key(false, k)
				e.value(x.Data[k])
			}
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, '}')
}

// compactor rewrites relation names under the relation base to curies.
type compactor struct {
	relBase   string
	curieName string
	curies    []byte // pre-encoded "curies" value
}

func newCompactor(n Names) *compactor {
	c := &compactor{relBase: n.RelBase, curieName: n.CurieName}
	b := []byte(`[{"name":`)
	b = appendString(b, n.CurieName)
	b = append(b, `,"href":`...)
	b = appendString(b, n.RelBase+"{rel}")
	b = append(b, `,"templated":true}]`...)
	c.curies = b
	return c
}

// compact returns the compacted name of rel and whether it was compacted.
func (c *compactor) compact(rel string) (string, bool) {
	if c.relBase != "" && len(rel) > len(c.relBase) && rel[:len(c.relBase)] == c.relBase {
		return c.curieName + ":" + rel[len(c.relBase):], true
	}
	return rel, false
}

// relGroup is one relation of a resource's links with the indexes of its
// links.
type relGroup struct {
	name      string
	compacted bool
	idx       []int
}

// groups groups links by relation in first-appearance order, with the
// compacted relations moved to the end in their original order.
func (c *compactor) groups(links []link) []relGroup {
	var groups []relGroup
	var small [8]relGroup
	groups = small[:0]
outer:
	for i := range links {
		for g := range groups {
			if groups[g].name == links[i].rel {
				groups[g].idx = append(groups[g].idx, i)
				continue outer
			}
		}
		groups = append(groups, relGroup{name: links[i].rel, idx: []int{i}})
	}
	out := make([]relGroup, 0, len(groups))
	for _, g := range groups {
		if _, ok := c.compact(g.name); !ok {
			out = append(out, g)
		}
	}
	for _, g := range groups {
		if name, ok := c.compact(g.name); ok {
			g.name = name
			g.compacted = true
			out = append(out, g)
		}
	}
	return out
}

func appendLink(b []byte, l *link) []byte {
	b = append(b, '{')
	for _, a := range l.attrs {
		b = appendString(b, a.Key)
		b = append(b, ':')
		e := encoder{buf: b}
		e.value(a.Value)
		b = e.buf
		b = append(b, ',')
	}
	if l.embeddable {
		b = append(b, `"embeddable":true,`...)
	}
	b = append(b, `"href":`...)
	b = appendString(b, l.href)
	return append(b, '}')
}

// appendLinks appends the _links object of a resource without allocating:
// relations in first-appearance order, compacted ones after the others,
// then "curies" when any relation was compacted. A non-nil mask keeps
// only the relations (by their written names) and "curies" it shows.
func (c *compactor) appendLinks(b []byte, links []link, mask *fieldMask) []byte {
	b = append(b, '{')
	first := true
	used := false
	for pass := 0; pass < 2; pass++ {
		for i := range links {
			rel := links[i].rel
			if relSeen(links, i) {
				continue
			}
			compacted := c.isCompact(rel)
			if compacted != (pass == 1) {
				continue
			}
			name := rel
			if compacted {
				name = c.curieName + ":" + rel[len(c.relBase):]
			}
			if mask != nil && !mask.includes(name) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			used = used || compacted
			b = appendString(b, name)
			b = append(b, ':', '[')
			for j := i; j < len(links); j++ {
				if links[j].rel != rel {
					continue
				}
				if j != i {
					b = append(b, ',')
				}
				b = appendLink(b, &links[j])
			}
			b = append(b, ']')
		}
	}
	if used && (mask == nil || mask.includes("curies")) {
		b = append(b, `,"curies":`...)
		b = append(b, c.curies...)
	}
	return append(b, '}')
}

func relSeen(links []link, i int) bool {
	for j := 0; j < i; j++ {
		if links[j].rel == links[i].rel {
			return true
		}
	}
	return false
}

func (c *compactor) isCompact(rel string) bool {
	return c.relBase != "" && len(rel) > len(c.relBase) && rel[:len(c.relBase)] == c.relBase
}

// AppendJSON appends the JSON encoding of data (as a response body would
// be written, with links and curies, without _embedded) to b.
func (s *Server) AppendJSON(b []byte, data any) []byte {
	e := encoder{buf: b, c: s.comp}
	e.value(data)
	return e.buf
}
