package rest

import (
	"github.com/folio-server/folio/internal/schema"
)

// Resource is one resource object of a response: values for the
// properties of its schema, its links, and the context it is shown in.
// It is encoded with its schema properties in declared order (only those
// that were set and whose context intersects the resource's), then
// _links, then _embedded when the request asked for it.
type Resource struct {
	Schema  *schema.Object
	Context schema.Context

	values []any
	set    []uint64 // bit set of the set values
	links  []link
}

// LinkAttr is an extra attribute of a link, e.g. {"taxonomy", "category"}.
type LinkAttr struct {
	Key   string
	Value any
}

type link struct {
	rel        string
	href       string
	embeddable bool
	attrs      []LinkAttr
}

// NewResource returns an empty resource of schema s shown in context ctx.
func NewResource(s *schema.Object, ctx schema.Context) *Resource {
	n := len(s.Properties)
	return &Resource{
		Schema:  s,
		Context: ctx,
		values:  make([]any, n),
		set:     make([]uint64, (n+63)/64),
		links:   make([]link, 0, 8),
	}
}

// NewResources returns n empty resources of schema s shown in context ctx,
// each with room for links links, made with a handful of allocations
// instead of a few per resource (a page of a collection).
func NewResources(s *schema.Object, ctx schema.Context, n, links int) []*Resource {
	props := len(s.Properties)
	words := (props + 63) / 64
	all := make([]Resource, n)
	values := make([]any, n*props)
	set := make([]uint64, n*words)
	linkBuf := make([]link, 0, n*links)
	out := make([]*Resource, n)
	for i := range all {
		r := &all[i]
		r.Schema, r.Context = s, ctx
		// Full slice expressions: growing one resource's slices copies
		// them instead of writing into the next resource's.
		r.values = values[i*props : (i+1)*props : (i+1)*props]
		r.set = set[i*words : (i+1)*words : (i+1)*words]
		r.links = linkBuf[i*links : i*links : (i+1)*links]
		out[i] = r
	}
	return out
}

func (r *Resource) grow(n int) {
	if n > len(r.values) {
		r.values = append(r.values, make([]any, n-len(r.values))...)
	}
	if words := (n + 63) / 64; words > len(r.set) {
		r.set = append(r.set, make([]uint64, words-len(r.set))...)
	}
}

func (r *Resource) isSet(i int) bool {
	return i/64 < len(r.set) && r.set[i/64]&(1<<(uint(i)%64)) != 0
}

// Set sets the value of the property called name. Names that are not
// properties of the schema are ignored. Values may be string, bool,
// int/int64, float64, nil (JSON null), []int64, []string, map[string]any
// (a nested object, filtered by the nested properties' contexts and
// written in their order; undeclared keys are dropped) or anything
// encoding/json handles.
func (r *Resource) Set(name string, v any) {
	r.SetIndex(r.Schema.Index(name), v)
}

// SetIndex sets the value of the i-th schema property (see
// schema.Object.Index); it avoids the name lookup of Set. A negative or
// out-of-range index is ignored.
func (r *Resource) SetIndex(i int, v any) {
	if i < 0 || i >= len(r.Schema.Properties) {
		return
	}
	if i >= len(r.values) {
		r.grow(len(r.Schema.Properties))
	}
	r.values[i] = v
	r.set[i/64] |= 1 << (uint(i) % 64)
}

// Value returns the value of the property called name and whether it was
// set.
func (r *Resource) Value(name string) (any, bool) {
	i := r.Schema.Index(name)
	if i < 0 || !r.isSet(i) || i >= len(r.values) {
		return nil, false
	}
	return r.values[i], true
}

// Unset removes the value of the property called name.
func (r *Resource) Unset(name string) {
	i := r.Schema.Index(name)
	if i < 0 || i >= len(r.values) {
		return
	}
	r.values[i] = nil
	r.set[i/64] &^= 1 << (uint(i) % 64)
}

// AddLink adds a link under relation rel. A rel that starts with the
// relation base (Names.RelBase) is written in compact form
// ("wp:featuredmedia") with a curies entry. Embeddable links are fetched
// into _embedded when the request carries _embed.
func (r *Resource) AddLink(rel, href string, embeddable bool, attrs ...LinkAttr) {
	r.links = append(r.links, link{rel: rel, href: href, embeddable: embeddable, attrs: attrs})
}

// Link describes one link of a resource.
type Link struct {
	Rel        string
	Href       string
	Embeddable bool
	Attrs      []LinkAttr
}

// Links returns the resource's links in the order they were added, with
// their full (not compacted) relation names.
func (r *Resource) Links() []Link {
	out := make([]Link, len(r.links))
	for i, l := range r.links {
		out[i] = Link{Rel: l.rel, Href: l.href, Embeddable: l.embeddable, Attrs: l.attrs}
	}
	return out
}

// Keyed is a JSON object whose keys keep their insertion order, for
// collections keyed by slug (/types, /statuses, /taxonomies). An empty
// Keyed encodes as {}.
type Keyed struct {
	items []schema.KV
}

// NewKeyed returns an empty Keyed.
func NewKeyed() *Keyed { return &Keyed{} }

// Add appends key with value v (a *Resource or any other value). Adding
// an existing key replaces its value in place.
func (k *Keyed) Add(key string, v any) {
	for i := range k.items {
		if k.items[i].Key == key {
			k.items[i].Value = v
			return
		}
	}
	k.items = append(k.items, schema.KV{Key: key, Value: v})
}

// ofResources reports whether k is a keyed collection: every value a
// resource.
func (k *Keyed) ofResources() bool {
	for _, kv := range k.items {
		if _, ok := kv.Value.(*Resource); !ok {
			return false
		}
	}
	return len(k.items) > 0
}

// Len returns the number of keys.
func (k *Keyed) Len() int { return len(k.items) }

// Get returns the value stored under key.
func (k *Keyed) Get(key string) (any, bool) {
	for _, kv := range k.items {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Keys returns the keys in order.
func (k *Keyed) Keys() []string {
	out := make([]string, len(k.items))
	for i, kv := range k.items {
		out[i] = kv.Key
	}
	return out
}

// MarshalJSON encodes k with the package's encoder, so a Keyed nested in
// values encoded by encoding/json keeps its order.
func (k *Keyed) MarshalJSON() ([]byte, error) {
	e := encoder{c: newCompactor(DefaultNames())}
	e.keyed(k)
	return e.buf, nil
}
