package endpoints

import (
	"strconv"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// appPasswordsController serves a user's application passwords under
// /users/<id>/application-passwords (decisions #14): list, create (the
// password is shown once, in the create response) and delete, for
// yourself and, with edit_users, for others. <id> may be "me".
type appPasswordsController struct {
	site   *content.Site
	names  rest.Names
	schema *schema.Object
}

func newAppPasswordsController(site *content.Site, names rest.Names) *appPasswordsController {
	V, E, M := schema.View, schema.Edit, schema.Embed
	return &appPasswordsController{site: site, names: names, schema: schema.NewObject("application-password",
		&schema.Property{Name: "uuid", Description: "The unique identifier for the application password.", Type: "string", Format: "uuid", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "name", Description: "The name of the application password.", Type: "string", Context: V | E | M, Required: true},
		&schema.Property{Name: "password", Description: "The generated password. Only available after adding an application.", Type: "string", Context: E, Readonly: true},
		&schema.Property{Name: "created", Description: "The GMT date the application password was created.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "last_used", Description: "The GMT date the application password was last used.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "last_ip", Description: "The IP address the application password was last used by.", Type: "string", Context: V | E, Readonly: true},
	)}
}

const appPasswordsUser = `/users/(?P<user_id>(?:[\d]+|me))/application-passwords`

func (c *appPasswordsController) register(rs *rest.Server, ns string) {
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, appPasswordsUser, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: editPathUser(c.site, "rest_cannot_list_application_passwords", "Sorry, you are not allowed to list application passwords for this user."), Args: []*rest.Arg{contextArg("view")}, Returns: rest.ShapeList},
			{Methods: rest.Creatable, Handler: c.create, Permission: editPathUser(c.site, "rest_cannot_create_application_passwords", "Sorry, you are not allowed to create application passwords for this user."), Args: []*rest.Arg{
				{Name: "name", Description: "The name of the application password.", Type: "string", Required: true},
			}},
		},
	})
	rs.Register(ns, appPasswordsUser+`/(?P<uuid>[\w-]+)`, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: editPathUser(c.site, "rest_cannot_read_application_password", "Sorry, you are not allowed to read this application password."), Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Deletable, Handler: c.delete, Permission: editPathUser(c.site, "rest_cannot_delete_application_password", "Sorry, you are not allowed to delete this application password.")},
		},
	})
}

func (c *appPasswordsController) list(r *rest.Request) (*rest.Response, error) {
	u, err := pathUser(r, c.site)
	if err != nil {
		return nil, err
	}
	ps, err := c.site.ListAppPasswords(r.Context(), u.ID)
	if err != nil {
		return nil, err
	}
	ctx := requestContext(r)
	out := make([]*rest.Resource, len(ps))
	for i, p := range ps {
		out[i] = c.prepare(r, p, ctx, "")
	}
	return rest.NewResponse(200, out), nil
}

func (c *appPasswordsController) find(r *rest.Request) (*store.AppPassword, error) {
	want := r.URLParams["uuid"]
	return findPathUserItem(r, c.site, c.site.ListAppPasswords,
		func(p *store.AppPassword) bool { return p.UUID == want }, errAppPasswordNotFound)
}

// errAppPasswordNotFound is the 404 error of an unknown application password.
func errAppPasswordNotFound() error {
	return rest.NewError("rest_application_password_not_found", 404, "Application password not found.")
}

func (c *appPasswordsController) get(r *rest.Request) (*rest.Response, error) {
	p, err := c.find(r)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, c.prepare(r, p, requestContext(r), "")), nil
}

func (c *appPasswordsController) create(r *rest.Request) (*rest.Response, error) {
	u, err := pathUser(r, c.site)
	if err != nil {
		return nil, err
	}
	plain, p, err := c.site.CreateAppPassword(r.Context(), u.ID, r.String("name"))
	if err != nil {
		return nil, apiError(r, err)
	}
	resp := rest.NewResponse(201, c.prepare(r, p, schema.Edit, plain))
	resp.SetHeader("Location", r.URL(c.itemPath(p)))
	return resp, nil
}

func (c *appPasswordsController) delete(r *rest.Request) (*rest.Response, error) {
	p, err := c.find(r)
	if err != nil {
		return nil, err
	}
	res := c.prepare(r, p, schema.Edit, "")
	ok, err := c.site.DeleteAppPassword(r.Context(), p.UserID, p.UUID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errAppPasswordNotFound()
	}
	return rest.NewResponse(200, res), nil
}

func (c *appPasswordsController) itemPath(p *store.AppPassword) string {
	return c.names.Namespace + "/users/" + strconv.FormatInt(p.UserID, 10) + "/application-passwords/" + p.UUID
}

// prepare builds the resource of p; plain is the new password, set only in
// the create response. The stored hash is never part of it.
func (c *appPasswordsController) prepare(r *rest.Request, p *store.AppPassword, ctx schema.Context, plain string) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	res.Set("uuid", p.UUID)
	res.Set("name", p.Name)
	if plain != "" {
		res.Set("password", plain)
	}
	date := func(t interface{ IsZero() bool }, s string) any {
		if t.IsZero() {
			return nil
		}
		return s
	}
	res.Set("created", date(p.Created, p.Created.UTC().Format("2006-01-02T15:04:05")))
	res.Set("last_used", date(p.LastUsed, p.LastUsed.UTC().Format("2006-01-02T15:04:05")))
	if p.LastIP == "" {
		res.Set("last_ip", nil)
	} else {
		res.Set("last_ip", p.LastIP)
	}
	res.AddLink("self", r.URL(c.itemPath(p)), false)
	return res
}
