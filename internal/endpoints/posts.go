package endpoints

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// postsController serves one post type: posts, pages or a custom type.
type postsController struct {
	site   *content.Site
	pt     *content.PostType
	names  rest.Names
	schema *schema.Object
	base   string // "svc/v2/posts"
	// The relation names under the relation base, for links.
	relTerm, relAttachment, relFeatured string
}

func newPostsController(site *content.Site, pt *content.PostType, names rest.Names) *postsController {
	c := &postsController{site: site, pt: pt, names: names, base: names.Namespace + "/" + pt.RestBase,
		relTerm: names.RelBase + "term", relAttachment: names.RelBase + "attachment", relFeatured: names.RelBase + "featuredmedia"}
	c.schema = postSchema(site, pt)
	return c
}

func (c *postsController) register(rs *rest.Server, ns string) {
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, "/"+c.pt.RestBase, &rest.Route{
		Schema:     itemSchema,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.listPermission, Args: c.collectionParams()},
			{Methods: rest.Creatable, Handler: c.create, Permission: c.createPermission, Args: rest.ArgsFromSchema(c.schema, true)},
		},
	})
	rs.Register(ns, "/"+c.pt.RestBase+`/(?P<id>[\d]+)`, &rest.Route{
		Schema:     itemSchema,
		Prefetch:   c.prefetch,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.getPermission, Args: []*rest.Arg{
				contextArg("view"),
				{Name: "password", Description: "The password for the post if it is password protected.", Type: "string"},
			}},
			{Methods: rest.Editable, Handler: c.update, Permission: c.updatePermission, Args: rest.ArgsFromSchema(c.schema, false)},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.deletePermission, Args: []*rest.Arg{
				{Name: "force", Description: "Whether to bypass trash and force deletion.", Type: "boolean", Default: false},
			}},
		},
	})
}

