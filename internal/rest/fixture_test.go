package rest_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// thingSchema is the item schema of the toy "thing" resource.
func thingSchema() *schema.Object {
	return schema.NewObject("thing",
		&schema.Property{Name: "id", Description: "Unique identifier.", Type: "integer", Context: schema.AllContexts, Readonly: true},
		&schema.Property{Name: "title", Description: "The title.", Type: "object", Context: schema.AllContexts, Properties: []*schema.Property{
			{Name: "raw", Description: "Raw title.", Type: "string", Context: schema.Edit},
			{Name: "rendered", Description: "Rendered title.", Type: "string", Context: schema.AllContexts},
		}},
		&schema.Property{Name: "secret", Description: "Edit only.", Type: "string", Context: schema.Edit},
		&schema.Property{Name: "status", Description: "Status.", Type: "string", Enum: []string{"publish", "draft"}, Context: schema.View | schema.Edit, Default: "draft"},
		&schema.Property{Name: "tags", Description: "Tag ids.", Type: "array", Items: &schema.Property{Type: "integer"}, Context: schema.View | schema.Edit},
		&schema.Property{Name: "name", Description: "Required on create.", Type: "string", Context: schema.View | schema.Edit, Required: true},
	)
}

var contextArg = &rest.Arg{Name: "context", Description: "Scope.", Type: "string", Enum: []string{"view", "embed", "edit"}, Default: "view"}

// makeThing builds a thing resource with links.
func makeThing(r *rest.Request, id int64) *rest.Resource {
	ctx, ok := schema.ParseContext(r.ContextName())
	if !ok {
		ctx = schema.View
	}
	res := rest.NewResource(thingSchema(), ctx)
	res.Set("id", id)
	res.Set("title", map[string]any{"raw": "Raw " + strconv.FormatInt(id, 10), "rendered": "Thing " + strconv.FormatInt(id, 10), "junk": 1})
	res.Set("secret", "s3cret")
	res.Set("status", "publish")
	res.Set("tags", []int64{1, 2})
	res.Set("name", "thing")
	res.Set("nope", "ignored")
	names := r.Server().Names()
	res.AddLink("self", r.URL(names.Namespace+"/things/"+strconv.FormatInt(id, 10)), false)
	res.AddLink("collection", r.URL(names.Namespace+"/things"), false)
	res.AddLink(names.RelBase+"featuredmedia", r.URL(names.Namespace+"/people/"+strconv.FormatInt(id%2+1, 10)), true)
	res.AddLink("author", r.URL(names.Namespace+"/people/1"), true)
	res.AddLink("replies", r.URL(names.Namespace+"/replies?thing="+strconv.FormatInt(id, 10)), true)
	res.AddLink("version-history", r.URL(names.Namespace+"/things/"+strconv.FormatInt(id, 10)+"/revisions"), false)
	res.AddLink(names.RelBase+"term", r.URL(names.Namespace+"/people?thing="+strconv.FormatInt(id, 10)), true, rest.LinkAttr{Key: "taxonomy", Value: "category"})
	res.AddLink(names.RelBase+"term", r.URL(names.Namespace+"/empty"), true, rest.LinkAttr{Key: "taxonomy", Value: "post_tag"})
	res.AddLink("up", r.URL(names.Namespace+"/people/999"), true)
	return res
}

func personSchema() *schema.Object {
	return schema.NewObject("person",
		&schema.Property{Name: "id", Type: "integer", Context: schema.AllContexts, Readonly: true},
		&schema.Property{Name: "name", Type: "string", Context: schema.AllContexts},
		&schema.Property{Name: "email", Type: "string", Format: "email", Context: schema.Edit},
	)
}

// fixture is a server with toy routes and counters.
type fixture struct {
	srv *rest.Server

	mu           sync.Mutex
	prefetches   map[string][][]string // route -> list of path batches
	personCalls  int
	handlerCalls int
}

func (f *fixture) count(p *int) {
	f.mu.Lock()
	*p++
	f.mu.Unlock()
}

func authenticate(r *http.Request) (*auth.User, error) {
	switch v := r.Header.Get("X-Test-User"); v {
	case "":
		return nil, nil
	case "bad":
		return nil, &auth.Error{Code: "rest_authentication_failed", Message: "Bad credentials.", Status: 401}
	case "boom":
		return nil, errors.New("database down")
	default:
		id, _ := strconv.ParseInt(v, 10, 64)
		return auth.NewTestUser(id, "administrator"), nil
	}
}

func needUser(r *rest.Request) error {
	if r.User == nil {
		return rest.ErrForbidden
	}
	return nil
}

