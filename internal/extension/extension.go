// Package extension is Folio's extension host: extensions are Go packages
// that, at start-up, register post types, taxonomies, typed hooks, extra
// fields, registered post meta and routes through an API. The public face
// for custom binaries is package ext at the module root.
package extension

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// Extension is what a Go package hands to the host.
type Extension interface {
	// Name identifies the extension in logs and errors.
	Name() string
	// Register adds the extension's post types, taxonomies, hooks,
	// fields, meta and routes. It runs once, before the site is built.
	Register(api *API) error
}

// Field is an extra field registered on the resources of one schema title
// (reference §10.11).
type Field struct {
	// Schema describes the field (Name, Type, Context, Description,
	// Enum, Format, Readonly...). Its Context decides where the field
	// shows.
	Schema *schema.Property
	// Get returns the value of the field for one resource, before the
	// context filter runs; nil makes the field write-only.
	Get func(r *rest.Request, res *rest.Resource) (any, error)
	// Prepare, when set, runs once per response with every resource of
	// the title in it before Get: load what Get needs in one query into
	// r.Cache().
	Prepare func(r *rest.Request, items []*rest.Resource) error
	// Update, when set, writes the field: it runs only when a create or
	// update request sent the field, after the main write and inside its
	// transaction; an error rolls the whole write back and is returned to
	// the client (a *rest.Error as is, anything else as a 500).
	Update func(ctx context.Context, u *FieldUpdate) error
	// Sanitize and Validate run on the sent value after the schema's own
	// sanitizing and validation.
	Sanitize func(r *rest.Request, name string, v any) (any, error)
	Validate func(r *rest.Request, name string, v any) error
}

// FieldUpdate is what a field updater gets.
type FieldUpdate struct {
	// Tx is the store of the write's transaction: write through it only.
	Tx store.Store
	// Title is the schema title and ID the id of the written resource;
	// Record is the record as written (*store.Post, *store.Term,
	// *store.Comment or *store.User) and Creating tells a create.
	Title    string
	ID       int64
	Record   any
	Creating bool
	// Value is the sanitized and validated value sent.
	Value   any
	Request *rest.Request
}

type titledField struct {
	title string
	f     Field
}

// Route is a route an extension registers under its own namespace.
type route struct {
	namespace, pattern string
	rt                 *rest.Route
}

// API is what extensions register with. Build it with New, then call
// Configure, Install and Start in that order while the server is built.
type API struct {
	// Hooks are the typed hooks; bind handlers to them in Register.
	Hooks *Hooks

	postTypes  []config.PostType
	taxonomies []config.Taxonomy
	fields     []titledField
	meta       []Meta
	routes     []route
	site       *content.Site
	log        *slog.Logger
	names      []string
}

// New returns an API with the given extensions registered.
func New(exts ...Extension) (*API, error) {
	a := &API{Hooks: NewHooks(), log: slog.New(slog.DiscardHandler)}
	for _, e := range exts {
		if err := e.Register(a); err != nil {
			return nil, fmt.Errorf("extension %s: %w", e.Name(), err)
		}
		a.names = append(a.names, e.Name())
	}
	return a, nil
}

// Names returns the names of the registered extensions.
func (a *API) Names() []string { return a.names }

// SetLogger sets where failing actions are logged.
func (a *API) SetLogger(l *slog.Logger) {
	if l != nil {
		a.log = l
		a.Hooks.SetLogger(l)
	}
}

// Logger returns the host's logger.
func (a *API) Logger() *slog.Logger { return a.log }

// RegisterPostType adds a custom post type, exactly as a [[post_types]]
// entry of folio.toml would.
func (a *API) RegisterPostType(pt config.PostType) { a.postTypes = append(a.postTypes, pt) }

// RegisterTaxonomy adds a custom taxonomy, exactly as a [[taxonomies]]
// entry of folio.toml would.
func (a *API) RegisterTaxonomy(tx config.Taxonomy) { a.taxonomies = append(a.taxonomies, tx) }

// RegisterField adds an extra field to the resources whose schema title is
// title: post, page, attachment, comment, user, tag, category, a custom
// post type or taxonomy name, type, status, taxonomy, post-revision...
func (a *API) RegisterField(title string, f Field) error {
	if f.Schema == nil || f.Schema.Name == "" {
		return errors.New("register field: the field needs a schema with a name")
	}
	if title == "" {
		return fmt.Errorf("register field %q: no schema title", f.Schema.Name)
	}
	if f.Schema.Context == 0 {
		f.Schema.Context = schema.View | schema.Edit
	}
	a.fields = append(a.fields, titledField{title: title, f: f})
	return nil
}

