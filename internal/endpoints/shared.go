package endpoints

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// cachedLoad returns the record with the given id from the request-scoped
// cache (shared with embedded sub-requests) under key K(id), or loads it
// with get and caches it; a missing record is cached and returned as nil.
func cachedLoad[K ~int64, T any](r *rest.Request, id int64, get func(context.Context, int64) (*T, bool, error)) (*T, error) {
	cache := r.Cache()
	if v, ok := cache[K(id)]; ok {
		x, _ := v.(*T)
		return x, nil
	}
	x, ok, err := get(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if !ok {
		x = nil
	}
	cache[K(id)] = x
	return x, nil
}

// prefetchByID batch-loads, with one call of get, the records named by the
// positive `id` parameters of reqs that are not yet in the shared request
// cache, and caches each under K(id) (nil for a missing one). It returns
// the records found, in the order of their ids; nothing when every record
// was cached or get failed (each request then loads its own record and
// reports the error).
func prefetchByID[K ~int64, T any](reqs []*rest.Request, get func(context.Context, []int64) (map[int64]*T, error)) []*T {
	if len(reqs) == 0 {
		return nil
	}
	cache := reqs[0].Cache()
	var ids []int64
	for _, r := range reqs {
		if id := r.Int("id"); id > 0 {
			if _, ok := cache[K(id)]; !ok {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	got, err := get(reqs[0].Context(), ids)
	if err != nil {
		return nil
	}
	var found []*T
	for _, id := range ids {
		if x, ok := got[id]; ok {
			cache[K(id)] = x
			found = append(found, x)
		} else {
			cache[K(id)] = (*T)(nil)
		}
	}
	return found
}

// pageArgs returns the collection's `page` (at least 1) and `per_page`
// (10 when unset or below 1).
func pageArgs(r *rest.Request) (page, perPage int) {
	page = max(int(r.Int("page")), 1)
	perPage = int(r.Int("per_page"))
	if perPage < 1 {
		perPage = 10
	}
	return page, perPage
}

// pageOffset returns the `offset` parameter when given (0 included), else
// the offset of the first item of page.
func pageOffset(r *rest.Request, page, perPage int) int {
	if r.Has("offset") {
		return int(r.Int("offset"))
	}
	return (page - 1) * perPage
}

// optString returns the string parameter name when the request has it,
// else nil (left unchanged).
func optString(r *rest.Request, name string) *string {
	if !r.Has(name) {
		return nil
	}
	s := r.String(name)
	return &s
}

// optInt returns the integer parameter name when the request has it, else
// nil (left unchanged).
func optInt(r *rest.Request, name string) *int64 {
	if !r.Has(name) {
		return nil
	}
	n := r.Int(name)
	return &n
}

// settingsKey caches the site settings in the request-scoped cache
// shared with embedded requests.
type settingsKey struct{}

// requestSettings returns the site settings for r, read once per request
// and its embedded requests (a page of embedded users asks once); when the
// store cannot be read, the settings last loaded.
func requestSettings(r *rest.Request, site *content.Site) *content.Settings {
	cache := r.Cache()
	if st, ok := cache[settingsKey{}].(*content.Settings); ok {
		return st
	}
	st := site.SettingsOrLast(r.Context())
	cache[settingsKey{}] = st
	return st
}

// optBool returns the boolean parameter name when the request has it, else
// nil (left unchanged).
func optBool(r *rest.Request, name string) *bool {
	if !r.Has(name) {
		return nil
	}
	b := r.Bool(name)
	return &b
}

// dateFields reads the `date` (site-local) and `date_gmt` parameters as
// UTC instants. `date` wins over `date_gmt` when both are given, and an
// empty value counts as not given; an unparsable one is rest_invalid_param.
func dateFields(r *rest.Request) (date, dateGMT *time.Time, err error) {
	if s := r.String("date"); s != "" {
		t, ok := content.ParseDate(s, false)
		if !ok {
			return nil, nil, invalidDate("date")
		}
		return &t, nil, nil
	}
	if s := r.String("date_gmt"); s != "" {
		t, ok := content.ParseDate(s, true)
		if !ok {
			return nil, nil, invalidDate("date_gmt")
		}
		return nil, &t, nil
	}
	return nil, nil, nil
}

// invalidDate is the rest_invalid_param error of an unparsable date.
func invalidDate(name string) error {
	return invalidParam(name, "The date you provided is invalid.")
}

// dateRange reads the `after` and `before` collection parameters as site
// wall-clock times (in the site's time zone); an empty or unparsable value
// is no bound.
func dateRange(site *content.Site, r *rest.Request) (after, before *time.Time, err error) {
	if r.String("after") == "" && r.String("before") == "" {
		return nil, nil, nil
	}
	loc, err := site.Location(r.Context())
	if err != nil {
		return nil, nil, err
	}
	bound := func(name string) *time.Time {
		if s := r.String(name); s != "" {
			if t, ok := content.ParseDate(s, false); ok {
				local := content.WallClock(t, loc)
				return &local
			}
		}
		return nil
	}
	return bound("after"), bound("before"), nil
}

// pathUser resolves the user_id capture of the /users/<id>/… sub-resources
// ("me" is the caller): 401 rest_not_logged_in for an anonymous "me", 404
// rest_user_invalid_id for an unknown user.
func pathUser(r *rest.Request, site *content.Site) (*store.User, error) {
	raw := r.URLParams["user_id"]
	if raw == "me" {
		if r.User == nil || r.User.Record() == nil {
			return nil, errNotLoggedIn()
		}
		return r.User.Record(), nil
	}
	id, _ := strconv.ParseInt(raw, 10, 64)
	u, ok, err := site.GetUser(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errUserInvalidID(404)
	}
	return u, nil
}

// errNotLoggedIn is the 401 error of a request for "me" by an anonymous
// caller.
func errNotLoggedIn() error {
	return rest.NewError("rest_not_logged_in", 401, "You are not currently logged in.")
}

// editPathUser returns the permission check of the /users/<id>/…
// sub-resources: edit_user on the user of the path (yourself always;
// others need edit_users), else code and msg.
func editPathUser(site *content.Site, code, msg string) func(r *rest.Request) error {
	return func(r *rest.Request) error {
		u, err := pathUser(r, site)
		if err != nil {
			return err
		}
		if r.User == nil || !site.Can(r.Context(), r.User, "edit_user", u.ID) {
			return rest.AuthError(r, code, msg)
		}
		return nil
	}
}

// findPathUserItem returns the first of the path user's items (listed by
// list) for which match is true, else the error of notFound.
func findPathUserItem[T any](r *rest.Request, site *content.Site, list func(context.Context, int64) ([]T, error), match func(T) bool, notFound func() error) (T, error) {
	var zero T
	u, err := pathUser(r, site)
	if err != nil {
		return zero, err
	}
	items, err := list(r.Context(), u.ID)
	if err != nil {
		return zero, err
	}
	for _, it := range items {
		if match(it) {
			return it, nil
		}
	}
	return zero, notFound()
}

// avatarSchema caches an item schema that follows the site's avatar sizes
// (rest_avatar_sizes may change after registration); it is safe for
// concurrent use.
type avatarSchema struct {
	site  *content.Site
	build func(sizes []int) *schema.Object

	mu     sync.Mutex
	schema *schema.Object
	sizes  []int
	// rs, once the routes are registered, adds the extensions' fields to
	// a schema built afterwards.
	rs *rest.Server
}

// newAvatarSchema returns the item schema of a resource with avatar URLs
// (users, comments), built by build for the avatar sizes of the site.
func newAvatarSchema(site *content.Site, build func(sizes []int) *schema.Object) *avatarSchema {
	return &avatarSchema{site: site, build: build}
}

// forSettings returns the item schema for the avatar sizes of the settings
// set (show_avatars), and those sizes.
func (a *avatarSchema) forSettings(set *content.Settings) (*schema.Object, []int) {
	return a.get(a.site.AvatarSizes(set), a.build)
}

// current is the item schema outside a request (OPTIONS, the indexes, the
// API description): for the settings as the store has them.
func (a *avatarSchema) current() *schema.Object {
	o, _ := a.forSettings(a.site.SettingsOrLast(context.Background()))
	return o
}

// get returns the schema for sizes, built with build when there is none
// yet or the sizes changed, and the sizes it was built for.
func (a *avatarSchema) get(sizes []int, build func([]int) *schema.Object) (*schema.Object, []int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.schema == nil || !slices.Equal(sizes, a.sizes) {
		a.schema, a.sizes = build(sizes), sizes
		if a.rs != nil {
			a.rs.AddFieldsTo(a.schema)
		}
	}
	return a.schema, a.sizes
}

// registered records rs, whose extension fields join the schemas built
// from now on.
func (a *avatarSchema) registered(rs *rest.Server) {
	a.mu.Lock()
	a.rs = rs
	a.mu.Unlock()
}

// slugArg is the `slug` filter of a collection of what: one slug in the
// spec's names; in the WordPress-compatibility mode also a comma list or
// an array (`slug=a,b`, `slug[]=a&slug[]=b`), as WordPress 4.7+ clients
// send it, matching any of them.
func slugArg(names rest.Names, what string) *rest.Arg {
	if names.WordPress {
		return &rest.Arg{Name: "slug", Description: "Limit result set to " + what + " with one or more specific slugs.",
			Type: "array", Items: "string", Sanitize: sanitizeSlugs}
	}
	return &rest.Arg{Name: "slug", Description: "Limit result set to " + what + " with a specific slug.", Type: "string"}
}

// sanitizeSlugs turns a comma list or an array of slugs into slugs, each
// sanitized as a slug is on write, without duplicates.
func sanitizeSlugs(_ *rest.Request, _ string, v any) (any, error) {
	out := []string{}
	for _, s := range schema.StringList(v) {
		if k := render.Slug(s); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// slugFilter returns the slugs the request's slug filter names, each
// sanitized as on write; nil when it names none.
func slugFilter(r *rest.Request) []string {
	if !r.Has("slug") {
		return nil
	}
	if v, _ := r.Get("slug"); v != nil {
		if list, ok := v.([]string); ok {
			if len(list) == 0 {
				return nil
			}
			return list
		}
	}
	if s := render.Slug(r.String("slug")); s != "" {
		return []string{s}
	}
	return nil
}

// registerKeyed registers the two read-only routes of a keyed collection
// (/types, /statuses, /taxonomies): the collection, answered as a map keyed
// by name, and the item at /<base>/<name> with the path parameter param.
// extra are the collection's arguments beyond context.
func registerKeyed(rs *rest.Server, ns, base, param string, itemSchema func() *schema.Object,
	list, get func(*rest.Request) (*rest.Response, error), listPerm, getPerm func(*rest.Request) error, extra ...*rest.Arg) {
	rs.Register(ns, "/"+base, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{{
			Methods: rest.Readable, Handler: list, Permission: listPerm,
			Args: append([]*rest.Arg{contextArg("view")}, extra...), Returns: rest.ShapeMap,
		}},
	})
	rs.Register(ns, `/`+base+`/(?P<`+param+`>[\w-]+)`, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{{
			Methods: rest.Readable, Handler: get, Permission: getPerm,
			Args: []*rest.Arg{contextArg("view")},
		}},
	})
}

// avatarURLs is the object property named name holding one avatar URL per
// size (users' avatar_urls, comments' author_avatar_urls); nil without
// sizes (show_avatars off).
func avatarURLs(name, description string, sizes []int) *schema.Property {
	if len(sizes) == 0 {
		return nil
	}
	props := make([]*schema.Property, 0, len(sizes))
	for _, sz := range sizes {
		props = append(props, &schema.Property{
			Name:        strconv.Itoa(sz),
			Description: "Avatar URL with image size of " + strconv.Itoa(sz) + " pixels.",
			Type:        "string", Format: "uri", Context: schema.View | schema.Edit | schema.Embed,
		})
	}
	return &schema.Property{Name: name, Description: description, Type: "object",
		Context: schema.View | schema.Edit | schema.Embed, Readonly: true, Properties: props}
}

// getKeyed answers the item route of a keyed collection: the entry named
// by the path parameter param, or a 404 with code.
func getKeyed[T any](r *rest.Request, lookup func(string) (T, bool), param, code string,
	prepare func(*rest.Request, T, schema.Context) *rest.Resource) (*rest.Response, error) {
	v, ok := lookup(r.String(param))
	if !ok {
		return nil, rest.NewError(code, 404, "Invalid resource.")
	}
	return rest.NewResponse(200, prepare(r, v, requestContext(r))), nil
}

// loadItem loads the item a request names with load, which returns nil
// when there is none (missing, or not of the controller's type): the item,
// the load's error, or the error of missing.
func loadItem[T any](r *rest.Request, load func(*rest.Request) (*T, error), missing func() error) (*T, error) {
	x, err := load(r)
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, missing()
	}
	return x, nil
}

// getItem answers the item route of a resource: the item loadItem finds,
// prepared in the request's context, with 200; headers, when not nil, adds
// the answer's headers from the item and its resource.
func getItem[T any](r *rest.Request, load func(*rest.Request) (*T, error), missing func() error,
	prepare func(*rest.Request, *T, schema.Context) (*rest.Resource, error),
	headers func(*rest.Response, *T, *rest.Resource)) (*rest.Response, error) {
	x, err := loadItem(r, load, missing)
	if err != nil {
		return nil, err
	}
	res, err := prepare(r, x, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	if headers != nil {
		headers(resp, x, res)
	}
	return resp, nil
}

// setAlternate adds the Link header naming the HTML page of an item (its
// link field) when show is true and the resource has the link.
func setAlternate(resp *rest.Response, res *rest.Resource, show bool) {
	if !show {
		return
	}
	link, _ := res.Value("link")
	if s, ok := link.(string); ok {
		resp.SetHeader("Link", "<"+s+`>; rel="alternate"; type=text/html`)
	}
}