// postSchema builds the item schema of a post type (reference §10.1), in
// output order.
func postSchema(site *content.Site, pt *content.PostType) *schema.Object {
	V, E, M := schema.View, schema.Edit, schema.Embed
	rawRendered := func(what string, renderedCtx schema.Context, protected bool, protectedCtx schema.Context) []*schema.Property {
		props := []*schema.Property{
			{Name: "raw", Description: what + " for the object, as it exists in the database.", Type: "string", Context: E},
			{Name: "rendered", Description: "HTML " + strings.ToLower(what) + " for the object, transformed for display.", Type: "string", Context: renderedCtx},
		}
		if protected {
			props = append(props, &schema.Property{Name: "protected", Description: "Whether the " + strings.ToLower(what) + " is protected with a password.", Type: "boolean", Context: protectedCtx, Readonly: true})
		}
		return props
	}
	o := schema.NewObject(pt.Name,
		&schema.Property{Name: "id", Description: "Unique identifier for the object.", Type: "integer", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "date", Description: "The date the object was published, in the site's timezone.", Type: "string", Format: "date-time", Context: V | E | M},
		&schema.Property{Name: "date_gmt", Description: "The date the object was published, as GMT.", Type: "string", Format: "date-time", Context: V | E},
		&schema.Property{Name: "guid", Description: "The globally unique identifier for the object.", Type: "object", Context: V | E, Readonly: true, Properties: []*schema.Property{
			{Name: "rendered", Description: "GUID for the object, transformed for display.", Type: "string", Context: V | E},
			{Name: "raw", Description: "GUID for the object, as it exists in the database.", Type: "string", Context: E},
		}},
		&schema.Property{Name: "modified", Description: "The date the object was last modified, in the site's timezone.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "modified_gmt", Description: "The date the object was last modified, as GMT.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "password", Description: "A password to protect access to the post.", Type: "string", Context: E},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the object unique to its type.", Type: "string", Context: V | E | M},
		&schema.Property{Name: "status", Description: "A named status for the object.", Type: "string", Enum: site.Statuses().WritableNames(), Context: E},
		&schema.Property{Name: "type", Description: "Type of Post for the object.", Type: "string", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "link", Description: "URL to the object.", Type: "string", Format: "uri", Context: V | E | M, Readonly: true},
	)
	has := func(f content.Support) bool { return pt.Supports(f) }
	if has(content.SupportTitle) {
		o.Add(&schema.Property{Name: "title", Description: "The title for the object.", Type: "object", Context: V | E | M, Properties: rawRendered("Title", V|E|M, false, 0)})
	}
	if has(content.SupportEditor) {
		o.Add(&schema.Property{Name: "content", Description: "The content for the object.", Type: "object", Context: V | E, Properties: rawRendered("Content", V|E, true, V|E)})
	}
	if has(content.SupportExcerpt) {
		o.Add(&schema.Property{Name: "excerpt", Description: "The excerpt for the object.", Type: "object", Context: V | E | M, Properties: rawRendered("Excerpt", V|E|M, true, V|E|M)})
	}
	if has(content.SupportAuthor) {
		o.Add(&schema.Property{Name: "author", Description: "The id for the author of the object.", Type: "integer", Context: V | E | M})
	}
	if has(content.SupportThumbnail) {
		o.Add(&schema.Property{Name: "featured_media", Description: "The id of the featured media for the object.", Type: "integer", Context: V | E})
	}
	if pt.Hierarchical {
		o.Add(&schema.Property{Name: "parent", Description: "The id for the parent of the object.", Type: "integer", Context: V | E})
	}
	if has(content.SupportPageAttributes) {
		o.Add(&schema.Property{Name: "menu_order", Description: "The order of the object in relation to other object of its type.", Type: "integer", Context: V | E})
	}
	if has(content.SupportComments) {
		o.Add(&schema.Property{Name: "comment_status", Description: "Whether or not comments are open on the object.", Type: "string", Enum: []string{"open", "closed"}, Context: V | E})
		o.Add(&schema.Property{Name: "ping_status", Description: "Whether or not the object can be pinged.", Type: "string", Enum: []string{"open", "closed"}, Context: V | E})
	}
	if pt.Name == "post" {
		o.Add(&schema.Property{Name: "sticky", Description: "Whether or not the object should be treated as sticky.", Type: "boolean", Context: V | E})
	}
	if pt.Name == "page" {
		o.Add(&schema.Property{Name: "template", Description: "The theme file to use to display the object.", Type: "string", Context: V | E})
	}
	if has(content.SupportPostFormats) {
		o.Add(&schema.Property{Name: "format", Description: "The format for the object.", Type: "string", Enum: content.PostFormats, Context: V | E})
	}
	addPostTermProps(site, pt, o)
	return o
}