func newFixture(t testing.TB, mod func(*rest.Config)) *fixture {
	t.Helper()
	cfg := rest.Config{
		SiteName:        "Folio Test",
		SiteDescription: "Just testing",
		Authenticate:    authenticate,
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if mod != nil {
		mod(&cfg)
	}
	f := &fixture{prefetches: map[string][][]string{}}
	s := rest.NewServer(cfg)
	f.srv = s
	ns := s.Names().Namespace

	echo := func(r *rest.Request) (*rest.Response, error) {
		f.count(&f.handlerCalls)
		out := map[string]any{"method": r.Method}
		for _, n := range r.Params() {
			if v, ok := r.Get(n); ok {
				out[n] = v
			}
			if r.Has(n) {
				out["has_"+n] = true
			}
		}
		if v, ok := r.Get("undeclared"); ok {
			out["undeclared"] = v
		}
		if v, ok := r.Get("filter"); ok {
			out["filter"] = v
		}
		return rest.NewResponse(200, out), nil
	}
	echoArgs := []*rest.Arg{
		contextArg,
		{Name: "page", Type: "integer", Default: 1, Minimum: rest.Int(1), Sanitize: rest.AbsInt},
		{Name: "per_page", Type: "integer", Default: 10, Minimum: rest.Int(1), Maximum: rest.Int(100), Sanitize: rest.AbsInt},
		{Name: "count", Type: "integer"},
		{Name: "low", Type: "integer", Maximum: rest.Int(5), ExclusiveMaximum: true},
		{Name: "range", Type: "integer", Minimum: rest.Int(1), Maximum: rest.Int(9), ExclusiveMinimum: true},
		{Name: "force", Type: "boolean", Default: false},
		{Name: "include", Type: "array", Items: "integer"},
		{Name: "roles", Type: "array", Items: "string"},
		{Name: "email", Type: "string", Format: "email"},
		{Name: "after", Type: "string", Format: "date-time"},
		{Name: "site", Type: "string", Format: "uri"},
		{Name: "slug", Type: "string"},
		{Name: "id", Type: "integer"},
		{Name: "status", Type: "string", Validate: func(r *rest.Request, name string, v any) error {
			if v == "secret" {
				return errors.New("Status is forbidden")
			}
			if v == "plain" {
				return errors.New("")
			}
			return nil
		}},
	}
	s.Register(ns, "/echo", &rest.Route{Endpoints: []*rest.Endpoint{
		{Methods: rest.Readable, Handler: echo, Args: echoArgs},
		{Methods: rest.Creatable, Handler: echo, Args: echoArgs},
		{Methods: rest.Deletable, Handler: echo, Args: echoArgs},
	}})
	s.Register(ns, "/required", &rest.Route{Endpoints: []*rest.Endpoint{
		{Methods: rest.Creatable, Handler: echo, Permission: needUser, Args: []*rest.Arg{
			{Name: "a", Required: true}, {Name: "b", Type: "integer", Required: true}, {Name: "c", Required: true, Default: "x"},
		}},
	}})
	s.Register(ns, "/things", &rest.Route{
		Schema: thingSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Args: []*rest.Arg{contextArg,
				{Name: "page", Description: "Current page.", Type: "integer", Default: 1, Minimum: rest.Int(1), Sanitize: rest.AbsInt},
				{Name: "per_page", Type: "integer", Default: 2, Minimum: rest.Int(1), Maximum: rest.Int(100), Sanitize: rest.AbsInt},
			}, Handler: func(r *rest.Request) (*rest.Response, error) {
				f.count(&f.handlerCalls)
				const total = 5
				page, per := int(r.Int("page")), int(r.Int("per_page"))
				var items []*rest.Resource
				for i := (page-1)*per + 1; i <= page*per && i <= total; i++ {
					items = append(items, makeThing(r, int64(i)))
				}
				if items == nil {
					items = []*rest.Resource{}
				}
				resp := rest.NewResponse(200, items)
				resp.Paginate(r, total, page, per)
				return resp, nil
			}},
			{Methods: rest.Creatable, Args: rest.ArgsFromSchema(thingSchema(), true), Permission: func(r *rest.Request) error {
				if r.User == nil {
					return rest.AuthError(r, "rest_cannot_create", "Sorry, you are not allowed to create things.")
				}
				return nil
			}, Handler: func(r *rest.Request) (*rest.Response, error) {
				res := makeThing(r, 77)
				resp := rest.NewResponse(201, res)
				resp.SetHeader("Location", r.URL(ns+"/things/77"))
				return resp, nil
			}},
		},
	})
	s.Register(ns, `/things/(?P<id>[\d]+)`, &rest.Route{
		Schema: thingSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Args: []*rest.Arg{contextArg}, Handler: func(r *rest.Request) (*rest.Response, error) {
				id := r.Int("id")
				if id == 404 {
					return nil, rest.NewError("rest_thing_invalid_id", 404, "Invalid thing id.")
				}
				if id == 500 {
					return nil, errors.New("disk on fire")
				}
				if id == 666 {
					panic("boom")
				}
				return rest.NewResponse(200, makeThing(r, id)), nil
			}},
			{Methods: rest.Editable, Args: rest.ArgsFromSchema(thingSchema(), false), Permission: func(r *rest.Request) error {
				if r.Int("id") == 13 {
					return rest.ErrForbidden
				}
				return needUser(r)
			}, Handler: func(r *rest.Request) (*rest.Response, error) {
				return rest.NewResponse(200, map[string]any{"id": r.Int("id"), "method": r.Method}), nil
			}},
			{Methods: rest.Deletable, Args: []*rest.Arg{{Name: "force", Type: "boolean", Default: false}}, Permission: needUser, Handler: echo},
		},
	})
	s.Register(ns, `/people/(?P<id>[\d]+)`, &rest.Route{
		Schema: personSchema,
		Prefetch: func(reqs []*rest.Request) {
			paths := make([]string, len(reqs))
			for i, r := range reqs {
				paths[i] = r.Path + "?context=" + r.ContextName()
				r.Cache()["person:"+r.URLParams["id"]] = "cached " + r.URLParams["id"]
			}
			f.mu.Lock()
			f.prefetches["people"] = append(f.prefetches["people"], paths)
			f.mu.Unlock()
		},
		Endpoints: []*rest.Endpoint{{Methods: rest.Readable, Args: []*rest.Arg{contextArg}, Handler: func(r *rest.Request) (*rest.Response, error) {
			f.count(&f.personCalls)
			id := r.Int("id")
			if id == 999 {
				return nil, rest.AuthError(r, "rest_person_hidden", "Hidden person.")
			}
			ctx, _ := schema.ParseContext(r.ContextName())
			res := rest.NewResource(personSchema(), ctx)
			res.Set("id", id)
			name, _ := r.Cache()["person:"+r.URLParams["id"]].(string)
			res.Set("name", name)
			res.Set("email", "p@example.com")
			res.AddLink("self", r.URL(ns+"/people/"+strconv.FormatInt(id, 10)), false)
			res.AddLink("author", r.URL(ns+"/people/1"), true)
			return rest.NewResponse(200, res), nil
		}}},
	})
	s.Register(ns, "/people", &rest.Route{Endpoints: []*rest.Endpoint{{Methods: rest.Readable, Args: []*rest.Arg{contextArg, {Name: "thing", Type: "integer"}},
		Handler: func(r *rest.Request) (*rest.Response, error) {
			ctx, _ := schema.ParseContext(r.ContextName())
			res := rest.NewResource(personSchema(), ctx)
			res.Set("id", r.Int("thing"))
			res.Set("name", "term of "+r.String("thing"))
			return rest.NewResponse(200, []*rest.Resource{res}), nil
		}}}})
	s.Register(ns, "/replies", &rest.Route{Endpoints: []*rest.Endpoint{{Methods: rest.Readable, Args: []*rest.Arg{contextArg, {Name: "thing", Type: "integer"}},
		Handler: func(r *rest.Request) (*rest.Response, error) {
			if r.Int("thing") == 1 {
				return rest.NewResponse(200, []any{map[string]any{"reply": 1}}), nil
			}
			return rest.NewResponse(200, []*rest.Resource{}), nil
		}}}})
	s.Register(ns, "/empty", &rest.Route{Endpoints: []*rest.Endpoint{{Methods: rest.Readable, Args: []*rest.Arg{contextArg},
		Handler: func(r *rest.Request) (*rest.Response, error) { return rest.NewResponse(200, []any{}), nil }}}})
	s.Register(ns, "/upload", &rest.Route{Upload: true, Endpoints: []*rest.Endpoint{{Methods: rest.Creatable,
		Handler: func(r *rest.Request) (*rest.Response, error) {
			files, size := 0, int64(len(r.Body))
			if r.Upload != nil {
				files, size = 1, r.Upload.Size
			}
			return rest.NewResponse(201, map[string]any{"size": size, "files": files, "title": r.String("title")}), nil
		}}}})
	s.Register(ns, "/keyed", &rest.Route{Endpoints: []*rest.Endpoint{{Methods: rest.Readable, Args: []*rest.Arg{contextArg},
		Handler: func(r *rest.Request) (*rest.Response, error) {
			k := rest.NewKeyed()
			if r.String("empty") == "" {
				k.Add("zeta", 1)
				k.Add("alpha", makeThing(r, 3))
			}
			return rest.NewResponse(200, k), nil
		}}}})
	return f
}

