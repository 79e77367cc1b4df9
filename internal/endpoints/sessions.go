package endpoints

import (
	"strconv"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// sessionsController serves a user's browser sessions under
// /users/<id>/sessions: list, read and revoke one, and revoke all but the
// caller's own, for yourself and, with edit_users, for others. <id> may be
// "me". A session is named by its public id (store.Session.ID, random);
// neither the token nor its hash is ever output.
type sessionsController struct {
	site   *content.Site
	names  rest.Names
	schema *schema.Object
}

func newSessionsController(site *content.Site, names rest.Names) *sessionsController {
	V, E, M := schema.View, schema.Edit, schema.Embed
	return &sessionsController{site: site, names: names, schema: schema.NewObject("session",
		&schema.Property{Name: "id", Description: "Opaque identifier for the session.", Type: "string", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "created", Description: "The GMT date the session was started.", Type: "string", Format: "date-time", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "last_seen", Description: "The GMT date the session was last used.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "expires", Description: "The GMT date the session ends.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "ip", Description: "The IP address the session was last used from.", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "user_agent", Description: "The user agent that started the session.", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "current", Description: "Whether this is the session of the current request.", Type: "boolean", Context: V | E | M, Readonly: true},
	)}
}

const sessionsUser = `/users/(?P<user_id>(?:[\d]+|me))/sessions`

func (c *sessionsController) register(rs *rest.Server, ns string) {
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, sessionsUser, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: editPathUser(c.site, "rest_cannot_list_sessions", "Sorry, you are not allowed to list sessions for this user."), Args: []*rest.Arg{contextArg("view")}, Returns: rest.ShapeList},
			{Methods: rest.Deletable, Handler: c.deleteOthers, Permission: editPathUser(c.site, "rest_cannot_delete_sessions", "Sorry, you are not allowed to end sessions for this user."), Returns: rest.ShapeOther},
		},
	})
	rs.Register(ns, sessionsUser+`/(?P<session_id>[\da-f]+)`, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: editPathUser(c.site, "rest_cannot_read_session", "Sorry, you are not allowed to read this session."), Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Deletable, Handler: c.delete, Permission: editPathUser(c.site, "rest_cannot_delete_session", "Sorry, you are not allowed to end this session.")},
		},
	})
}

// current returns the token hash of the caller's own session when the
// caller is signed in with it and it belongs to user userID, else "".
func (c *sessionsController) current(r *rest.Request, userID int64) string {
	if r.User == nil || r.User.ID() != userID {
		return ""
	}
	return auth.RequestSessionHash(r.HTTP)
}

func (c *sessionsController) list(r *rest.Request) (*rest.Response, error) {
	u, err := pathUser(r, c.site)
	if err != nil {
		return nil, err
	}
	ss, err := c.site.ListSessions(r.Context(), u.ID)
	if err != nil {
		return nil, err
	}
	cur, ctx := c.current(r, u.ID), requestContext(r)
	out := make([]*rest.Resource, len(ss))
	for i, s := range ss {
		out[i] = c.prepare(r, s, ctx, cur)
	}
	return rest.NewResponse(200, out), nil
}

// find returns the session named by the session_id capture among the
// target user's sessions.
func (c *sessionsController) find(r *rest.Request) (*store.Session, error) {
	want := r.URLParams["session_id"]
	return findPathUserItem(r, c.site, c.site.ListSessions,
		func(s *store.Session) bool { return s.ID == want }, errSessionNotFound)
}

// errSessionNotFound is the 404 error of an unknown session.
func errSessionNotFound() error {
	return rest.NewError("rest_session_not_found", 404, "Session not found.")
}

func (c *sessionsController) get(r *rest.Request) (*rest.Response, error) {
	s, err := c.find(r)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, c.prepare(r, s, requestContext(r), c.current(r, s.UserID))), nil
}

func (c *sessionsController) delete(r *rest.Request) (*rest.Response, error) {
	s, err := c.find(r)
	if err != nil {
		return nil, err
	}
	res := c.prepare(r, s, schema.Edit, c.current(r, s.UserID))
	ok, err := c.site.DeleteSession(r.Context(), s.TokenHash)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errSessionNotFound()
	}
	return rest.NewResponse(200, res), nil
}

// deleteOthers ends every session of the target user except the caller's
// current one, and answers {"deleted": true, "count": n}.
func (c *sessionsController) deleteOthers(r *rest.Request) (*rest.Response, error) {
	u, err := pathUser(r, c.site)
	if err != nil {
		return nil, err
	}
	n, err := c.site.DeleteOtherSessions(r.Context(), u.ID, c.current(r, u.ID))
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, map[string]any{"deleted": true, "count": n}), nil
}

func (c *sessionsController) itemPath(s *store.Session) string {
	return c.names.Namespace + "/users/" + strconv.FormatInt(s.UserID, 10) + "/sessions/" + s.ID
}

// prepare builds the resource of s; cur is the token hash of the caller's
// own session ("" when none). The token hash itself is never part of it.
func (c *sessionsController) prepare(r *rest.Request, s *store.Session, ctx schema.Context, cur string) *rest.Resource {
	date := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.UTC().Format("2006-01-02T15:04:05")
	}
	res := rest.NewResource(c.schema, ctx)
	res.Set("id", s.ID)
	res.Set("created", date(s.Created))
	res.Set("last_seen", date(s.LastSeen))
	res.Set("expires", date(s.Expires))
	res.Set("ip", s.IP)
	res.Set("user_agent", s.UserAgent)
	res.Set("current", cur != "" && cur == s.TokenHash)
	res.AddLink("self", r.URL(c.itemPath(s)), false)
	return res
}