func (c *postsController) collectionParams() []*rest.Arg {
	args := collectionArgs()
	args = append(args,
		&rest.Arg{Name: "after", Description: "Limit response to resources published after a given ISO8601 compliant date.", Type: "string", Format: "date-time"},
	)
	if c.pt.Supports(content.SupportAuthor) {
		args = append(args,
			&rest.Arg{Name: "author", Description: "Limit result set to posts assigned to specific authors.", Type: "array", Items: "integer", Default: []int64{}},
			&rest.Arg{Name: "author_exclude", Description: "Ensure result set excludes posts assigned to specific authors.", Type: "array", Items: "integer", Default: []int64{}},
		)
	}
	args = append(args,
		&rest.Arg{Name: "before", Description: "Limit response to resources published before a given ISO8601 compliant date.", Type: "string", Format: "date-time"},
		&rest.Arg{Name: "exclude", Description: "Ensure result set excludes specific ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "include", Description: "Limit result set to specific ids.", Type: "array", Items: "integer", Default: []int64{}},
	)
	orderby := []string{"date", "id", "include", "title", "slug"}
	if c.pt.Supports(content.SupportPageAttributes) {
		args = append(args, &rest.Arg{Name: "menu_order", Description: "Limit result set to resources with a specific menu_order value.", Type: "integer", Sanitize: rest.AbsInt})
		orderby = append(orderby, "menu_order")
	}
	args = append(args,
		&rest.Arg{Name: "offset", Description: "Offset the result set by a specific number of items.", Type: "integer", Sanitize: rest.AbsInt},
		&rest.Arg{Name: "order", Description: "Order sort attribute ascending or descending.", Type: "string", Default: "desc", Enum: []string{"asc", "desc"}},
		&rest.Arg{Name: "orderby", Description: "Sort collection by object attribute.", Type: "string", Default: "date", Enum: orderby},
	)
	if c.pt.Hierarchical {
		args = append(args,
			&rest.Arg{Name: "parent", Description: "Limit result set to those of particular parent ids.", Type: "array", Items: "integer", Default: []int64{}},
			&rest.Arg{Name: "parent_exclude", Description: "Limit result set to all items except those of a particular parent id.", Type: "array", Items: "integer", Default: []int64{}},
		)
	}
	args = append(args,
		slugArg(c.names, "posts"),
		&rest.Arg{Name: "status", Description: "Limit result set to posts assigned a specific status.", Type: "string", Default: "publish",
			Sanitize: sanitizeKey, Validate: c.validateStatusParam},
		&rest.Arg{Name: "filter", Description: "Use WP Query arguments to modify the response; private query vars require appropriate authorization.",
			Validate: validateFilter},
	)
	return append(args, c.termCollectionParams()...)
}

// validateFilter bounds filter[s] as the search parameter is bounded.
func validateFilter(_ *rest.Request, name string, v any) error {
	m, _ := v.(map[string]any)
	if s, ok := m["s"].(string); ok && utf8.RuneCountInString(s) > content.MaxSearchLength {
		return fmt.Errorf("%s[s] must be at most %d characters long", name, content.MaxSearchLength)
	}
	return nil
}

var keyUnsafe = regexp.MustCompile(`[^a-z0-9_\-]`)

// sanitizeKey lower-cases a value and keeps only [a-z0-9_-] (sanitize_key).
func sanitizeKey(_ *rest.Request, name string, v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s is not of type string", name)
	}
	return keyUnsafe.ReplaceAllString(strings.ToLower(s), ""), nil
}

func (c *postsController) validateStatusParam(r *rest.Request, _ string, v any) error {
	if s, _ := v.(string); s == "publish" {
		return nil
	}
	if r.User.HasCap(c.pt.Caps.EditPosts) {
		return nil
	}
	return rest.NewError("rest_forbidden_status", 400, "Status is forbidden")
}

// postKey caches loaded posts in the request-scoped cache, which embedded
// sub-requests share.
type postKey int64

func (c *postsController) load(r *rest.Request, id int64) (*store.Post, error) {
	return cachedLoad[postKey](r, id, c.site.GetPost)
}

// loadOwn loads the post named by the request's id when it is of this
// controller's type; nil otherwise.
func (c *postsController) loadOwn(r *rest.Request) (*store.Post, error) {
	id := r.Int("id")
	if id <= 0 {
		return nil, nil
	}
	p, err := c.load(r, id)
	if err != nil || p == nil || p.Type != c.pt.Name {
		return nil, err
	}
	return p, nil
}

// prefetch batch-loads the posts of many embedded item requests at once.
func (c *postsController) prefetch(reqs []*rest.Request) {
	prefetchByID[postKey](reqs, c.site.GetPosts)
}

func errInvalidID(status int) error {
	msg := "Invalid post id."
	if status == 400 {
		msg = "Post id is invalid."
	}
	return rest.NewError("rest_post_invalid_id", status, msg)
}

// ---- permissions ----

func (c *postsController) listPermission(r *rest.Request) error {
	if r.ContextName() == "edit" && !r.User.HasCap(c.pt.Caps.EditPosts) {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you are not allowed to edit these posts in this post type")
	}
	return nil
}

func (c *postsController) getPermission(r *rest.Request) error {
	p, err := c.loadOwn(r)
	if err != nil || p == nil {
		return err // the handler answers 404
	}
	ctx := r.Context()
	if r.ContextName() == "edit" && !c.site.CanEdit(ctx, r.User, p) {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you are not allowed to edit this post")
	}
	if !c.site.CanRead(ctx, r.User, p) {
		return rest.ErrForbidden
	}
	if p.Password != "" && r.Has("password") && r.String("password") != p.Password {
		return rest.NewError("rest_post_incorrect_password", 403, "Incorrect post password.")
	}
	return nil
}

