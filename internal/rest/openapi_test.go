package rest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// openAPIServer is a server with toy routes: a batchable collection and
// item with a registered field and collection argument, a keyed list, an
// extension namespace and a route no path template can describe.
func openAPIServer(t *testing.T, names rest.Names) *rest.Server {
	t.Helper()
	s := rest.NewServer(rest.Config{Names: names})
	s.AddField(&rest.Field{Title: "thing", Schema: &schema.Property{Name: "color", Description: "A colour.", Type: "string", Enum: []string{"red", "blue"}, Context: schema.View | schema.Edit}})
	s.AddCollectionArg("thing", &rest.Arg{Name: "color", Description: "Only things of this colour.", Type: "string"})
	ok := func(r *rest.Request) (*rest.Response, error) { return rest.NewResponse(200, nil), nil }
	allow := func(r *rest.Request) error { return nil }
	sch := thingSchema()
	item := func() *schema.Object { return sch }
	ns := names.Namespace
	s.Register(ns, "/things", &rest.Route{Schema: item, AllowBatch: true, Endpoints: []*rest.Endpoint{
		{Methods: rest.Readable, Handler: ok, Permission: allow, Args: []*rest.Arg{
			contextArg,
			{Name: "per_page", Type: "integer", Default: int64(10), Minimum: rest.Int(1), Maximum: rest.Int(100)},
			{Name: "include", Type: "array", Items: "integer", Default: []int64{}},
		}},
		{Methods: rest.Creatable, Handler: ok, Permission: allow, Args: rest.ArgsFromSchema(sch, true)},
	}})
	s.Register(ns, `/things/(?P<id>[\d]+)`, &rest.Route{Schema: item, AllowBatch: true, Endpoints: []*rest.Endpoint{
		{Methods: rest.Readable, Handler: ok, Args: []*rest.Arg{contextArg}},
		{Methods: rest.Editable, Handler: ok, Permission: allow, Args: rest.ArgsFromSchema(sch, false)},
		{Methods: rest.Deletable, Handler: ok, Permission: allow, Args: []*rest.Arg{{Name: "force", Type: "boolean", Default: false}}},
	}})
	s.Register(ns, "/kinds", &rest.Route{Schema: personSchema, Endpoints: []*rest.Endpoint{
		{Methods: rest.Readable, Handler: ok, Returns: rest.ShapeMap},
	}})
	s.Register("ext/v1", `/widgets/(?P<slug>[\w-]+)`, &rest.Route{Endpoints: []*rest.Endpoint{
		{Methods: rest.Readable, Handler: ok},
	}})
	s.Register("ext/v1", `/files/(\d+)\.txt`, &rest.Route{Endpoints: []*rest.Endpoint{
		{Methods: rest.Readable, Handler: ok},
	}})
	return s
}

var testInfo = rest.OpenAPIInfo{Title: "Test API", Version: "1", SessionCookie: "folio_session"}

// openAPIDoc decodes a description into nested maps.
func openAPIDoc(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("description is not JSON: %v", err)
	}
	return doc
}

// at follows a path of keys through nested maps.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object before %q", keys, k)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("%v: no %q among %v", keys, k, slices.Sorted(func(yield func(string) bool) {
				for k := range m {
					if !yield(k) {
						return
					}
				}
			}))
		}
	}
	return v
}

// refs collects every $ref of a document.
func refs(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				*out = append(*out, s)
			}
			refs(e, out)
		}
	case []any:
		for _, e := range x {
			refs(e, out)
		}
	}
}

