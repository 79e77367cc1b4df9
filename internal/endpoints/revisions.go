package endpoints

import (
	"strconv"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// revisionsController serves the revisions of one post type:
// /<base>/<parent>/revisions and /<base>/<parent>/revisions/<id>
// (reference §10.10).
type revisionsController struct {
	site   *content.Site
	pt     *content.PostType
	names  rest.Names
	schema *schema.Object
	base   string // "svc/v2/posts"
}

func newRevisionsController(site *content.Site, pt *content.PostType, names rest.Names) *revisionsController {
	c := &revisionsController{site: site, pt: pt, names: names, base: names.Namespace + "/" + pt.RestBase}
	c.schema = revisionSchema(pt)
	return c
}

func (c *revisionsController) register(rs *rest.Server, ns string) {
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, "/"+c.pt.RestBase+`/(?P<parent>[\d]+)/revisions`, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.readPermission, Args: []*rest.Arg{contextArg("view")}, Returns: rest.ShapeList},
		},
	})
	rs.Register(ns, "/"+c.pt.RestBase+`/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)`, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.readPermission, Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.deletePermission, Returns: rest.ShapeOther},
		},
	})
}

// revisionSchema builds the revision schema of a post type: the twelve
// properties of reference §10.10, title, content and excerpt only when the
// type has them.
func revisionSchema(pt *content.PostType) *schema.Object {
	V, E, M := schema.View, schema.Edit, schema.Embed
	o := schema.NewObject(pt.Name+"-revision",
		&schema.Property{Name: "author", Description: "The id for the author of the object.", Type: "integer", Context: V | E | M},
		&schema.Property{Name: "date", Description: "The date the object was published.", Type: "string", Format: "date-time", Context: V | E | M},
		&schema.Property{Name: "date_gmt", Description: "The date the object was published, as GMT.", Type: "string", Format: "date-time", Context: V | E},
		&schema.Property{Name: "guid", Description: "GUID for the object, as it exists in the database.", Type: "string", Context: V | E},
		&schema.Property{Name: "id", Description: "Unique identifier for the object.", Type: "integer", Context: V | E | M},
		&schema.Property{Name: "modified", Description: "The date the object was last modified.", Type: "string", Format: "date-time", Context: V | E},
		&schema.Property{Name: "modified_gmt", Description: "The date the object was last modified, as GMT.", Type: "string", Format: "date-time", Context: V | E},
		&schema.Property{Name: "parent", Description: "The id for the parent of the object.", Type: "integer", Context: V | E | M},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the object unique to its type.", Type: "string", Context: V | E | M},
	)
	if pt.Supports(content.SupportTitle) {
		o.Add(&schema.Property{Name: "title", Description: "Title for the object, as it exists in the database.", Type: "string", Context: V | E | M})
	}
	if pt.Supports(content.SupportEditor) {
		o.Add(&schema.Property{Name: "content", Description: "Content for the object, as it exists in the database.", Type: "string", Context: V | E})
	}
	if pt.Supports(content.SupportExcerpt) {
		o.Add(&schema.Property{Name: "excerpt", Description: "Excerpt for the object, as it exists in the database.", Type: "string", Context: V | E | M})
	}
	return o
}

// loadParent returns the post named by the request's parent when it exists
// and is of this controller's type; nil otherwise.
func (c *revisionsController) loadParent(r *rest.Request) (*store.Post, error) {
	id := r.Int("parent")
	if id <= 0 {
		return nil, nil
	}
	p, ok, err := c.site.GetPost(r.Context(), id)
	if err != nil || !ok {
		return nil, err
	}
	return p, nil
}

// readPermission needs edit_post on the parent (reference §5.3); a missing
// parent passes, so that everyone gets the handler's 404.
func (c *revisionsController) readPermission(r *rest.Request) error {
	p, err := c.loadParent(r)
	if err != nil || p == nil {
		return err
	}
	if !c.site.Can(r.Context(), r.User, "edit_post", p) {
		return rest.AuthError(r, "rest_cannot_read", "Sorry, you cannot view revisions of this post.")
	}
	return nil
}