// writeChecks are the checks shared by create and update (reference §5.3).
func (c *postsController) writeChecks(r *rest.Request, verb string) error {
	caps := c.pt.Caps
	if r.Has("password") && r.String("password") != "" && !r.User.HasCap(caps.PublishPosts) {
		return rest.AuthError(r, "rest_cannot_publish", "Sorry, you are not allowed to create password protected posts in this post type")
	}
	if r.Has("author") {
		if a := r.Int("author"); a != 0 && a != r.User.ID() && !r.User.HasCap(caps.EditOthersPosts) {
			return rest.AuthError(r, "rest_cannot_edit_others", "You are not allowed to "+verb+" posts as this user.")
		}
	}
	if c.pt.Name == "post" && r.Has("sticky") && r.Bool("sticky") && !r.User.HasCap(caps.EditOthersPosts) {
		return rest.AuthError(r, "rest_cannot_assign_sticky", "You do not have permission to make posts sticky.")
	}
	return nil
}

func (c *postsController) createPermission(r *rest.Request) error {
	if err := c.writeChecks(r, "create"); err != nil {
		return err
	}
	if !r.User.HasCap(c.pt.Caps.CreatePosts) {
		return rest.AuthError(r, "rest_cannot_create", "Sorry, you are not allowed to create new posts.")
	}
	return c.assignCheck(r)
}

func (c *postsController) updatePermission(r *rest.Request) error {
	p, err := c.loadOwn(r)
	if err != nil {
		return err
	}
	if p != nil && !c.site.CanEdit(r.Context(), r.User, p) {
		return rest.AuthError(r, "rest_cannot_edit", "Sorry, you are not allowed to update this post.")
	}
	if err := c.writeChecks(r, "update"); err != nil {
		return err
	}
	return c.assignCheck(r)
}

func (c *postsController) deletePermission(r *rest.Request) error {
	p, err := c.loadOwn(r)
	if err != nil {
		return err
	}
	if p != nil && !c.site.CanDelete(r.Context(), r.User, p) {
		return rest.AuthError(r, "rest_cannot_delete", "Sorry, you are not allowed to delete posts.")
	}
	return nil
}

// ---- handlers ----

func (c *postsController) get(r *rest.Request) (*rest.Response, error) {
	p, err := c.loadOwn(r)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errInvalidID(404)
	}
	res, err := c.prepareOne(r, p, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	if c.pt.Public && p.Status == "publish" {
		link, _ := res.Value("link")
		if s, ok := link.(string); ok {
			resp.SetHeader("Link", "<"+s+`>; rel="alternate"; type=text/html`)
		}
	}
	return resp, nil
}

func (c *postsController) create(r *rest.Request) (*rest.Response, error) {
	if r.Has("id") && r.Int("id") != 0 {
		return nil, rest.NewError("rest_post_exists", 400, "Cannot create existing post.")
	}
	in, err := c.input(r)
	if err != nil {
		return nil, err
	}
	p, err := c.site.CreatePost(r.Context(), r.User, c.pt, in, r.SiteURL(""))
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[postKey(p.ID)] = p
	c.site.InsertPostHook(r.Context(), c.pt, p, r, true)
	res, err := c.prepareOne(r, p, schema.Edit)
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(201, res)
	resp.SetHeader("Location", r.URL(c.base+"/"+strconv.FormatInt(p.ID, 10)))
	return resp, nil
}

func (c *postsController) update(r *rest.Request) (*rest.Response, error) {
	old, err := c.loadOwn(r)
	if err != nil {
		return nil, err
	}
	if old == nil {
		return nil, errInvalidID(400)
	}
	in, err := c.input(r)
	if err != nil {
		return nil, err
	}
	p, err := c.site.UpdatePost(r.Context(), r.User, old, in)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[postKey(p.ID)] = p
	c.site.InsertPostHook(r.Context(), c.pt, p, r, false)
	res, err := c.prepareOne(r, p, schema.Edit)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, res), nil
}