// RegisterRoute adds a route under namespace (an extension should use its
// own, e.g. "readingtime/v1"); it shows in the index like every other
// route.
func (a *API) RegisterRoute(namespace, pattern string, rt *rest.Route) {
	a.routes = append(a.routes, route{namespace: namespace, pattern: pattern, rt: rt})
}

// Site returns the site once Install ran (nil before): route handlers and
// hooks use it to reach the domain.
func (a *API) Site() *content.Site { return a.site }

// Configure adds the registered post types and taxonomies to cfg and
// checks them. Call it before content.NewSite.
func (a *API) Configure(cfg *config.Config) error {
	if len(a.postTypes) == 0 && len(a.taxonomies) == 0 {
		return nil
	}
	cfg.PostTypes = append(cfg.PostTypes, a.postTypes...)
	cfg.Taxonomies = append(cfg.Taxonomies, a.taxonomies...)
	if err := cfg.Normalize(); err != nil {
		return fmt.Errorf("extension post types and taxonomies: %w", err)
	}
	return nil
}

// Install wires the API into site and rs: the site fires the API's typed
// hooks, and the registered fields and meta join the schemas. Call it
// after content.NewSite and before the endpoints are registered.
func (a *API) Install(site *content.Site, rs *rest.Server) error {
	a.site = site
	site.SetHooks(a.Hooks)
	if err := a.installMeta(site, rs); err != nil {
		return err
	}
	for _, tf := range a.fields {
		rs.AddField(&rest.Field{
			Title: tf.title, Schema: tf.f.Schema,
			Prepare: tf.f.Prepare, Get: tf.f.Get,
			Sanitize: tf.f.Sanitize, Validate: tf.f.Validate,
		})
	}
	a.Hooks.Changed.Bind(&hooks.Handler[*ChangeEvent]{ID: events.ExtensionFieldsHandler, Priority: -1000, Func: a.updateFields})
	return nil
}

// Start registers the extensions' routes and fires rest_api_init. Call it
// after the endpoints are registered.
func (a *API) Start(rs *rest.Server) error {
	for _, r := range a.routes {
		rs.Register(r.namespace, r.pattern, r.rt)
	}
	if err := a.Hooks.APIInit.Trigger(&APIInitEvent{Server: rs}); err != nil {
		return fmt.Errorf("rest_api_init: %w", err)
	}
	return nil
}

// updateFields runs the updaters of the fields a write request sent,
// inside the write's transaction.
func (a *API) updateFields(e *ChangeEvent) error {
	ch := e.Change
	if ch.Action != "created" && ch.Action != "updated" {
		return e.Next()
	}
	r, ok := rest.RequestFromContext(e.Context)
	if !ok || r.SchemaTitle() != e.Title {
		return e.Next()
	}
	done := fieldsDoneKey{e.Title, ch.ID}
	if r.Cache()[done] != nil {
		return e.Next()
	}
	r.Cache()[done] = true
	if ch.Kind == "term" {
		// rest_insert_<taxonomy> fires before the field updates (reference
		// §11), in the transaction; the site does not fire it again after
		// the commit.
		events.MarkTermInserted(r, ch.Type, ch.ID)
		t, _ := ch.Record.(*store.Term)
		a.Hooks.Action(a.Hooks.InsertTerm.Name(ch.Type), a.Hooks.InsertTerm.Trigger(&InsertTermEvent{
			Context: e.Context, Taxonomy: ch.Type, Term: t, Request: r, Creating: ch.Action == "created", Tx: e.Tx}))
	}
	for _, tf := range a.fields {
		if tf.title != e.Title || tf.f.Update == nil || !r.Has(tf.f.Schema.Name) {
			continue
		}
		v, _ := r.Get(tf.f.Schema.Name)
		events.MarkFieldsUpdated(r, e.Title, ch.ID)
		err := tf.f.Update(e.Context, &FieldUpdate{
			Tx: e.Tx, Title: e.Title, ID: ch.ID, Record: ch.Record, Creating: ch.Action == "created",
			Value: v, Request: r,
		})
		if err != nil {
			return fmt.Errorf("update field %s of %s %d: %w", tf.f.Schema.Name, e.Title, ch.ID, err)
		}
	}
	return e.Next()
}

type fieldsDoneKey struct {
	title string
	id    int64
}

// TitleOf returns the schema title of the resource a change is about.
func TitleOf(site *content.Site, ch content.Change) string { return site.SchemaTitleOf(ch) }
