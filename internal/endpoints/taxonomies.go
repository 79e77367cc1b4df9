package endpoints

import (
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// registerTaxonomies adds /taxonomies and then the terms routes of every
// taxonomy exposed to the interface: categories, tags, then the custom
// taxonomies (reference §7.1).
func registerTaxonomies(rs *rest.Server, site *content.Site, ns string) {
	(&taxonomiesController{site: site}).register(rs, ns)
	for _, tax := range site.Taxonomies().All() {
		if tax.ShowInRest {
			newTermsController(site, tax, rs.Names()).register(rs, ns)
		}
	}
}

// taxonomiesController serves /taxonomies and /taxonomies/<taxonomy>
// (reference §10.7).
type taxonomiesController struct {
	site   *content.Site
	schema *schema.Object
}

func (c *taxonomiesController) register(rs *rest.Server, ns string) {
	V, E, M := schema.View, schema.Edit, schema.Embed
	// Properties in the order the original's records have.
	c.schema = schema.NewObject("taxonomy",
		&schema.Property{Name: "name", Description: "The title for the resource.", Type: "string", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the resource.", Type: "string", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "capabilities", Description: "All capabilities used by the resource.", Type: "array", Context: E, Readonly: true},
		&schema.Property{Name: "description", Description: "A human-readable description of the resource.", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "labels", Description: "Human-readable labels for the resource for various contexts.", Type: "object", Context: E, Readonly: true},
		&schema.Property{Name: "types", Description: "Types associated with resource.", Type: "array", Context: V | E, Readonly: true},
		&schema.Property{Name: "show_cloud", Description: "Whether or not the term cloud should be displayed.", Type: "boolean", Context: E, Readonly: true},
		&schema.Property{Name: "hierarchical", Description: "Whether or not the resource should have children.", Type: "boolean", Context: V | E, Readonly: true},
	)
	itemSchema := func() *schema.Object { return c.schema }
	registerKeyed(rs, ns, "taxonomies", "taxonomy", itemSchema, c.list, c.get, c.listPermission, c.getPermission,
		&rest.Arg{Name: "type", Description: "Limit results to resources associated with a specific post type.", Type: "string"})
}

// candidates returns the taxonomies the collection considers: those of
// the `type` parameter's post type when it is given, else all.
func (c *taxonomiesController) candidates(r *rest.Request) []*content.Taxonomy {
	all := c.site.Taxonomies().All()
	typ := r.String("type")
	if typ == "" {
		return all
	}
	var out []*content.Taxonomy
	for _, tax := range all {
		if tax.AppliesTo(typ) {
			out = append(out, tax)
		}
	}
	return out
}

func (c *taxonomiesController) listPermission(r *rest.Request) error {
	if r.ContextName() != "edit" {
		return nil
	}
	for _, tax := range c.candidates(r) {
		if tax.ShowInRest && r.User.HasCap(tax.Caps.ManageTerms) {
			return nil
		}
	}
	return rest.AuthError(r, "rest_cannot_view", "Sorry, you cannot view this resource with edit context.")
}

func (c *taxonomiesController) list(r *rest.Request) (*rest.Response, error) {
	ctx := requestContext(r)
	out := rest.NewKeyed()
	for _, tax := range c.candidates(r) {
		if !tax.ShowInRest || (ctx == schema.Edit && !r.User.HasCap(tax.Caps.ManageTerms)) {
			continue
		}
		out.Add(tax.Name, c.prepare(r, tax, ctx))
	}
	if out.Len() == 0 {
		// An empty collection is an empty JSON array, as the original's
		// empty PHP array encoded.
		return rest.NewResponse(200, []any{}), nil
	}
	return rest.NewResponse(200, out), nil
}

func (c *taxonomiesController) getPermission(r *rest.Request) error {
	tax, ok := c.site.Taxonomies().Get(r.String("taxonomy"))
	if !ok {
		return nil // the handler answers 404
	}
	if !tax.ShowInRest {
		return rest.ErrForbidden
	}
	if r.ContextName() == "edit" && !r.User.HasCap(tax.Caps.ManageTerms) {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you are not allowed to manage this resource.")
	}
	return nil
}

func (c *taxonomiesController) get(r *rest.Request) (*rest.Response, error) {
	return getKeyed(r, c.site.Taxonomies().Get, "taxonomy", "rest_taxonomy_invalid", c.prepare)
}

func (c *taxonomiesController) prepare(r *rest.Request, tax *content.Taxonomy, ctx schema.Context) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	res.Set("name", tax.Label)
	res.Set("slug", tax.Name)
	if ctx == schema.Edit {
		res.Set("capabilities", tax.CapabilityMap())
		res.Set("labels", tax.Labels())
	}
	res.Set("description", tax.Description)
	types := tax.ObjectTypes
	if types == nil {
		types = []string{}
	}
	res.Set("types", types)
	res.Set("show_cloud", tax.ShowCloud)
	res.Set("hierarchical", tax.Hierarchical)
	ns := r.Server().Names().Namespace
	res.AddLink("collection", r.URL(ns+"/taxonomies"), false)
	res.AddLink(r.Server().Names().RelBase+"items", r.URL(ns+"/"+tax.RestBase), false)
	return res
}