func (c *postsController) delete(r *rest.Request) (*rest.Response, error) {
	p, err := c.loadOwn(r)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errInvalidID(404)
	}
	res, err := c.prepareOne(r, p, schema.Edit)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	if r.Bool("force") {
		if err := c.site.DeletePost(ctx, p); err != nil {
			return nil, cannotDelete(r, "The post cannot be deleted.", err)
		}
	} else {
		if !c.site.Trashable(c.pt, p) {
			return nil, rest.NewError("rest_trash_not_supported", 501, "The post does not support trashing.")
		}
		if p.Status == "trash" {
			return nil, rest.NewError("rest_already_trashed", 410, "The post has already been deleted.")
		}
		if err := c.site.TrashPost(ctx, p); err != nil {
			return nil, cannotDelete(r, "The post cannot be deleted.", err)
		}
	}
	delete(r.Cache(), postKey(p.ID))
	c.site.DeletePostHook(ctx, c.pt, p, res, r)
	return rest.NewResponse(200, res), nil
}

// textField reads title/content/excerpt given as a string or {"raw": …}.
// ok is false when the field is absent or must be ignored.
func textField(r *rest.Request, name string, ignoreEmptyRaw bool) (*string, error) {
	if !r.Has(name) {
		return nil, nil
	}
	v, _ := r.Get(name)
	switch t := v.(type) {
	case string:
		return &t, nil
	case map[string]any:
		raw, ok := t["raw"]
		if !ok || raw == nil {
			return nil, nil
		}
		s, ok := raw.(string)
		if !ok {
			return nil, invalidParam(name, name+".raw is not of type string")
		}
		if s == "" && ignoreEmptyRaw {
			return nil, nil
		}
		return &s, nil
	case nil:
		return nil, nil
	default:
		return nil, invalidParam(name, name+" is not of type string")
	}
}

// input is prepare-for-database: the request's fields as a domain input.
func (c *postsController) input(r *rest.Request) (content.PostInput, error) {
	var in content.PostInput
	var err error
	if in.Title, err = textField(r, "title", true); err != nil {
		return in, err
	}
	if in.Content, err = textField(r, "content", false); err != nil {
		return in, err
	}
	if in.Excerpt, err = textField(r, "excerpt", false); err != nil {
		return in, err
	}
	in.Slug = optString(r, "slug")
	in.Status = optString(r, "status")
	in.Password = optString(r, "password")
	in.CommentStatus = optString(r, "comment_status")
	in.PingStatus = optString(r, "ping_status")
	in.Format = optString(r, "format")
	in.Template = optString(r, "template")
	in.Author = optInt(r, "author")
	in.Parent = optInt(r, "parent")
	in.MenuOrder = optInt(r, "menu_order")
	in.FeaturedMedia = optInt(r, "featured_media")
	in.Terms = c.termInput(r)
	if r.Has("sticky") {
		b := r.Bool("sticky")
		in.Sticky = &b
	}
	if in.Date, in.DateGMT, err = dateFields(r); err != nil {
		return in, err
	}
	return in, nil
}

// ---- collection ----