// deletePermission is the read check, then the revision must exist and
// the caller must be allowed to delete it.
func (c *revisionsController) deletePermission(r *rest.Request) error {
	if err := c.readPermission(r); err != nil {
		return err
	}
	rev, err := loadItem(r, c.loadRevision, errRevisionInvalidID)
	if err != nil {
		return err
	}
	if !c.site.Can(r.Context(), r.User, "delete_post", rev) {
		return rest.ErrForbidden
	}
	return nil
}

// parent returns the request's parent post or the rest_post_invalid_parent
// error.
func (c *revisionsController) parent(r *rest.Request) (*store.Post, error) {
	p, err := c.loadParent(r)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Type != c.pt.Name {
		return nil, rest.NewError("rest_post_invalid_parent", 404, "Invalid post parent id.")
	}
	return p, nil
}

// loadRevision returns the revision named by the request's id; nil when it
// is missing, not a revision, or a revision of another post than the
// request's parent (the original did not check the last point, which let
// anyone who may edit one post read the revisions of every other).
func (c *revisionsController) loadRevision(r *rest.Request) (*store.Post, error) {
	id := r.Int("id")
	if id <= 0 {
		return nil, nil
	}
	rev, ok, err := c.site.GetPost(r.Context(), id)
	if err != nil || !ok || rev.Type != content.RevisionType || rev.Parent != r.Int("parent") {
		return nil, err
	}
	return rev, nil
}

func errRevisionInvalidID() error {
	return rest.NewError("rest_post_invalid_id", 404, "Invalid revision id.")
}

func (c *revisionsController) list(r *rest.Request) (*rest.Response, error) {
	p, err := c.parent(r)
	if err != nil {
		return nil, err
	}
	revs, err := c.site.Revisions(r.Context(), p.ID)
	if err != nil {
		return nil, err
	}
	ctx := requestContext(r)
	out := make([]*rest.Resource, len(revs))
	for i, rev := range revs {
		out[i] = c.prepare(r, rev, ctx)
	}
	return rest.NewResponse(200, out), nil
}

func (c *revisionsController) get(r *rest.Request) (*rest.Response, error) {
	if _, err := c.parent(r); err != nil {
		return nil, err
	}
	rev, err := loadItem(r, c.loadRevision, errRevisionInvalidID)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, c.prepare(r, rev, requestContext(r))), nil
}

func (c *revisionsController) delete(r *rest.Request) (*rest.Response, error) {
	rev, err := loadItem(r, c.loadRevision, errRevisionInvalidID)
	if err != nil {
		return nil, err
	}
	if err := c.site.DeleteRevision(r.Context(), rev); err != nil {
		return nil, cannotDelete(r, "The post cannot be deleted.", err)
	}
	return rest.NewResponse(200, true), nil
}

// setRevisionDate sets a revision date: null when the GMT value is the
// zero date (for the local fields too, reference §10.10).
func setRevisionDate(res *rest.Resource, name string, gmt, t time.Time) {
	if gmt.IsZero() {
		res.Set(name, nil)
		return
	}
	setDate(res, name, t)
}

func (c *revisionsController) prepare(r *rest.Request, rev *store.Post, ctx schema.Context) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	// The original output the stored author id unconverted, as a string.
	res.Set("author", strconv.FormatInt(rev.Author, 10))
	setRevisionDate(res, "date", rev.DateGMT, rev.Date)
	setRevisionDate(res, "date_gmt", rev.DateGMT, rev.DateGMT)
	res.Set("guid", rev.GUID)
	res.Set("id", rev.ID)
	setRevisionDate(res, "modified", rev.ModifiedGMT, rev.Modified)
	setRevisionDate(res, "modified_gmt", rev.ModifiedGMT, rev.ModifiedGMT)
	res.Set("parent", rev.Parent)
	res.Set("slug", rev.Slug)
	res.Set("title", rev.Title)
	res.Set("content", rev.Content)
	res.Set("excerpt", rev.Excerpt)
	if rev.Parent != 0 {
		res.AddLink("parent", r.URL(c.base+"/"+strconv.FormatInt(rev.Parent, 10)), false)
	}
	return res
}
