package endpoints

import (
	"errors"
	"strconv"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/webhooks"
)

// webhooksController serves the admin-only outbound webhooks resource
// (/webhooks, /webhooks/<id>) and each webhook's delivery log
// (/webhooks/<id>/deliveries). Every endpoint needs manage_options.
type webhooksController struct {
	site     *content.Site
	svc      *webhooks.Service
	names    rest.Names
	schema   *schema.Object
	delivery *schema.Object
	base     string
}

// RegisterWebhooks adds the webhooks routes to rs; svc keeps the webhooks.
func RegisterWebhooks(rs *rest.Server, site *content.Site, svc *webhooks.Service) {
	V, E, M := schema.View, schema.Edit, schema.Embed
	c := &webhooksController{site: site, svc: svc, names: rs.Names(), base: rs.Names().Namespace + "/webhooks"}
	c.schema = schema.NewObject("webhook",
		&schema.Property{Name: "id", Description: "Unique identifier for the webhook.", Type: "integer", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "url", Description: "URL the deliveries are POSTed to.", Type: "string", Format: "uri", Context: V | E | M, Required: true},
		&schema.Property{Name: "events", Description: `Event names the webhook receives (<resource>.<action>, or "*" for every event).`, Type: "array", Items: &schema.Property{Type: "string"}, Context: V | E | M, Default: []string{"*"}},
		&schema.Property{Name: "secret", Description: "Secret the X-Folio-Signature HMAC-SHA256 is computed with; write-only, generated when not given.", Type: "string", Context: 0},
		&schema.Property{Name: "active", Description: "Whether deliveries are sent.", Type: "boolean", Context: V | E | M, Default: true},
		&schema.Property{Name: "config", Description: "Whether the webhook is declared in the config file (which wins at every start).", Type: "boolean", Context: V | E, Readonly: true},
		&schema.Property{Name: "date_gmt", Description: "The date the webhook was created, as GMT.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "modified_gmt", Description: "The date the webhook was last modified, as GMT.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
	)
	c.delivery = schema.NewObject("webhook-delivery",
		&schema.Property{Name: "id", Description: "The delivery id (idempotency key, X-Folio-Delivery).", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "event", Description: "The event name.", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "status", Description: "pending, delivered or failed.", Type: "string", Enum: []string{store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed}, Context: V | E, Readonly: true},
		&schema.Property{Name: "attempts", Description: "Attempts made so far.", Type: "integer", Context: V | E, Readonly: true},
		&schema.Property{Name: "last_status", Description: "HTTP status of the last attempt (0 when no response).", Type: "integer", Context: V | E, Readonly: true},
		&schema.Property{Name: "last_error", Description: "Error class of the last attempt: http_<status>, timeout, refused, reset, unreachable, dns, tls, connection, blocked_target, invalid_url, inactive or render; never the receiver's own text.", Type: "string", Context: V | E, Readonly: true},
		&schema.Property{Name: "next_attempt_gmt", Description: "When a pending delivery is tried next, as GMT.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "date_gmt", Description: "When the event occurred, as GMT.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
		&schema.Property{Name: "completed_gmt", Description: "When the delivery succeeded or was given up, as GMT.", Type: "string", Format: "date-time", Context: V | E, Readonly: true},
	)
	ns := c.names.Namespace
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, "/webhooks", &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.permission, Args: []*rest.Arg{contextArg("view")}, Returns: rest.ShapeList},
			{Methods: rest.Creatable, Handler: c.create, Permission: c.permission, Args: rest.ArgsFromSchema(c.schema, true)},
		},
	})
	rs.Register(ns, `/webhooks/(?P<id>[\d]+)`, &rest.Route{
		Schema: itemSchema,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.permission, Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Editable, Handler: c.update, Permission: c.permission, Args: rest.ArgsFromSchema(c.schema, false)},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.permission, Args: []*rest.Arg{
				{Name: "force", Description: "Required to be true, as webhooks do not support trashing.", Type: "boolean", Default: false},
			}},
		},
	})
	rs.Register(ns, `/webhooks/(?P<id>[\d]+)/deliveries`, &rest.Route{
		Schema: func() *schema.Object { return c.delivery },
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.deliveries, Permission: c.permission, Args: []*rest.Arg{
				contextArg("view"),
				{Name: "per_page", Description: "Maximum number of items to be returned in result set.", Type: "integer", Default: int64(50), Minimum: rest.Int(1), Maximum: rest.Int(100), Sanitize: rest.AbsInt},
			}},
		},
	})
}

// permission allows administrators only (manage_options).
func (c *webhooksController) permission(r *rest.Request) error {
	if !c.site.Can(r.Context(), r.User, "manage_options") {
		return rest.AuthError(r, "rest_cannot_manage_webhooks", "Sorry, you are not allowed to manage webhooks.")
	}
	return nil
}

func errWebhookInvalidID() error {
	return rest.NewError("rest_webhook_invalid_id", 404, "Invalid webhook id.")
}

func (c *webhooksController) load(r *rest.Request) (*store.Webhook, error) {
	id, _ := strconv.ParseInt(r.URLParams["id"], 10, 64)
	w, ok, err := c.svc.Get(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errWebhookInvalidID()
	}
	return w, nil
}