func (c *postsController) list(r *rest.Request) (*rest.Response, error) {
	q, page, perPage, err := c.query(r)
	if err != nil {
		return nil, err
	}
	q = c.site.PostQueryHook(r.Context(), c.pt, q, r)
	posts, total, err := c.site.ListPosts(r.Context(), q)
	if err != nil {
		return nil, err
	}
	// Embedded sub-requests (replies, parents, …) find these in the
	// request cache instead of loading them again.
	if r.Embeds() {
		cache := r.Cache()
		for _, p := range posts {
			cache[postKey(p.ID)] = p
		}
	}
	res, err := c.prepareMany(r, posts, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	resp.Paginate(r, total, page, perPage)
	return resp, nil
}

// query turns the collection parameters (and the whitelisted `filter[]`
// vars, decisions #11) into a store query.
func (c *postsController) query(r *rest.Request) (store.PostQuery, int, int, error) {
	page, perPage := pageArgs(r)
	q := store.PostQuery{
		Types:      []string{c.pt.Name},
		Search:     render.PlainText(r.String("search")),
		Include:    r.IDs("include"),
		Exclude:    r.IDs("exclude"),
		OrderBy:    r.String("orderby"),
		Order:      r.String("order"),
		Visibility: c.site.Visibility(r.User, c.pt),
		Authors:    r.IDs("author"),

		SearchProtected: c.site.ProtectedSearch(r.User, c.pt),
		SearchPassword:  r.String("password"),
		AuthorExclude:   r.IDs("author_exclude"),
	}
	if c.pt.Hierarchical {
		if r.Has("parent") {
			q.Parents, q.ParentsSet = r.IDs("parent"), true
		}
		q.ParentExclude = r.IDs("parent_exclude")
	}
	if r.Has("menu_order") && c.pt.Supports(content.SupportPageAttributes) {
		m := r.Int("menu_order")
		q.MenuOrder = &m
	}
	q.Slugs = slugFilter(r)
	var err error
	if q.After, q.Before, err = dateRange(c.site, r); err != nil {
		return q, 0, 0, err
	}
	q.Statuses = c.statuses(r.String("status"))
	c.addTermFilters(r, &q)

	canEdit := r.User.HasCap(c.pt.Caps.EditPosts)
	for key, val := range filterVars(r) {
		switch key {
		case "year":
			q.Year = atoi(val)
		case "monthnum":
			q.Month = atoi(val)
		case "day":
			q.Day = atoi(val)
		case "posts_per_page":
			if n := atoi(val); n > 0 {
				perPage = min(n, 100)
			}
		case "paged":
			if n := atoi(val); n > 0 {
				page = n
			}
		case "orderby":
			if ob, ok := filterOrderBy[strings.ToLower(val)]; ok {
				q.OrderBy = ob
			}
		case "order":
			if o := strings.ToLower(val); o == "asc" || o == "desc" {
				q.Order = o
			}
		case "s":
			q.Search = render.PlainText(val)
		case "author_name":
			u, ok, err := c.site.GetUserBySlug(r.Context(), render.Slug(val))
			if err != nil {
				return q, 0, 0, err
			}
			if ok {
				q.Authors = []int64{u.ID}
			} else {
				q.Authors = []int64{-1} // nobody
			}
		case "ignore_sticky_posts":
			if c.pt.Name == "post" {
				q.StickyFirst = !truthy(val)
			}
		case "post_status":
			if canEdit {
				q.Statuses = c.statuses(keyUnsafe.ReplaceAllString(strings.ToLower(val), ""))
			}
		case "category_name", "tag":
			addSlugFilter(&q, key, val)
		}
	}
	if q.OrderBy == "" {
		q.OrderBy = "date"
	}
	if q.Order == "" {
		q.Order = "desc"
	}
	q.Limit = perPage
	q.Offset = pageOffset(r, page, perPage)
	return q, page, perPage, nil
}

var filterOrderBy = map[string]string{
	"date": "date", "title": "title", "name": "slug", "id": "id", "modified": "modified",
	"menu_order": "menu_order", "author": "author", "parent": "parent", "post__in": "include",
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false":
		return false
	}
	return true
}

// statuses maps the `status` parameter to the statuses queried.
func (c *postsController) statuses(s string) []string {
	switch s {
	case "", "publish":
		return []string{"publish"}
	case "any":
		var out []string
		for _, st := range c.site.Statuses().All() {
			if !st.Internal {
				out = append(out, st.Name)
			}
		}
		return out
	default:
		return []string{s}
	}
}