func TestOpenAPIDescribesRoutesArgumentsAndRegisteredFields(t *testing.T) {
	s := openAPIServer(t, rest.DefaultNames())
	doc := openAPIDoc(t, s.OpenAPI(testInfo))
	if doc["openapi"] != "3.1.0" || at(t, doc, "info", "title") != "Test API" {
		t.Fatalf("head: %v %v", doc["openapi"], doc["info"])
	}
	if at(t, doc, "servers").([]any)[0].(map[string]any)["url"] != "/api" {
		t.Errorf("servers: %v", doc["servers"])
	}

	// Path templates, with integer ids.
	id := at(t, doc, "paths", "/svc/v2/things/{id}", "parameters").([]any)[0].(map[string]any)
	if id["name"] != "id" || id["in"] != "path" || id["required"] != true || at(t, id, "schema", "type") != "integer" {
		t.Errorf("id parameter: %v", id)
	}
	slug := at(t, doc, "paths", "/ext/v1/widgets/{slug}", "parameters").([]any)[0].(map[string]any)
	if at(t, slug, "schema", "pattern") != `^(?:[\w\-]+)$` {
		t.Errorf("slug pattern: %v", slug)
	}

	// A paged list: query arguments (the registered one too), the item
	// array and the pagination headers.
	list := at(t, doc, "paths", "/svc/v2/things", "get").(map[string]any)
	var qnames []string
	for _, p := range list["parameters"].([]any) {
		pm := p.(map[string]any)
		if n, ok := pm["name"].(string); ok {
			qnames = append(qnames, n)
		} else {
			qnames = append(qnames, pm["$ref"].(string))
		}
	}
	for _, want := range []string{"context", "per_page", "include", "color", "#/components/parameters/fields", "#/components/parameters/embed", "#/components/parameters/IfNoneMatch"} {
		if !slices.Contains(qnames, want) {
			t.Errorf("list parameters %v lack %s", qnames, want)
		}
	}
	if at(t, list, "responses", "200", "content", "application/json", "schema", "items", "$ref") != "#/components/schemas/Thing" {
		t.Errorf("list body: %v", at(t, list, "responses", "200"))
	}
	hdrs := at(t, list, "responses", "200", "headers").(map[string]any)
	for _, h := range []string{"X-API-Total", "X-API-TotalPages", "Link", "ETag"} {
		if hdrs[h] == nil {
			t.Errorf("list headers lack %s: %v", h, hdrs)
		}
	}
	if at(t, list, "responses", "304", "$ref") != "#/components/responses/NotModified" {
		t.Error("no 304 on a read")
	}
	if at(t, list, "operationId") != "listThings" {
		t.Errorf("operationId %v", list["operationId"])
	}

	// Creating: 201 with Location, a JSON body with the required
	// properties, the registered field, raw-or-string objects.
	create := at(t, doc, "paths", "/svc/v2/things", "post").(map[string]any)
	if at(t, create, "operationId") != "createThings" || at(t, create, "x-allow-batch") != true {
		t.Errorf("create: %v %v", create["operationId"], create["x-allow-batch"])
	}
	if at(t, create, "responses", "201", "headers", "Location") == nil {
		t.Error("no Location on 201")
	}
	body := at(t, create, "requestBody", "content", "application/json", "schema").(map[string]any)
	if !slices.Contains(toStrings(body["required"]), "name") {
		t.Errorf("required: %v", body["required"])
	}
	if at(t, body, "properties", "color", "enum") == nil {
		t.Error("the registered field is not in the body")
	}
	if at(t, body, "properties", "title", "anyOf") == nil {
		t.Error("title does not take a string or {raw}")
	}
	if _, ok := at(t, body, "properties").(map[string]any)["id"]; ok {
		t.Error("a read-only property is in the body")
	}
	// The error responses of the pipeline, with their codes.
	for code, want := range map[string]string{
		"400": "#/components/responses/BadRequestMissingCallbackParamInvalidParamInvalidJson",
		"401": "#/components/responses/UnauthorizedForbiddenAuthenticationFailed",
		"403": "#/components/responses/ForbiddenForbiddenCookieInvalidNonce",
		"413": "#/components/responses/RequestEntityTooLargeRequestTooLarge",
	} {
		if got := at(t, create, "responses", code, "$ref"); got != want {
			t.Errorf("%s: %v, want %s", code, got, want)
		}
	}
	if ex := at(t, doc, "components", "responses", "UnauthorizedForbiddenAuthenticationFailed", "content", "application/json", "examples", "rest_forbidden", "value"); at(t, ex, "data", "status") != float64(401) {
		t.Errorf("401 example: %v", ex)
	}

	// Item schema: properties with contexts, the registered field, links.
	thing := at(t, doc, "components", "schemas", "Thing").(map[string]any)
	if at(t, thing, "properties", "secret", "x-context").([]any)[0] != "edit" {
		t.Error("contexts are not described")
	}
	if at(t, thing, "properties", "color", "type") != "string" || at(t, thing, "properties", "id", "readOnly") != true {
		t.Error("field or readOnly missing")
	}
	if at(t, thing, "properties", "_links", "$ref") != "#/components/schemas/Links" {
		t.Error("no _links")
	}

	// A keyed list; item and delete operations; the 404 of item routes.
	if at(t, doc, "paths", "/svc/v2/kinds", "get", "responses", "200", "content", "application/json", "schema", "additionalProperties", "$ref") != "#/components/schemas/Person" {
		t.Error("keyed list not described as a map")
	}
	del := at(t, doc, "paths", "/svc/v2/things/{id}", "delete").(map[string]any)
	if at(t, del, "operationId") != "deleteThingsById" || at(t, del, "responses", "404", "$ref") != "#/components/responses/NotFound" {
		t.Errorf("delete: %v", del)
	}
	for _, m := range []string{"post", "put", "patch"} {
		if at(t, doc, "paths", "/svc/v2/things/{id}", m, "requestBody") == nil {
			t.Errorf("%s without body", m)
		}
	}

	// The batch route, the security schemes, and the unlisted route.
	batch := at(t, doc, "paths", "/batch/v1", "post").(map[string]any)
	if at(t, batch, "responses", "207", "content", "application/json", "schema", "$ref") != "#/components/schemas/BatchResponse" {
		t.Error("batch answers 207 BatchResponse")
	}
	if at(t, doc, "components", "schemas", "BatchRequest", "properties", "requests", "maxItems") != float64(rest.MaxBatchRequests) {
		t.Error("batch limit not described")
	}
	if at(t, doc, "components", "securitySchemes", "nonce", "name") != "X-API-Nonce" || at(t, doc, "components", "securitySchemes", "sessionCookie", "name") != "folio_session" || at(t, doc, "components", "securitySchemes", "applicationPassword", "scheme") != "basic" {
		t.Error("security schemes")
	}
	if u := toStrings(doc["x-unlisted-routes"]); len(u) != 1 || u[0] != `/ext/v1/files/(\d+)\.txt` {
		t.Errorf("unlisted: %v", u)
	}

	// Every reference resolves; every operation id is unique.
	var all []string
	refs(doc, &all)
	for _, r := range all {
		parts := strings.Split(strings.TrimPrefix(r, "#/"), "/")
		at(t, doc, parts...)
	}
	seen := map[string]bool{}
	for p, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			if m == "parameters" {
				continue
			}
			id := op.(map[string]any)["operationId"].(string)
			if seen[id] {
				t.Errorf("operationId %s twice (%s %s)", id, m, p)
			}
			seen[id] = true
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestOpenAPIFollowsTheModeNames(t *testing.T) {
	s := openAPIServer(t, rest.WordPressNames())
	doc := openAPIDoc(t, s.OpenAPI(testInfo))
	if at(t, doc, "servers").([]any)[0].(map[string]any)["url"] != "/wp-json" {
		t.Error("server is not /wp-json")
	}
	hdrs := at(t, doc, "paths", "/wp/v2/things", "get", "responses", "200", "headers").(map[string]any)
	if hdrs["X-WP-Total"] == nil || hdrs["X-WP-TotalPages"] == nil || hdrs["X-API-Total"] != nil {
		t.Errorf("headers: %v", hdrs)
	}
	if at(t, doc, "components", "securitySchemes", "nonce", "name") != "X-WP-Nonce" {
		t.Error("nonce header")
	}
	if strings.Contains(string(s.OpenAPI(testInfo)), "svc/v2") {
		t.Error("the default names leak into compatibility mode")
	}
	// Without a session cookie there is no cookie scheme.
	doc = openAPIDoc(t, s.OpenAPI(rest.OpenAPIInfo{}))
	if _, ok := at(t, doc, "components", "securitySchemes").(map[string]any)["sessionCookie"]; ok {
		t.Error("cookie scheme without a cookie")
	}
	if at(t, doc, "info", "title") != "Folio REST API" || at(t, doc, "info", "version") != "wp/v2" {
		t.Errorf("default info: %v", doc["info"])
	}
}

func TestOpenAPIIsBuiltOncePerRegistryVersion(t *testing.T) {
	s := openAPIServer(t, rest.DefaultNames())
	a, b := s.OpenAPI(testInfo), s.OpenAPI(testInfo)
	if &a[0] != &b[0] {
		t.Error("the description was built twice for the same registry")
	}
	s.Register("svc/v2", "/late", &rest.Route{Endpoints: []*rest.Endpoint{{Methods: rest.Readable, Handler: func(r *rest.Request) (*rest.Response, error) {
		return rest.NewResponse(http.StatusOK, nil), nil
	}}}})
	c := s.OpenAPI(testInfo)
	if &c[0] == &a[0] || !strings.Contains(string(c), `"/svc/v2/late"`) {
		t.Error("a route registered later is not described")
	}
	if d := s.OpenAPI(rest.OpenAPIInfo{Title: "Other"}); !strings.Contains(string(d), `"Other"`) {
		t.Error("other info gives the same description")
	}
}
