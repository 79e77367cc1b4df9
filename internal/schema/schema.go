// Package schema describes resource fields: their JSON types, formats,
// enums and the contexts (view, edit, embed) they appear in, and holds the
// shared validators and sanitizers that request parameters go through.
package schema

import (
	"bytes"
	"encoding/json"
)

// Context is a set of request contexts a field is shown in.
type Context uint8

// The request contexts. A Context value may hold several of them.
const (
	View Context = 1 << iota
	Edit
	Embed
)

// AllContexts is the set of every context.
const AllContexts = View | Edit | Embed

// ParseContext returns the context named s ("view", "edit" or "embed").
func ParseContext(s string) (Context, bool) {
	switch s {
	case "view":
		return View, true
	case "edit":
		return Edit, true
	case "embed":
		return Embed, true
	}
	return 0, false
}

// Names returns the names of the contexts in c, in the order view, edit,
// embed. The result is never nil.
func (c Context) Names() []string {
	names := make([]string, 0, 3)
	if c&View != 0 {
		names = append(names, "view")
	}
	if c&Edit != 0 {
		names = append(names, "edit")
	}
	if c&Embed != 0 {
		names = append(names, "embed")
	}
	return names
}

// Property describes one field of a resource.
type Property struct {
	Name        string
	Description string
	// Type is one of string, integer, number, boolean, array, object, null,
	// or empty when the field has no single type.
	Type string
	// Format is date-time, email, uri or empty.
	Format     string
	Enum       []string
	Context    Context
	Readonly   bool
	Required   bool
	Default    any
	Items      *Property   // element description of an array
	Properties []*Property // nested properties of an object
}

// Rule returns the validation rule of the property.
func (p *Property) Rule() Rule {
	r := Rule{Type: p.Type, Format: p.Format, Enum: p.Enum}
	if p.Items != nil {
		r.Items = p.Items.Type
	}
	return r
}

// Object is the item schema of a resource: a title and its properties in
// declaration order.
type Object struct {
	Title      string
	Properties []*Property
	index      map[string]int
}

// NewObject returns a schema with the given title and properties.
func NewObject(title string, props ...*Property) *Object {
	o := &Object{Title: title, index: make(map[string]int, len(props))}
	for _, p := range props {
		o.Add(p)
	}
	return o
}

// Add appends p to the properties, or replaces the property of the same
// name in place. Add must not run concurrently with readers of o.
func (o *Object) Add(p *Property) {
	if o.index == nil || len(o.index) != len(o.Properties) {
		o.reindex()
	}
	if i, ok := o.index[p.Name]; ok {
		o.Properties[i] = p
		return
	}
	o.index[p.Name] = len(o.Properties)
	o.Properties = append(o.Properties, p)
}

func (o *Object) reindex() {
	o.index = make(map[string]int, len(o.Properties))
	for i, p := range o.Properties {
		o.index[p.Name] = i
	}
}

// Index returns the position of the property called name, or -1.
func (o *Object) Index(name string) int {
	if o.index != nil && len(o.index) == len(o.Properties) {
		if i, ok := o.index[name]; ok {
			return i
		}
		return -1
	}
	for i, p := range o.Properties {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Prop returns the property called name, or nil.
func (o *Object) Prop(name string) *Property {
	if i := o.Index(name); i >= 0 {
		return o.Properties[i]
	}
	return nil
}

// JSONSchema returns the draft-04 JSON Schema of the object. The
// "properties" value is an Ordered so that properties keep their
// declaration order when encoded.
func (o *Object) JSONSchema() map[string]any {
	return map[string]any{
		"$schema":    "http://json-schema.org/draft-04/schema#",
		"title":      o.Title,
		"type":       "object",
		"properties": propertiesSchema(o.Properties),
	}
}

func propertiesSchema(props []*Property) Ordered {
	out := make(Ordered, 0, len(props))
	for _, p := range props {
		out = append(out, KV{Key: p.Name, Value: p.JSONSchema()})
	}
	return out
}

// JSONSchema returns the schema of a single property as an ordered object:
// description, type, format, enum, context, items, default, readonly,
// required and nested properties, each only when set.
func (p *Property) JSONSchema() Ordered {
	out := make(Ordered, 0, 8)
	out = append(out, KV{"description", p.Description})
	if p.Type != "" {
		out = append(out, KV{"type", p.Type})
	}
	if p.Format != "" {
		out = append(out, KV{"format", p.Format})
	}
	if len(p.Enum) > 0 {
		out = append(out, KV{"enum", p.Enum})
	}
	out = append(out, KV{"context", p.Context.Names()})
	if p.Items != nil {
		items := Ordered{{"type", p.Items.Type}}
		if p.Items.Format != "" {
			items = append(items, KV{"format", p.Items.Format})
		}
		if len(p.Items.Enum) > 0 {
			items = append(items, KV{"enum", p.Items.Enum})
		}
		out = append(out, KV{"items", items})
	}
	if p.Default != nil {
		out = append(out, KV{"default", p.Default})
	}
	if p.Readonly {
		out = append(out, KV{"readonly", true})
	}
	if p.Required {
		out = append(out, KV{"required", true})
	}
	if len(p.Properties) > 0 {
		out = append(out, KV{"properties", propertiesSchema(p.Properties)})
	}
	return out
}

// KV is one key and value of an Ordered object.
type KV struct {
	Key   string
	Value any
}

// Ordered is a JSON object whose keys are encoded in slice order.
type Ordered []KV

// MarshalJSON encodes o as a JSON object with keys in slice order.
func (o Ordered) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
