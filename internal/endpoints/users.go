package endpoints

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// usersController serves /users, /users/<id> and /users/me (reference
// §10.5, decisions #6 and #7).
type usersController struct {
	site  *content.Site
	names rest.Names
	base  string // "svc/v2/users"
	// write is the schema the write arguments were made from (at
	// registration); items is the cached item schema, which follows the
	// avatar sizes (rest_avatar_sizes may change after registration).
	write *schema.Object
	items *avatarSchema
}

func newUsersController(site *content.Site, names rest.Names) *usersController {
	c := &usersController{site: site, names: names, base: names.Namespace + "/users"}
	c.items = newAvatarSchema(site, userSchema)
	c.write = c.items.current()
	return c
}

func (c *usersController) register(rs *rest.Server, ns string) {
	c.items.registered(rs)
	itemSchema := c.items.current
	rs.Register(ns, "/users", &rest.Route{
		Schema:     itemSchema,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.listPermission, Args: c.collectionParams()},
			{Methods: rest.Creatable, Handler: c.create, Permission: c.createPermission, Args: c.writeArgs(true)},
		},
	})
	rs.Register(ns, `/users/(?P<id>[\d]+)`, &rest.Route{
		Schema:     itemSchema,
		Prefetch:   c.prefetch,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.getPermission, Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Editable, Handler: c.update, Permission: c.updatePermission, Args: c.writeArgs(false)},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.deletePermission, Args: []*rest.Arg{
				{Name: "force", Description: "Required to be true, as resource does not support trashing.", Type: "boolean", Default: false},
				{Name: "reassign", Description: "Reassign the deleted user's posts and links to this user id.", Type: "integer", Sanitize: rest.AbsInt},
			}},
		},
	})
	rs.Register(ns, "/users/me", &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.me, Args: []*rest.Arg{contextArg("view")}},
		},
	})
}

// userSchema builds the user item schema in the original's property order;
// avatar_urls is present only when sizes is not empty.
func userSchema(sizes []int) *schema.Object {
	V, E, M := schema.View, schema.Edit, schema.Embed
	o := schema.NewObject("user",
		&schema.Property{Name: "id", Description: "Unique identifier for the resource.", Type: "integer", Context: M | V | E, Readonly: true},
		&schema.Property{Name: "username", Description: "Login name for the resource.", Type: "string", Context: E, Required: true},
		&schema.Property{Name: "name", Description: "Display name for the resource.", Type: "string", Context: M | V | E},
		&schema.Property{Name: "first_name", Description: "First name for the resource.", Type: "string", Context: E},
		&schema.Property{Name: "last_name", Description: "Last name for the resource.", Type: "string", Context: E},
		&schema.Property{Name: "email", Description: "The email address for the resource.", Type: "string", Format: "email", Context: E, Required: true},
		&schema.Property{Name: "url", Description: "URL of the resource.", Type: "string", Format: "uri", Context: M | V | E},
		&schema.Property{Name: "description", Description: "Description of the resource.", Type: "string", Context: M | V | E},
		&schema.Property{Name: "link", Description: "Author URL to the resource.", Type: "string", Format: "uri", Context: M | V | E, Readonly: true},
		&schema.Property{Name: "nickname", Description: "The nickname for the resource.", Type: "string", Context: E},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the resource.", Type: "string", Context: M | V | E},
		&schema.Property{Name: "registered_date", Description: "Registration date for the resource.", Type: "date-time", Context: E, Readonly: true},
		&schema.Property{Name: "roles", Description: "Roles assigned to the resource.", Type: "array", Items: &schema.Property{Type: "string"}, Context: E},
		&schema.Property{Name: "password", Description: "Password for the resource (never included).", Type: "string", Required: true},
		&schema.Property{Name: "capabilities", Description: "All capabilities assigned to the resource.", Type: "object", Context: E},
		&schema.Property{Name: "extra_capabilities", Description: "Any extra capabilities assigned to the resource.", Type: "object", Context: E, Readonly: true},
	)
	if p := avatarURLs("avatar_urls", "Avatar URLs for the resource.", sizes); p != nil {
		o.Add(p)
	}
	return o
}

