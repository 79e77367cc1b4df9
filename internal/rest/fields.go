package rest

import (
	"context"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/schema"
)

// Field is an extra field an extension registers on the resources of one
// schema title (seed rule 5, reference §10.11): post, page, attachment,
// comment, user, tag, category, a custom taxonomy or post type name, type,
// status, taxonomy, post-revision...
//
// Its Schema is added to the item schema (so it shows in OPTIONS, in the
// index args of the write endpoints and in ?context=help); write requests
// validate and sanitize the field against it (plus Validate and Sanitize);
// Get fills it on every resource of the title before the context filter
// runs, so Schema.Context decides where it shows. Writing the value is not
// rest's business: the owner of the write (internal/extension) runs the
// field's updater inside the write's transaction.
type Field struct {
	// Title is the schema title of the resources the field belongs to.
	Title string
	// Schema describes the field; its Name is the field name. A read-only
	// schema makes the field output only.
	Schema *schema.Property
	// Prepare, when set, runs once per response with every resource of
	// Title in it (a collection page, an item, the embedded ones), before
	// Get runs for each: batch-load what Get needs into r.Cache() so a page
	// costs a fixed number of queries.
	Prepare func(r *Request, items []*Resource) error
	// Get returns the field's value for one resource; nil Get makes the
	// field write-only. An error is logged and leaves the field unset.
	Get func(r *Request, res *Resource) (any, error)
	// Sanitize and Validate, when set, run on write after the schema's own
	// sanitizing and validation (see Arg).
	Sanitize func(r *Request, name string, v any) (any, error)
	Validate func(r *Request, name string, v any) error
}

// CollectionArg is an extra parameter an extension adds to the collection
// routes of one schema title (e.g. meta_key and meta_value on posts).
type CollectionArg struct {
	Title string
	Arg   *Arg
}

// fieldSet holds the registered fields by title.
type fieldSet struct {
	fields    map[string][]*Field
	collArgs  map[string][]*Arg
	augmented map[*schema.Object]bool
}

// AddField registers an extra field. It must be called before the routes
// whose schema has f.Title are registered.
func (s *Server) AddField(f *Field) {
	if s.extra.fields == nil {
		s.extra.fields = map[string][]*Field{}
		s.extra.augmented = map[*schema.Object]bool{}
	}
	s.extra.fields[f.Title] = append(s.extra.fields[f.Title], f)
}

// AddCollectionArg registers an extra collection parameter for the routes
// whose schema has the given title. It must be called before those routes
// are registered. A collection endpoint is a Readable endpoint that declares
// per_page.
func (s *Server) AddCollectionArg(title string, a *Arg) {
	if s.extra.collArgs == nil {
		s.extra.collArgs = map[string][]*Arg{}
	}
	s.extra.collArgs[title] = append(s.extra.collArgs[title], a)
}

// Fields returns the fields registered for title.
func (s *Server) Fields(title string) []*Field { return s.extra.fields[title] }

// extend adds the registered fields of def's schema title to the schema
// (once per schema object) and to the args of its write endpoints, and the
// registered collection args to its collection endpoints.
func (s *Server) extend(def *Route) {
	if def.Schema == nil || (len(s.extra.fields) == 0 && len(s.extra.collArgs) == 0) {
		return
	}
	o := def.Schema()
	if o == nil {
		return
	}
	fields := s.extra.fields[o.Title]
	if len(fields) > 0 && !s.extra.augmented[o] {
		s.extra.augmented[o] = true
		for _, f := range fields {
			o.Add(f.Schema)
		}
	}
	for _, e := range def.Endpoints {
		write := strings.Contains(e.Methods, "POST") || strings.Contains(e.Methods, "PUT") || strings.Contains(e.Methods, "PATCH")
		if write {
			creating := e.Methods == Creatable
			for _, f := range fields {
				if f.Schema.Readonly {
					continue
				}
				if i := slices.IndexFunc(e.Args, func(a *Arg) bool { return a.Name == f.Schema.Name }); i >= 0 {
					// The controller built its args from the schema after
					// the field joined it: keep the arg, add the field's
					// own checks.
					if a := e.Args[i]; a.Sanitize == nil && a.Validate == nil {
						a.Sanitize, a.Validate = f.Sanitize, f.Validate
					}
					continue
				}
				args := ArgsFromSchema(schema.NewObject("", f.Schema), creating)
				if len(args) == 0 {
					continue
				}
				a := args[0]
				a.Sanitize, a.Validate = f.Sanitize, f.Validate
				e.Args = append(e.Args, a)
			}
			continue
		}
		if strings.Contains(e.Methods, "GET") && hasArg(e.Args, "per_page") {
			for _, a := range s.extra.collArgs[o.Title] {
				if !hasArg(e.Args, a.Name) {
					e.Args = append(e.Args, a)
				}
			}
		}
	}
}

func hasArg(args []*Arg, name string) bool {
	return slices.ContainsFunc(args, func(a *Arg) bool { return a.Name == name })
}

// addFields fills the registered fields of the resources in resp.
func (s *Server) addFields(req *Request, resp *Response) {
	if len(s.extra.fields) == 0 || resp == nil {
		return
	}
	var items []*Resource
	switch d := resp.Data.(type) {
	case *Resource:
		items = []*Resource{d}
	case []*Resource:
		items = d
	case *Keyed:
		for _, k := range d.Keys() {
			if v, _ := d.Get(k); v != nil {
				if r, ok := v.(*Resource); ok {
					items = append(items, r)
				}
			}
		}
	default:
		return
	}
	byTitle := map[string][]*Resource{}
	for _, it := range items {
		if it != nil && it.Schema != nil && len(s.extra.fields[it.Schema.Title]) > 0 {
			byTitle[it.Schema.Title] = append(byTitle[it.Schema.Title], it)
		}
	}
	for title, group := range byTitle {
		for _, f := range s.extra.fields[title] {
			if f.Get == nil {
				continue
			}
			var shown []*Resource
			for _, it := range group {
				if f.Schema.Context&it.Context != 0 {
					shown = append(shown, it)
				}
			}
			if len(shown) == 0 {
				continue
			}
			if f.Prepare != nil {
				if err := f.Prepare(req, shown); err != nil {
					s.log.Error("rest: extension field", "field", f.Schema.Name, "title", title, "err", err)
					continue
				}
			}
			for _, it := range shown {
				v, err := f.Get(req, it)
				if err != nil {
					s.log.Error("rest: extension field", "field", f.Schema.Name, "title", title, "err", err)
					continue
				}
				it.Set(f.Schema.Name, v)
			}
		}
	}
}

type requestKey struct{}

// withRequest makes req reachable from its context, so that code the
// handler calls with r.Context() (the content layer, its hooks) can find
// the request it serves.
func withRequest(req *Request) {
	req.ctx = context.WithValue(req.Context(), requestKey{}, req)
}

// RequestFromContext returns the API request a context belongs to: the
// context of a write request's handler (POST, PUT, PATCH, DELETE) and every
// context derived from it.
func RequestFromContext(ctx context.Context) (*Request, bool) {
	r, ok := ctx.Value(requestKey{}).(*Request)
	return r, ok
}

// SchemaTitle returns the title of the item schema of the route r matched
// ("" when it has none or r is not bound).
func (r *Request) SchemaTitle() string {
	if r.rt == nil || r.rt.def.Schema == nil {
		return ""
	}
	if o := r.rt.def.Schema(); o != nil {
		return o.Title
	}
	return ""
}
