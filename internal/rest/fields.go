package rest

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"

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
	// mu guards augmented, which AddFieldsTo may write while serving.
	mu        sync.Mutex
	fields    map[string][]*Field
	collArgs  map[string][]*Arg
	augmented map[*schema.Object]bool
}

// AddField registers an extra field. It must be called before the routes
// whose schema has f.Title are registered.
func (s *Server) AddField(f *Field) {
	s.gen++
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
	s.gen++
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
	s.AddFieldsTo(o)
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

// AddFieldsTo adds the fields registered for o's title to the item schema
// o, once per schema object. Registration does it for the schema a route
// has then; a controller that builds a new item schema later (users and
// comments, whose avatar_urls follow the show_avatars setting) calls it on
// the new one.
func (s *Server) AddFieldsTo(o *schema.Object) {
	fields := s.extra.fields[o.Title]
	if len(fields) == 0 {
		return
	}
	s.extra.mu.Lock()
	defer s.extra.mu.Unlock()
	if s.extra.augmented[o] {
		return
	}
	s.extra.augmented[o] = true
	for _, f := range fields {
		o.Add(f.Schema)
	}
}

func hasArg(args []*Arg, name string) bool {
	return slices.ContainsFunc(args, func(a *Arg) bool { return a.Name == name })
}

// addFields fills the registered fields of the resources in resp (those a
// write's WithFields has not filled yet), then runs the rest_prepare_*
// filters WithFields held back until the fields were there.
func (s *Server) addFields(req *Request, resp *Response) {
	if resp != nil {
		s.fillFields(req, responseResources(resp))
	}
	key := heldKey{req}
	held, _ := req.Cache()[key].([]func())
	delete(req.Cache(), key)
	for _, fn := range held {
		fn()
	}
}

// responseResources returns the resources of a response's data.
func responseResources(resp *Response) []*Resource {
	switch d := resp.Data.(type) {
	case *Resource:
		return []*Resource{d}
	case []*Resource:
		return d
	case *Keyed:
		var items []*Resource
		for _, k := range d.Keys() {
			if v, _ := d.Get(k); v != nil {
				if r, ok := v.(*Resource); ok {
					items = append(items, r)
				}
			}
		}
		return items
	}
	return nil
}

// heldKey keys, in a request's cache, the filters WithFields holds back
// until the request's response has its fields.
type heldKey struct{ r *Request }

// filledKey keys, in a request's cache, the resources whose fields
// WithFields already filled.
type filledKey struct{ r *Request }

// WithFields runs fn, a rest_prepare_* filter of res, once res has its
// registered fields, so the filter sees the response as the client would
// (seed rules 4-5: the fields are added before the filters and the
// context filter). In a read request (GET, HEAD) fn waits until the
// handler returned and the fields of the whole response were filled in
// one batch (a page costs a fixed number of queries); in a write request
// (a single resource) res's fields are filled now and fn runs at once,
// keeping its place among the write's other hooks. A nil r runs fn at once.
func (r *Request) WithFields(res *Resource, fn func()) {
	if r == nil || r.srv == nil || res == nil {
		fn()
		return
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		key := heldKey{r}
		held, _ := r.Cache()[key].([]func())
		r.Cache()[key] = append(held, fn)
		return
	}
	r.srv.fillFields(r, []*Resource{res})
	fn()
}

// fillFields fills the registered fields of items not filled before,
// skipping those the request's _fields does not show.
func (s *Server) fillFields(req *Request, items []*Resource) {
	if len(s.extra.fields) == 0 || len(items) == 0 {
		return
	}
	filled, _ := req.Cache()[filledKey{req}].(map[*Resource]bool)
	if filled == nil {
		filled = map[*Resource]bool{}
		req.Cache()[filledKey{req}] = filled
	}
	byTitle := map[string][]*Resource{}
	var titles []string
	for _, it := range items {
		if it == nil || it.Schema == nil || filled[it] || len(s.extra.fields[it.Schema.Title]) == 0 {
			continue
		}
		filled[it] = true
		if byTitle[it.Schema.Title] == nil {
			titles = append(titles, it.Schema.Title)
		}
		byTitle[it.Schema.Title] = append(byTitle[it.Schema.Title], it)
	}
	for _, title := range titles {
		group := byTitle[title]
		for _, f := range s.extra.fields[title] {
			// A field the request's _fields leaves out costs nothing.
			if f.Get == nil || !req.fields().includes(f.Schema.Name) {
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
					s.log.ErrorContext(req.Context(), "rest: extension field", "field", f.Schema.Name, "title", title, "err", err)
					continue
				}
			}
			for _, it := range shown {
				v, err := f.Get(req, it)
				if err != nil {
					s.log.ErrorContext(req.Context(), "rest: extension field", "field", f.Schema.Name, "title", title, "err", err)
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
