package endpoints

import (
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// typesController serves /types and /types/<type> (reference §10.8).
type typesController struct {
	site   *content.Site
	schema *schema.Object
}

func (c *typesController) register(rs *rest.Server, ns string) {
	V, E, M := schema.View, schema.Edit, schema.Embed
	c.schema = schema.NewObject("type",
		&schema.Property{Name: "capabilities", Description: "All capabilities used by the resource.", Type: "array", Context: E, Readonly: true},
		&schema.Property{Name: "description", Description: "A human-readable description of the resource.", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "hierarchical", Description: "Whether or not the resource should have children.", Type: "boolean", Context: V | E, Readonly: true},
		&schema.Property{Name: "labels", Description: "Human-readable labels for the resource for various contexts.", Type: "object", Context: E, Readonly: true},
		&schema.Property{Name: "name", Description: "The title for the resource.", Type: "string", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the resource.", Type: "string", Context: V | E | M, Readonly: true},
	)
	registerKeyed(rs, ns, "types", "type", func() *schema.Object { return c.schema }, c.list, c.get, c.listPermission, nil)
}

func (c *typesController) listPermission(r *rest.Request) error {
	if r.ContextName() == "edit" && !c.site.CanAnyType(r.User) {
		return rest.AuthError(r, "rest_cannot_view", "Sorry, you cannot view this resource with edit context.")
	}
	return nil
}

func (c *typesController) list(r *rest.Request) (*rest.Response, error) {
	ctx := requestContext(r)
	out := rest.NewKeyed()
	for _, pt := range c.site.Types().All() {
		if !pt.ShowInRest || (ctx == schema.Edit && !r.User.HasCap(pt.Caps.EditPosts)) {
			continue
		}
		out.Add(pt.Name, c.prepare(r, pt, ctx))
	}
	return rest.NewResponse(200, out), nil
}

func (c *typesController) get(r *rest.Request) (*rest.Response, error) {
	pt, ok := c.site.Types().Get(r.String("type"))
	if !ok {
		return nil, rest.NewError("rest_type_invalid", 404, "Invalid resource.")
	}
	if !pt.ShowInRest {
		return nil, rest.AuthError(r, "rest_cannot_read_type", "Cannot view resource.")
	}
	if r.ContextName() == "edit" && !r.User.HasCap(pt.Caps.EditPosts) {
		return nil, rest.AuthError(r, "rest_forbidden_context", "Sorry, you are not allowed to manage this resource.")
	}
	return rest.NewResponse(200, c.prepare(r, pt, requestContext(r))), nil
}

func (c *typesController) prepare(r *rest.Request, pt *content.PostType, ctx schema.Context) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	if ctx == schema.Edit {
		res.Set("capabilities", pt.CapabilityMap())
		res.Set("labels", pt.Labels())
	}
	res.Set("description", pt.Description)
	res.Set("hierarchical", pt.Hierarchical)
	res.Set("name", pt.Label)
	res.Set("slug", pt.Name)
	ns := r.Server().Names().Namespace
	res.AddLink("collection", r.URL(ns+"/types"), false)
	res.AddLink(r.Server().Names().RelBase+"items", r.URL(ns+"/"+pt.RestBase), false)
	return res
}

// statusesController serves /statuses and /statuses/<status> (reference
// §10.9).
type statusesController struct {
	site   *content.Site
	schema *schema.Object
}

func (c *statusesController) register(rs *rest.Server, ns string) {
	V, E, M := schema.View, schema.Edit, schema.Embed
	c.schema = schema.NewObject("status",
		&schema.Property{Name: "name", Description: "The title for the resource.", Type: "string", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "private", Description: "Whether posts with this resource should be private.", Type: "boolean", Context: E, Readonly: true},
		&schema.Property{Name: "protected", Description: "Whether posts with this resource should be protected.", Type: "boolean", Context: E, Readonly: true},
		&schema.Property{Name: "public", Description: "Whether posts of this resource should be shown in the front end of the site.", Type: "boolean", Context: V | E, Readonly: true},
		&schema.Property{Name: "queryable", Description: "Whether posts with this resource should be publicly-queryable.", Type: "boolean", Context: V | E, Readonly: true},
		&schema.Property{Name: "show_in_list", Description: "Whether to include posts in the edit listing for their post type.", Type: "boolean", Context: E, Readonly: true},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the resource.", Type: "string", Context: V | E | M, Readonly: true},
	)
	registerKeyed(rs, ns, "statuses", "status", func() *schema.Object { return c.schema }, c.list, c.get, c.listPermission, c.getPermission)
}

func (c *statusesController) listPermission(r *rest.Request) error {
	if r.ContextName() == "edit" && !c.site.CanAnyType(r.User) {
		return rest.AuthError(r, "rest_cannot_view", "Sorry, you cannot view this resource with edit context.")
	}
	return nil
}

// readable is the original's check: public statuses for everyone,
// non-internal ones and trash for callers who can edit some type.
func (c *statusesController) readable(r *rest.Request, st *content.Status) bool {
	if st.Public {
		return true
	}
	if !st.Internal || st.Name == "trash" {
		return c.site.CanAnyType(r.User)
	}
	return false
}

func (c *statusesController) list(r *rest.Request) (*rest.Response, error) {
	ctx := requestContext(r)
	out := rest.NewKeyed()
	for _, st := range c.site.Statuses().All() {
		if st.Internal && st.Name != "trash" {
			continue
		}
		if !c.readable(r, st) {
			continue
		}
		out.Add(st.Name, c.prepare(r, st, ctx))
	}
	return rest.NewResponse(200, out), nil
}

func (c *statusesController) getPermission(r *rest.Request) error {
	st, ok := c.site.Statuses().Get(r.String("status"))
	if !ok {
		return rest.NewError("rest_status_invalid", 404, "Invalid resource.")
	}
	if !c.readable(r, st) {
		return rest.AuthError(r, "rest_cannot_read_status", "Cannot view resource.")
	}
	return nil
}

func (c *statusesController) get(r *rest.Request) (*rest.Response, error) {
	return getKeyed(r, c.site.Statuses().Get, "status", "rest_status_invalid", c.prepare)
}

func (c *statusesController) prepare(r *rest.Request, st *content.Status, ctx schema.Context) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	res.Set("name", st.Label)
	res.Set("private", st.Private)
	res.Set("protected", st.Protected)
	res.Set("public", st.Public)
	res.Set("queryable", st.Queryable)
	res.Set("show_in_list", st.ShowInAll)
	res.Set("slug", st.Name)
	ns := r.Server().Names().Namespace
	if st.Name == "publish" {
		res.AddLink("archives", r.URL(ns+"/posts"), false)
	} else {
		res.AddLink("archives", r.URL(ns+"/posts?status="+st.Name), false)
	}
	return res
}
