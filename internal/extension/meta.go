package extension

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// Meta registers one post meta key: it shows in the `meta` object of the
// records of the post types it is registered for, and can be written
// there. Unregistered meta is never exposed.
type Meta struct {
	// Key is the meta key, also the property name inside `meta`.
	Key string
	// Type is string (default), integer, number or boolean; Description,
	// Enum, Format and Default describe the value as in any schema.
	Type        string
	Description string
	Enum        []string
	Format      string
	Default     any
	// Filterable makes the key usable in the meta_key / meta_value
	// parameters of the post type's collection.
	Filterable bool

	postType string
}

// RegisterMeta registers meta key m for the post type postType ("post",
// "page", "attachment" or a custom type).
func (a *API) RegisterMeta(postType string, m Meta) error {
	if m.Key == "" || postType == "" {
		return errors.New("register meta: key and post type are required")
	}
	switch m.Type {
	case "":
		m.Type = "string"
	case "string", "integer", "number", "boolean":
	default:
		return fmt.Errorf("register meta %q: type %q is not string, integer, number or boolean", m.Key, m.Type)
	}
	m.postType = postType
	a.meta = append(a.meta, m)
	return nil
}

func (m Meta) prop() *schema.Property {
	return &schema.Property{Name: m.Key, Description: m.Description, Type: m.Type, Enum: m.Enum, Format: m.Format,
		Default: m.Default, Context: schema.View | schema.Edit}
}

// encode turns a sanitized value into the stored text.
func (m Meta) encode(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "1"
		}
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// decode turns stored text into a value of the key's type; "" without a
// row gives the default (or the type's zero).
func (m Meta) decode(vals []string) any {
	if len(vals) == 0 {
		if m.Default != nil {
			return m.Default
		}
		vals = []string{""}
	}
	s := vals[0]
	switch m.Type {
	case "integer":
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	case "number":
		f, _ := strconv.ParseFloat(s, 64)
		return f
	case "boolean":
		return s != "" && s != "0" && s != "false"
	default:
		return s
	}
}

type metaCacheKey struct{ title string }

// installMeta adds the `meta` field (and the meta_key / meta_value
// collection parameters for filterable keys) to every post type with
// registered meta.
func (a *API) installMeta(site *content.Site, rs *rest.Server) error {
	byType := map[string][]Meta{}
	var order []string
	for _, m := range a.meta {
		if _, ok := site.Types().Get(m.postType); !ok {
			return fmt.Errorf("register meta %q: unknown post type %q", m.Key, m.postType)
		}
		if _, ok := byType[m.postType]; !ok {
			order = append(order, m.postType)
		}
		byType[m.postType] = append(byType[m.postType], m)
	}
	if len(order) == 0 {
		return nil
	}
	var ms store.PostMetaStore = site.Storage()
	for _, typ := range order {
		metas := byType[typ]
		a.installTypeMeta(rs, ms, typ, metas)
	}
	return nil
}

func (a *API) installTypeMeta(rs *rest.Server, ms store.PostMetaStore, typ string, metas []Meta) {
	title := typ
	keys := make([]string, len(metas))
	props := make([]*schema.Property, len(metas))
	byKey := map[string]Meta{}
	var filterable []string
	for i, m := range metas {
		keys[i] = m.Key
		props[i] = m.prop()
		byKey[m.Key] = m
		if m.Filterable {
			filterable = append(filterable, m.Key)
		}
	}
	prop := &schema.Property{Name: "meta", Description: "Meta fields.", Type: "object", Context: schema.View | schema.Edit, Properties: props}
	cacheKey := metaCacheKey{title}
	f := Field{
		Schema: prop,
		Prepare: func(r *rest.Request, items []*rest.Resource) error {
			ids := make([]int64, 0, len(items))
			for _, it := range items {
				if id, ok := resourceID(it); ok {
					ids = append(ids, id)
				}
			}
			got, err := ms.PostMeta(r.Context(), ids, keys)
			if err != nil {
				return err
			}
			r.Cache()[cacheKey] = got
			return nil
		},
		Get: func(r *rest.Request, res *rest.Resource) (any, error) {
			got, _ := r.Cache()[cacheKey].(map[int64]map[string][]string)
			id, _ := resourceID(res)
			out := make(map[string]any, len(metas))
			for _, m := range metas {
				out[m.Key] = m.decode(got[id][m.Key])
			}
			return out, nil
		},
		Sanitize: func(r *rest.Request, name string, v any) (any, error) {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s is not of type object", name)
			}
			out := make(map[string]any, len(obj))
			for k, x := range obj {
				m, ok := byKey[k]
				if !ok {
					return nil, fmt.Errorf("%s.%s is not a registered meta key", name, k)
				}
				if x == nil {
					out[k] = nil
					continue
				}
				p := m.prop()
				sv, reason := schema.SanitizeValue(p, name+"."+k, x)
				if reason != "" {
					return nil, errors.New(reason)
				}
				if reason := schema.ValidateValue(p, name+"."+k, sv); reason != "" {
					return nil, errors.New(reason)
				}
				out[k] = sv
			}
			return out, nil
		},
		Update: func(ctx context.Context, u *FieldUpdate) error {
			obj, _ := u.Value.(map[string]any)
			var tms store.PostMetaStore = u.Tx
			for _, k := range sortedKeys(obj) {
				var vals []string
				if x := obj[k]; x != nil {
					vals = []string{byKey[k].encode(x)}
				}
				if err := tms.SetPostMeta(ctx, u.ID, k, vals); err != nil {
					return err
				}
			}
			return nil
		},
	}
	a.fields = append(a.fields, titledField{title: title, f: f})
	if len(filterable) == 0 {
		return
	}
	rs.AddCollectionArg(title, &rest.Arg{Name: "meta_key", Description: "Limit result set to items with this registered meta key.", Type: "string", Enum: filterable})
	rs.AddCollectionArg(title, &rest.Arg{Name: "meta_value", Description: "Limit result set to items whose meta_key has this value.", Type: "string"})
	a.Hooks.PostQuery.Bind(&hooks.Handler[*PostQueryEvent]{
		ID: "meta_filter_" + typ, Keys: []string{typ}, Priority: -1000,
		Func: func(e *PostQueryEvent) error {
			r := e.Request
			if r == nil || !r.Has("meta_key") {
				return e.Next()
			}
			var value *string
			if r.Has("meta_value") {
				v := r.String("meta_value")
				value = &v
			}
			ids, err := ms.PostIDsWithMeta(e.Context, r.String("meta_key"), value)
			if err != nil {
				return err
			}
			if len(e.Query.Include) > 0 {
				ids = slices.DeleteFunc(ids, func(id int64) bool { return !slices.Contains(e.Query.Include, id) })
			}
			if len(ids) == 0 {
				ids = []int64{0} // no post has id 0: an empty result
			}
			e.Query.Include = ids
			return e.Next()
		},
	})
}

func resourceID(res *rest.Resource) (int64, bool) {
	v, ok := res.Value("id")
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