// result is a decoded response.
type result struct {
	Status    int
	Header    http.Header
	RawHeader http.Header
	Raw       string
	Body      any
}

func (r result) obj(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.Body.(map[string]any)
	if !ok {
		t.Fatalf("body is not an object: %s", r.Raw)
	}
	return m
}

func (f *fixture) do(t testing.TB, method, target string, body string, hdr ...string) result {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://example.test"+target, rd)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, req)
	// Canonicalise the header names as a client reading the wire would;
	// RawHeader keeps the spelling the server wrote.
	canon := http.Header{}
	for k, vs := range w.Header() {
		for _, v := range vs {
			canon.Add(k, v)
		}
	}
	res := result{Status: w.Code, Header: canon, RawHeader: w.Header(), Raw: w.Body.String()}
	if res.Raw != "" && res.Header.Get("Content-Type") == "application/json; charset=UTF-8" {
		if err := json.Unmarshal(w.Body.Bytes(), &res.Body); err != nil {
			t.Fatalf("%s %s: invalid JSON %q: %v", method, target, res.Raw, err)
		}
	}
	return res
}

// path walks a decoded JSON value: keys for objects, indexes for arrays.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			s, _ := k.(string)
			v = x[s]
		case []any:
			i, _ := k.(int)
			if i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