func (c *webhooksController) apiError(err error) error {
	var we *webhooks.Error
	if errors.As(err, &we) {
		if we.Param != "" && we.Code == "rest_invalid_param" {
			return invalidParam(we.Param, we.Message)
		}
		if we.Param != "" && we.Code == "rest_missing_callback_param" {
			return rest.NewError(we.Code, 400, we.Message).WithData("params", []string{we.Param})
		}
		return rest.NewError(we.Code, 400, we.Message)
	}
	return err
}

func (c *webhooksController) input(r *rest.Request) webhooks.Input {
	var in webhooks.Input
	if r.Has("url") {
		s := r.String("url")
		in.URL = &s
	}
	if r.Has("events") {
		in.Events = r.Strings("events")
		if in.Events == nil {
			in.Events = []string{}
		}
	}
	if r.Has("secret") {
		s := r.String("secret")
		in.Secret = &s
	}
	if r.Has("active") {
		b := r.Bool("active")
		in.Active = &b
	}
	return in
}

func (c *webhooksController) list(r *rest.Request) (*rest.Response, error) {
	all, err := c.svc.List(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]*rest.Resource, len(all))
	for i, w := range all {
		out[i] = c.prepare(r, w, requestContext(r))
	}
	resp := rest.NewResponse(200, out)
	resp.Paginate(r, int64(len(all)), 1, max(len(all), 1))
	return resp, nil
}

func (c *webhooksController) get(r *rest.Request) (*rest.Response, error) {
	w, err := c.load(r)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, c.prepare(r, w, requestContext(r))), nil
}

func (c *webhooksController) create(r *rest.Request) (*rest.Response, error) {
	if r.Has("id") && r.Int("id") != 0 {
		return nil, rest.NewError("rest_webhook_exists", 400, "Cannot create existing webhook.")
	}
	w, err := c.svc.Create(r.Context(), c.input(r))
	if err != nil {
		return nil, c.apiError(err)
	}
	resp := rest.NewResponse(201, c.prepare(r, w, schema.Edit))
	resp.SetHeader("Location", r.URL(c.base+"/"+strconv.FormatInt(w.ID, 10)))
	return resp, nil
}

func (c *webhooksController) update(r *rest.Request) (*rest.Response, error) {
	old, err := c.load(r)
	if err != nil {
		return nil, err
	}
	w, err := c.svc.Update(r.Context(), old, c.input(r))
	if err != nil {
		return nil, c.apiError(err)
	}
	return rest.NewResponse(200, c.prepare(r, w, schema.Edit)), nil
}

func (c *webhooksController) delete(r *rest.Request) (*rest.Response, error) {
	w, err := c.load(r)
	if err != nil {
		return nil, err
	}
	if !r.Bool("force") {
		return nil, rest.NewError("rest_trash_not_supported", 501, "Webhooks do not support trashing. Set force=true to delete.")
	}
	res := c.prepare(r, w, schema.Edit)
	if err := c.svc.Delete(r.Context(), w.ID); err != nil {
		return nil, err
	}
	return rest.NewResponse(200, res), nil
}

func (c *webhooksController) deliveries(r *rest.Request) (*rest.Response, error) {
	w, err := c.load(r)
	if err != nil {
		return nil, err
	}
	ds, err := c.svc.Deliveries(r.Context(), w.ID, int(r.Int("per_page")))
	if err != nil {
		return nil, err
	}
	ctx := requestContext(r)
	out := make([]*rest.Resource, len(ds))
	for i, d := range ds {
		res := rest.NewResource(c.delivery, ctx)
		res.Set("id", d.UUID)
		res.Set("event", d.Event)
		res.Set("status", d.Status)
		res.Set("attempts", d.Attempts)
		res.Set("last_status", d.LastStatus)
		res.Set("last_error", d.LastError)
		setGMT(res, "next_attempt_gmt", d.NextAttempt)
		setGMT(res, "date_gmt", d.Created)
		setGMT(res, "completed_gmt", d.CompletedAt)
		res.AddLink("about", r.URL(c.base+"/"+strconv.FormatInt(w.ID, 10)), false)
		out[i] = res
	}
	return rest.NewResponse(200, out), nil
}

func setGMT(res *rest.Resource, name string, t time.Time) {
	if t.IsZero() {
		res.Set(name, nil)
		return
	}
	res.Set(name, t.UTC().Format("2006-01-02T15:04:05"))
}

func (c *webhooksController) prepare(r *rest.Request, w *store.Webhook, ctx schema.Context) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	id := strconv.FormatInt(w.ID, 10)
	res.Set("id", w.ID)
	res.Set("url", w.URL)
	res.Set("events", w.Events)
	res.Set("active", w.Active)
	res.Set("config", w.ConfigKey != "")
	setGMT(res, "date_gmt", w.Created)
	setGMT(res, "modified_gmt", w.Modified)
	res.AddLink("self", r.URL(c.base+"/"+id), false)
	res.AddLink("collection", r.URL(c.base), false)
	res.AddLink("deliveries", r.URL(c.base+"/"+id+"/deliveries"), false)
	return res
}