// filterVars collects `filter[key]=value` parameters from the JSON body,
// the form body and the query string (in that precedence).
func filterVars(r *rest.Request) map[string]string {
	out := map[string]string{}
	add := func(vals url.Values) {
		for k, vs := range vals {
			if strings.HasPrefix(k, "filter[") && strings.HasSuffix(k, "]") && len(vs) > 0 {
				key := k[len("filter[") : len(k)-1]
				if _, ok := out[key]; !ok {
					out[key] = vs[0]
				}
			}
		}
	}
	if v, ok := r.Get("filter"); ok {
		if m, ok := v.(map[string]any); ok {
			for k, val := range m {
				switch t := val.(type) {
				case string:
					out[k] = t
				case float64:
					out[k] = strconv.FormatFloat(t, 'f', -1, 64)
				case bool:
					out[k] = strconv.FormatBool(t)
				}
			}
		}
	}
	add(r.Form)
	add(r.Query)
	return out
}

// ---- prepare for response ----

func (c *postsController) prepareOne(r *rest.Request, p *store.Post, ctx schema.Context) (*rest.Resource, error) {
	out, err := c.prepareMany(r, []*store.Post{p}, ctx)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// prepareMany builds resources for a page of posts with a fixed number of
// queries (the parents of hierarchical posts, one query per depth level).
// Fields the request's _fields leaves out are not computed: no parent
// chains without link, no term query without term fields or links, no
// rendering of title, content or excerpt nobody asked for.
func (c *postsController) prepareMany(r *rest.Request, posts []*store.Post, ctx schema.Context) ([]*rest.Resource, error) {
	var parents map[int64]*store.Post
	if c.pt.Hierarchical && r.Wants("link") {
		var err error
		if parents, err = c.site.ParentChains(r.Context(), posts); err != nil {
			return nil, err
		}
	}
	siteRoot := r.SiteURL("")
	password := r.String("password")
	var links *postLinks
	if r.WantsLinks() {
		links = c.newPostLinks(r)
	}
	taxes := c.site.Taxonomies().ForType(c.pt.Name)
	// Room for the links of links() and one per taxonomy of addTerms.
	out := rest.NewResources(c.schema, ctx, len(posts), 9+len(taxes))
	if ctx == schema.Edit {
		// Edit context needs edit rights on each item: the others of a
		// page are shown as in view context (no password, no raw text).
		editable, err := c.site.Editable(r.Context(), r.User, posts)
		if err != nil {
			return nil, err
		}
		for i, ok := range editable {
			if !ok {
				out[i].Context = schema.View
			}
		}
	}
	for i, p := range posts {
		c.prepare(r, out[i], p, siteRoot, parents, password, links)
	}
	if err := c.addTerms(r, posts, out, taxes, links); err != nil {
		return nil, err
	}
	// The media controller fires rest_prepare_attachment itself, once its
	// own fields are set.
	if c.pt.Name != "attachment" {
		for i, p := range posts {
			c.site.PreparePostHook(r.Context(), c.pt, p, out[i], r)
		}
	}
	return out, nil
}

// prepare fills res, a new resource in its context, with p. links is nil
// when the response needs no links.
func (c *postsController) prepare(r *rest.Request, res *rest.Resource, p *store.Post, siteRoot string, parents map[int64]*store.Post, password string, links *postLinks) {
	ctx := res.Context
	want := func(name string) bool {
		prop := c.schema.Prop(name)
		return prop != nil && prop.Context&ctx != 0 && r.Wants(name)
	}
	res.Set("id", p.ID)
	setDate(res, "date", p.Date)
	setDate(res, "date_gmt", p.DateGMT)
	if want("guid") {
		res.Set("guid", map[string]any{"rendered": p.GUID, "raw": p.GUID})
	}
	setDate(res, "modified", p.Modified)
	setDate(res, "modified_gmt", p.ModifiedGMT)
	res.Set("password", p.Password)
	res.Set("slug", p.Slug)
	res.Set("status", p.Status)
	res.Set("type", p.Type)
	if want("link") {
		res.Set("link", c.site.Permalink(siteRoot, p, parents))
	}

	protected := p.Password != ""
	// In view and embed context a protected post shows its content only
	// with the right password; edit context always shows it (decisions #15).
	locked := protected && ctx != schema.Edit && password != p.Password
	if want("title") {
		t := ""
		if r.Wants("title.rendered") {
			t = c.site.RenderTitle(p)
		}
		switch {
		case protected:
			t = "Protected: " + t
		case p.Status == "private":
			t = "Private: " + t
		}
		res.Set("title", map[string]any{"raw": p.Title, "rendered": t})
	}
	if want("content") {
		rendered := ""
		if !locked && r.Wants("content.rendered") {
			rendered = c.site.RenderContent(p)
		}
		res.Set("content", map[string]any{"raw": p.Content, "rendered": rendered, "protected": protected})
	}
	if want("excerpt") {
		rendered := ""
		if !locked && r.Wants("excerpt.rendered") {
			rendered = c.site.RenderExcerpt(p)
		}
		res.Set("excerpt", map[string]any{"raw": p.Excerpt, "rendered": rendered, "protected": protected})
	}
	res.Set("author", p.Author)
	res.Set("featured_media", p.FeaturedMedia)
	res.Set("parent", p.Parent)
	res.Set("menu_order", p.MenuOrder)
	res.Set("comment_status", p.CommentStatus)
	res.Set("ping_status", p.PingStatus)
	res.Set("sticky", p.Sticky)
	res.Set("template", p.Template)
	if p.Format == "" {
		res.Set("format", "standard")
	} else {
		res.Set("format", p.Format)
	}
	if links != nil {
		c.links(res, p, links)
	}
}

// setDate sets a date field, null for the all-zero date.
func setDate(res *rest.Resource, name string, t time.Time) {
	if s, ok := content.FormatDate(t); ok {
		res.Set(name, s)
	} else {
		res.Set(name, nil)
	}
}

// postLinks holds what the links of every post of a response share: the
// API root and the URLs that do not depend on the post.
type postLinks struct {
	api        string // Request.URL(""): "http://host/api/"
	base       string // the collection's path under api: "svc/v2/posts"
	ns         string // the namespace's path under api: "svc/v2"
	collection string
	about      string
}

func (c *postsController) newPostLinks(r *rest.Request) *postLinks {
	l := &postLinks{
		api:  r.URL(""),
		base: strings.TrimPrefix(c.base, "/"),
		ns:   strings.TrimPrefix(c.names.Namespace, "/"),
	}
	l.collection = l.api + l.base
	l.about = l.api + l.ns + "/types/" + c.pt.Name
	return l
}

// links adds the relations of reference §6.3. Each URL is built in one
// concatenation (they are Request.URL of the same paths).
func (c *postsController) links(res *rest.Resource, p *store.Post, l *postLinks) {
	var idBuf, numBuf [20]byte
	id := strconv.AppendInt(idBuf[:0], p.ID, 10)
	num := func(n int64) []byte { return strconv.AppendInt(numBuf[:0], n, 10) }
	res.AddLink("self", l.api+l.base+"/"+string(id), false)
	res.AddLink("collection", l.collection, false)
	res.AddLink("about", l.about, false)
	builtin := c.pt.Name == "post" || c.pt.Name == "page"
	if (builtin || c.pt.Supports(content.SupportAuthor)) && p.Author != 0 {
		res.AddLink("author", l.api+l.ns+"/users/"+string(num(p.Author)), true)
	}
	if builtin || c.pt.Supports(content.SupportComments) {
		res.AddLink("replies", l.api+l.ns+"/comments?post="+string(id), true)
	}
	if builtin || c.pt.Supports(content.SupportRevisions) {
		res.AddLink("version-history", l.api+l.base+"/"+string(id)+"/revisions", false)
	}
	if c.pt.Hierarchical && p.Parent != 0 {
		res.AddLink("up", l.api+l.base+"/"+string(num(p.Parent)), true)
	}
	if p.FeaturedMedia != 0 {
		res.AddLink(c.relFeatured, l.api+l.ns+"/media/"+string(num(p.FeaturedMedia)), true)
	}
	if c.pt.Name != "attachment" {
		res.AddLink(c.relAttachment, l.api+l.ns+"/media?parent="+string(id), false)
	}
}
