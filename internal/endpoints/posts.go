package endpoints

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/events"
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
	// relevance is later WordPress's: best matches of search first.
	orderby := []string{"date", "id", "include", "title", "slug", "relevance"}
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

// errPostNotFound is the 404 of a read or delete of a post that does not
// exist; errPostInvalidID the 400 of an update.
func errPostNotFound() error  { return errInvalidID(404) }
func errPostInvalidID() error { return errInvalidID(400) }

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
	return getItem(r, c.loadOwn, errPostNotFound, c.prepareOne, func(resp *rest.Response, p *store.Post, res *rest.Resource) {
		setAlternate(resp, res, c.pt.Public && p.Status == "publish")
	})
}

func (c *postsController) create(r *rest.Request) (*rest.Response, error) {
	if r.Has("id") && r.Int("id") != 0 {
		return nil, rest.NewError("rest_post_exists", 400, "Cannot create existing post.")
	}
	in, err := c.input(r)
	if err != nil {
		return nil, err
	}
	hooked := c.site.PostWriteHooked(c.pt)
	p, terms, err := c.site.CreatePost(r.Context(), r.User, c.pt, in, r.SiteURL(""))
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[postKey(p.ID)] = p
	if terms != nil && !hooked && !events.FieldsUpdated(r, c.pt.Name, p.ID) {
		// The response shows the terms written, not read back, unless a
		// handler (an extension field's updater, or rest_insert_<type>
		// below) may have changed them.
		r.Cache()[writtenTermsKey(p.ID)] = terms
	}
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
	old, err := loadItem(r, c.loadOwn, errPostInvalidID)
	if err != nil {
		return nil, err
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
	p, err := loadItem(r, c.loadOwn, errPostNotFound)
	if err != nil {
		return nil, err
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
