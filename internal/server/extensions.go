package server

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/endpoints"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/webhooks"
)

// NewWith is New with the given extensions instead of the ones added with
// extension.Use.
func NewWith(ctx context.Context, cfg *config.Config, logger *slog.Logger, exts ...extension.Extension) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	names, err := NamesFor(cfg.Compat)
	if err != nil {
		return nil, err
	}
	st, err := openStoreToServe(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	s, err := build(ctx, cfg, logger, st, names, exts...)
	if err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

// newExtensionAPI runs the extensions' Register and returns the API with
// the configuration the site is built from (a copy of cfg when extensions
// add post types or taxonomies).
func newExtensionAPI(cfg *config.Config, logger *slog.Logger, exts []extension.Extension) (*extension.API, *config.Config, error) {
	api, err := extension.New(exts...)
	if err != nil {
		return nil, nil, err
	}
	api.SetLogger(logger)
	c := *cfg
	c.PostTypes = slices.Clone(cfg.PostTypes)
	c.Taxonomies = slices.Clone(cfg.Taxonomies)
	if err := api.Configure(&c); err != nil {
		return nil, nil, err
	}
	for _, n := range api.Names() {
		logger.Info("extension loaded", "name", n)
	}
	return api, &c, nil
}

// startExtensions registers the webhooks resource and outbox, the
// extensions' routes, and fires rest_api_init.
func (s *Server) startExtensions(ctx context.Context, api *extension.API, rs *rest.Server, site *content.Site, st store.Store) error {
	s.ext = api
	targets := webhooks.Guard{AllowPrivate: s.cfg.Server.WebhookPrivateTargets}
	svc := &webhooks.Service{Store: st, Targets: targets}
	if err := svc.SyncConfig(ctx, s.cfg.Webhooks); err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	endpoints.RegisterWebhooks(rs, site, svc)
	w := &webhooks.Worker{Store: st, Render: webhooks.APIRenderer(rs, site), Logger: s.logger, Targets: targets,
		Observe: s.metrics.Delivery}
	w.Init()
	em := &webhooks.Emitter{Notify: w.Wake}
	api.Hooks.Changed.Bind(&hooks.Handler[*extension.ChangeEvent]{ID: events.WebhooksOutboxHandler, Priority: 1000,
		Func: func(e *extension.ChangeEvent) error {
			if err := em.Emit(e.Context, e.Tx, e.Change); err != nil {
				return err
			}
			return e.Next()
		}})
	s.webhooks = w
	return api.Start(rs)
}

// Extensions returns the extension API the site was built with.
func (s *Server) Extensions() *extension.API { return s.ext }

// Webhooks returns the webhook delivery worker.
func (s *Server) Webhooks() *webhooks.Worker { return s.webhooks }