// writeArgs are the create or update arguments: the writable schema
// properties, with the original's sanitizers.
func (c *usersController) writeArgs(creating bool) []*rest.Arg {
	args := rest.ArgsFromSchema(c.write, creating)
	for _, a := range args {
		switch a.Name {
		case "username":
			a.Sanitize = stringSanitizer(content.SanitizeUserLogin)
		case "name", "first_name", "last_name", "nickname":
			a.Sanitize = stringSanitizer(schema.SanitizeTextField)
		case "slug":
			a.Sanitize = stringSanitizer(render.Slug)
		case "roles":
			a.Sanitize = sanitizeSlugList
		}
	}
	return args
}

// stringSanitizer wraps a string cleaner as an argument sanitizer; values
// that are not strings fail with "<name> is not of type string".
func stringSanitizer(fn func(string) string) func(*rest.Request, string, any) (any, error) {
	return func(_ *rest.Request, name string, v any) (any, error) {
		s, ok := schema.ScalarString(v)
		if !ok {
			return nil, fmt.Errorf("%s is not of type string", name)
		}
		return fn(s), nil
	}
}

// sanitizeSlugList turns an array or a comma/space separated list into
// sanitized keys (wp_parse_slug_list): lower-cased, de-duplicated.
func sanitizeSlugList(_ *rest.Request, _ string, v any) (any, error) {
	var out []string
	for _, s := range schema.StringList(v) {
		k := keyUnsafe.ReplaceAllString(strings.ToLower(s), "")
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

func (c *usersController) collectionParams() []*rest.Arg {
	args := collectionArgs()
	return append(args,
		&rest.Arg{Name: "exclude", Description: "Ensure result set excludes specific ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "include", Description: "Limit result set to specific ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "offset", Description: "Offset the result set by a specific number of items.", Type: "integer", Sanitize: rest.AbsInt},
		&rest.Arg{Name: "order", Description: "Order sort attribute ascending or descending.", Type: "string", Default: "asc", Enum: []string{"asc", "desc"}, Sanitize: sanitizeKey},
		&rest.Arg{Name: "orderby", Description: "Sort collection by object attribute.", Type: "string", Default: "name", Enum: []string{"id", "include", "name", "registered_date"}, Sanitize: sanitizeKey},
		slugArg(c.names, "resources"),
		&rest.Arg{Name: "roles", Description: "Limit result set to resources matching at least one specific role provided. Accepts csv list or single role.", Type: "array", Sanitize: sanitizeSlugList},
		&rest.Arg{Name: "who", Description: "Limit result set to users who are considered authors.", Type: "string", Enum: []string{"authors"}},
	)
}

// ---- loading ----

// userKey and publishedKey cache loaded users and their "has a published
// post" answer in the request-scoped cache shared with embedded requests.
type (
	userKey      int64
	publishedKey int64
)

func (c *usersController) load(r *rest.Request, id int64) (*store.User, error) {
	return cachedLoad[userKey](r, id, c.site.GetUser)
}

// loadOwn loads the user named by the request's id; nil when there is none.
func (c *usersController) loadOwn(r *rest.Request) (*store.User, error) {
	return c.load(r, r.Int("id"))
}

// prefetch batch-loads the users of many embedded requests (post authors,
// comment authors) and whether each has published posts: two queries for
// any number of users.
func (c *usersController) prefetch(reqs []*rest.Request) {
	if len(reqs) == 0 {
		return
	}
	cache := reqs[0].Cache()
	var ids []int64
	for _, r := range reqs {
		id := r.Int("id")
		if _, ok := cache[userKey(id)]; !ok && id > 0 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	ctx := reqs[0].Context()
	got, err := c.site.GetUsers(ctx, ids)
	if err != nil {
		return // each request loads its own user and reports the error
	}
	for _, id := range ids {
		if u, ok := got[id]; ok {
			cache[userKey(id)] = u
		} else {
			cache[userKey(id)] = (*store.User)(nil)
		}
	}
	// Whether each has a published post, unless already known (the
	// author of a listed published post: posts' list).
	var ask []int64
	for _, id := range ids {
		if _, ok := cache[publishedKey(id)]; !ok {
			ask = append(ask, id)
		}
	}
	if len(ask) == 0 {
		return
	}
	if pub, err := c.site.PublishedAuthors(ctx, ask); err == nil {
		for _, id := range ask {
			cache[publishedKey(id)] = pub[id]
		}
	}
}

// canView applies the single-user visibility rule, using the prefetched
// answer when there is one.
func (c *usersController) canView(r *rest.Request, id int64) (bool, error) {
	u := r.User
	if u != nil && u.ID() == id {
		return true, nil
	}
	if v, ok := r.Cache()[publishedKey(id)]; ok && v.(bool) {
		return true, nil
	}
	return c.site.CanViewUser(r.Context(), u, id)
}

// errUserNotFound is the 404 of a read of a user that does not exist;
// errUserInvalid the 400 of an update or delete.
func errUserNotFound() error { return errUserInvalidID(404) }
func errUserInvalid() error  { return errUserInvalidID(400) }

func errUserInvalidID(status int) error {
	return rest.NewError("rest_user_invalid_id", status, "Invalid resource id.")
}

// ---- permissions ----

func (c *usersController) listPermission(r *rest.Request) error {
	if len(r.Strings("roles")) > 0 && !r.User.HasCap("list_users") {
		return rest.AuthError(r, "rest_user_cannot_view", "Sorry, you cannot filter by role.")
	}
	if r.ContextName() == "edit" && !r.User.HasCap("list_users") {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you cannot view this resource with edit context.")
	}
	if r.String("who") == "authors" && !c.site.CanListAuthors(r.User) {
		return rest.AuthError(r, "rest_forbidden_who", "Sorry, you are not allowed to query users by this parameter.")
	}
	return nil
}

func (c *usersController) getPermission(r *rest.Request) error {
	id := r.Int("id")
	if _, err := loadItem(r, c.loadOwn, errUserNotFound); err != nil {
		return err
	}
	if r.User != nil && r.User.ID() == id {
		return nil
	}
	if r.ContextName() == "edit" && !r.User.HasCap("list_users") {
		return rest.AuthError(r, "rest_user_cannot_view", "Sorry, you cannot view this resource with edit context.")
	}
	ok, err := c.canView(r, id)
	if err != nil {
		return err
	}
	if !ok {
		return rest.AuthError(r, "rest_user_cannot_view", "Sorry, you cannot view this resource.")
	}
	return nil
}

func (c *usersController) createPermission(r *rest.Request) error {
	if !r.User.HasCap("create_users") {
		return rest.AuthError(r, "rest_cannot_create_user", "Sorry, you are not allowed to create resource.")
	}
	return nil
}

func (c *usersController) updatePermission(r *rest.Request) error {
	if !c.site.Can(r.Context(), r.User, "edit_user", r.Int("id")) {
		return rest.AuthError(r, "rest_cannot_edit", "Sorry, you are not allowed to edit resource.")
	}
	if r.Has("roles") && !r.User.HasCap("edit_users") {
		return rest.AuthError(r, "rest_cannot_edit_roles", "Sorry, you are not allowed to edit roles of this resource.")
	}
	return nil
}

func (c *usersController) deletePermission(r *rest.Request) error {
	if !c.site.Can(r.Context(), r.User, "delete_user", r.Int("id")) {
		return rest.AuthError(r, "rest_user_cannot_delete", "Sorry, you are not allowed to delete this resource.")
	}
	return nil
}

// ---- handlers ----

func (c *usersController) list(r *rest.Request) (*rest.Response, error) {
	page, perPage := pageArgs(r)
	offset := (page - 1) * perPage
	if r.Has("offset") && r.Int("offset") > 0 {
		offset = int(r.Int("offset"))
		page = offset/perPage + 1
		if offset%perPage != 0 {
			page++
		}
	}
	q := store.UserQuery{
		Search: strings.TrimSpace(r.String("search")),
		// Logins and emails are shown only to list_users (edit context),
		// so only they may search them.
		SearchAccounts: r.User.HasCap("list_users"),
		Include:        r.IDs("include"),
		Exclude:        r.IDs("exclude"),
		Roles:          r.Strings("roles"),
		OrderBy:        map[string]string{"id": "id", "include": "include", "name": "name", "registered_date": "registered_date"}[r.String("orderby")],
		Order:          r.String("order"),
		Offset:         offset,
		Limit:          perPage,
	}
	if q.Slugs = slugFilter(r); q.Slugs != nil {
		q.Search = ""
	}
	switch {
	case r.String("who") == "authors":
		// Every author, whether or not they have published (the
		// permission check allowed the caller to list them).
		authors := c.site.AuthorRoles()
		if len(q.Roles) > 0 {
			authors = slices.DeleteFunc(slices.Clone(q.Roles), func(role string) bool { return !slices.Contains(authors, role) })
		}
		q.Roles = authors
		if len(q.Roles) == 0 {
			q.Include = []int64{-1}
		}
	case !r.User.HasCap("list_users"):
		q.HasPublishedOfTypes = c.site.PublicTypeNames()
		if len(q.HasPublishedOfTypes) == 0 {
			q.Include = []int64{-1}
		}
	}
	users, total, err := c.site.ListUsers(r.Context(), q)
	if err != nil {
		return nil, err
	}
	res := c.prepareMany(r, users, requestContext(r))
	resp := rest.NewResponse(200, res)
	resp.Paginate(r, total, page, perPage)
	return resp, nil
}

func (c *usersController) get(r *rest.Request) (*rest.Response, error) {
	u, err := loadItem(r, c.loadOwn, errUserNotFound)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, c.prepare(r, u, requestContext(r))), nil
}

// me answers /users/me with the current user (decisions #7).
func (c *usersController) me(r *rest.Request) (*rest.Response, error) {
	if r.User == nil || r.User.Record() == nil {
		return nil, errNotLoggedIn()
	}
	return rest.NewResponse(200, c.prepare(r, r.User.Record(), requestContext(r))), nil
}

func (c *usersController) create(r *rest.Request) (*rest.Response, error) {
	if r.Has("id") && r.Int("id") != 0 {
		return nil, rest.NewError("rest_user_exists", 400, "Cannot create existing resource.")
	}
	u, err := c.site.CreateUser(r.Context(), r.User, c.input(r), r)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[userKey(u.ID)] = u
	c.site.InsertUserHook(r.Context(), u, r, true)
	resp := rest.NewResponse(201, c.prepare(r, u, schema.Edit))
	resp.SetHeader("Location", r.URL(c.base+"/"+strconv.FormatInt(u.ID, 10)))
	return resp, nil
}

func (c *usersController) update(r *rest.Request) (*rest.Response, error) {
	old, err := loadItem(r, c.loadOwn, errUserInvalid)
	if err != nil {
		return nil, err
	}
	in := c.input(r)
	in.KeepSession = auth.RequestSessionHash(r.HTTP)
	u, err := c.site.UpdateUser(r.Context(), r.User, old, in, r)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[userKey(u.ID)] = u
	c.site.InsertUserHook(r.Context(), u, r, false)
	return rest.NewResponse(200, c.prepare(r, u, schema.Edit)), nil
}

func (c *usersController) delete(r *rest.Request) (*rest.Response, error) {
	if !r.Bool("force") {
		return nil, rest.NewError("rest_trash_not_supported", 501, "Users do not support trashing.")
	}
	id := r.Int("id")
	u, err := loadItem(r, c.loadOwn, errUserInvalid)
	if err != nil {
		return nil, err
	}
	reassign := r.Int("reassign")
	if reassign != 0 {
		to, err := c.load(r, reassign)
		if err != nil {
			return nil, err
		}
		if reassign == id || to == nil {
			return nil, rest.NewError("rest_user_invalid_reassign", 400, "Invalid resource id for reassignment.")
		}
	}
	res := c.prepare(r, u, schema.Edit)
	if err := c.site.DeleteUser(r.Context(), u, reassign); err != nil {
		return nil, cannotDelete(r, "The resource cannot be deleted.", err)
	}
	delete(r.Cache(), userKey(id))
	c.site.DeleteUserHook(r.Context(), u, res, r)
	return rest.NewResponse(200, res), nil
}

// input is prepare-for-database: the request's fields as a domain input.
func (c *usersController) input(r *rest.Request) content.UserInput {
	in := content.UserInput{
		Username:    optString(r, "username"),
		Email:       optString(r, "email"),
		Password:    optString(r, "password"),
		Name:        optString(r, "name"),
		FirstName:   optString(r, "first_name"),
		LastName:    optString(r, "last_name"),
		Nickname:    optString(r, "nickname"),
		Slug:        optString(r, "slug"),
		Description: optString(r, "description"),
		URL:         optString(r, "url"),
	}
	if r.Has("roles") {
		in.RolesSet = true
		in.Roles = r.Strings("roles")
		if in.Roles == nil {
			in.Roles = []string{}
		}
	}
	return in
}

// ---- prepare for response ----

func (c *usersController) prepareMany(r *rest.Request, users []*store.User, ctx schema.Context) []*rest.Resource {
	o, sizes := c.items.forSettings(requestSettings(r, c.site))
	out := make([]*rest.Resource, len(users))
	for i, u := range users {
		out[i] = c.prepareWith(r, u, ctx, o, sizes)
	}
	return out
}

// prepare builds the resource of u.
func (c *usersController) prepare(r *rest.Request, u *store.User, ctx schema.Context) *rest.Resource {
	o, sizes := c.items.forSettings(requestSettings(r, c.site))
	return c.prepareWith(r, u, ctx, o, sizes)
}

// prepareWith builds the resource of u under schema o with avatars of the
// given sizes. The password and its hash are never part of it.
func (c *usersController) prepareWith(r *rest.Request, u *store.User, ctx schema.Context, o *schema.Object, sizes []int) *rest.Resource {
	res := rest.NewResource(o, ctx)
	res.Set("id", u.ID)
	res.Set("name", u.DisplayName)
	res.Set("url", u.URL)
	res.Set("description", u.Description)
	res.Set("link", c.site.AuthorLink(r.SiteURL(""), u))
	res.Set("slug", u.Nicename)
	if ctx == schema.Edit && r.Wants("username") {
		res.Set("username", u.Login)
	}
	if ctx == schema.Edit {
		res.Set("first_name", u.FirstName)
		res.Set("last_name", u.LastName)
		res.Set("email", u.Email)
		res.Set("nickname", u.Nickname)
		res.Set("registered_date", content.FormatRegistered(u.Registered))
		roles := u.Roles
		if roles == nil {
			roles = []string{}
		}
		res.Set("roles", roles)
	}
	if ctx == schema.Edit && r.Wants("capabilities") {
		eff := c.site.UserOf(u)
		all := eff.AllCaps()
		caps := rest.NewKeyed()
		for _, name := range eff.AllCapNames() {
			caps.Add(name, all[name])
		}
		res.Set("capabilities", caps)
	}
	if ctx == schema.Edit {
		extra := rest.NewKeyed()
		for _, role := range u.Roles {
			extra.Add(role, true)
		}
		for _, name := range slices.Sorted(maps.Keys(u.Caps)) {
			extra.Add(name, u.Caps[name])
		}
		res.Set("extra_capabilities", extra)
	}
	if len(sizes) > 0 && r.Wants("avatar_urls") {
		avatars := make(map[string]any, len(sizes))
		for _, sz := range sizes {
			avatars[strconv.Itoa(sz)] = content.AvatarURL(u.Email, sz)
		}
		res.Set("avatar_urls", avatars)
	}
	if r.WantsLinks() {
		res.AddLink("self", r.URL(c.base+"/"+strconv.FormatInt(u.ID, 10)), false)
		res.AddLink("collection", r.URL(c.base), false)
	}
	c.site.PrepareUserHook(r.Context(), u, res, r)
	return res
}
