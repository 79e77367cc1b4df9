// Package server wires Folio together: it opens and migrates the store,
// builds the content site and the REST server with its endpoints, and serves
// them over HTTP with sane timeouts and a graceful shutdown.
package server

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/endpoints"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/metrics"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/retention"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/sqlite"
	"github.com/folio-server/folio/internal/webhooks"
)

// HTTP server limits used by Serve.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 60 * time.Second
	WriteTimeout      = 60 * time.Second
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 1 << 20
	// ShutdownTimeout bounds how long a graceful shutdown waits for
	// requests in flight.
	ShutdownTimeout = 15 * time.Second
)

// Server is one running Folio site: store, domain, REST server and the
// top-level HTTP handler.
type Server struct {
	cfg     *config.Config
	logger  *slog.Logger
	store   store.Store
	site    *content.Site
	names   rest.Names
	handler http.Handler
	// api is the REST server, whose registry the API description
	// (openapi.go) is made from.
	api *rest.Server
	// sessions signs browsers in and out and checks their nonces.
	sessions *auth.SessionAuth
	// authenticate is the API's authentication chain, also used for
	// uploaded files.
	authenticate func(*http.Request) (*auth.User, error)
	// ext is the extension API; webhooks delivers the outbox.
	ext      *extension.API
	webhooks *webhooks.Worker
	// noncePath and nonceQuery are Names.NonceEndpoint split into the path
	// the router matches and the parameters serveNonce requires.
	noncePath  string
	nonceQuery url.Values
	// setupToken is the token of the first-administrator link (setup.go),
	// "" when the site has an administrator.
	setupToken string
	// front is the built-in reader (frontend.go), nil when [site]
	// front_end is not "builtin".
	front http.Handler
	// retention removes old webhook events, sign-in counters and idle
	// rate-limit buckets in the background (one node at a time).
	retention *retention.Pruner
	// metrics counts requests and reads the site's gauges (ops.go);
	// ready holds the checks of /readyz.
	metrics *metrics.Metrics
	ready   readiness
	// labels are the route labels of the paths served outside the API.
	labels siteLabels
}

// siteLabels are route labels (reqlog) made once from the names.
type siteLabels struct {
	openAPI, docs, nonce string
}

// OpenStore opens the database cfg selects (creating the data directory for
// SQLite) and applies pending migrations; a database a newer release
// migrated is refused (migrate.ErrSchemaNewer). The caller closes the
// store.
func OpenStore(ctx context.Context, cfg *config.Config) (store.Store, error) {
	return openStore(ctx, cfg, nil)
}

// openStoreToServe is OpenStore for a serving node. On PostgreSQL it also
// serves a database that a newer release already migrated, with a warning:
// during a rolling upgrade of several nodes the first new node migrates
// while the old ones still serve, and an old node that restarts then must
// come back. Migrations are written for that: a release only adds (tables,
// nullable or defaulted columns, indexes) and removes nothing an older
// release uses (see docs/operations.md, "Upgrading"). A SQLite site is
// served by one process, so a newer schema there means a downgrade: it is
// refused.
func openStoreToServe(ctx context.Context, cfg *config.Config, logger *slog.Logger) (store.Store, error) {
	return openStore(ctx, cfg, func(err error) bool {
		if !cfg.IsPostgres() || !errors.Is(err, migrate.ErrSchemaNewer) {
			return false
		}
		logger.Warn("the database schema is newer than this binary: serving it during a rolling upgrade; upgrade this node", "err", err)
		return true
	})
}

// openStore opens and migrates the store; tolerate, when not nil, may
// accept a migration error and keep the store open.
func openStore(ctx context.Context, cfg *config.Config, tolerate func(error) bool) (store.Store, error) {
	if cfg.IsPostgres() {
		where := config.RedactURL(cfg.DatabaseURL)
		db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.Options{
			MaxConns:        cfg.DB.MaxConns,
			MinConns:        cfg.DB.MinConns,
			MaxConnLifetime: cfg.DB.MaxConnLifetime,
			ConnectTimeout:  cfg.DB.ConnectTimeout,
		})
		if err != nil {
			return nil, fmt.Errorf("open database %s: %w", where, err)
		}
		if err := db.Migrate(ctx); err != nil && (tolerate == nil || !tolerate(err)) {
			db.Close()
			return nil, fmt.Errorf("migrate database %s: %w", where, err)
		}
		return db, nil
	}
	path := cfg.DatabasePath()
	if err := prepareDataDir(path); err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{MaxOpenConns: cfg.DB.MaxConns})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate database %s: %w", path, err)
	}
	return db, nil
}

// NamesFor returns the REST names for a compat setting: "" gives the spec's
// names, "wordpress" the WordPress ones.
func NamesFor(compat string) (rest.Names, error) {
	switch compat {
	case "":
		return rest.DefaultNames(), nil
	case config.CompatWordPress:
		return rest.WordPressNames(), nil
	default:
		return rest.Names{}, fmt.Errorf("unknown compat mode %q (want %q or nothing)", compat, config.CompatWordPress)
	}
}

// New opens the store, migrates it and builds the site and its handler. A
// nil logger discards log output.
func New(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*Server, error) {
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
	s, err := build(ctx, cfg, logger, st, names, extension.Registered()...)
	if err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

func build(ctx context.Context, cfg *config.Config, logger *slog.Logger, st store.Store, names rest.Names, exts ...extension.Extension) (*Server, error) {
	// Every line logged with a request's context names its request id.
	logger = slog.New(reqlog.NewHandler(logger.Handler()))
	api, cfg, err := newExtensionAPI(cfg, logger, exts)
	if err != nil {
		return nil, err
	}
	site, err := content.NewSite(st, cfg)
	if err != nil {
		return nil, fmt.Errorf("build site: %w", err)
	}
	// One throttle for sign-ins and Basic authentication: they share the
	// counters of a (login, address) pair.
	throttle := &auth.Throttle{Counters: st, Now: time.Now, Logger: logger}
	sessions, err := newSessionAuth(ctx, st, site, names, throttle, logger)
	if err != nil {
		return nil, err
	}
	blobs, err := media.OpenBlobs(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open upload storage: %w", err)
	}
	site.SetBlobs(blobs)
	if err := site.MediaConfigError(); err != nil {
		return nil, fmt.Errorf("media.allowed_types: %w", err)
	}
	chain := auth.Chain(&auth.BasicAuth{
		Users:    st,
		Apps:     st,
		Roles:    site.Roles(),
		Now:      time.Now,
		Logger:   logger,
		Throttle: throttle,
	}, sessions)
	// The caller it finds is named in the request's log line.
	authenticate := func(r *http.Request) (*auth.User, error) {
		u, err := chain(r)
		if u != nil {
			reqlog.SetUser(r.Context(), u.ID())
		}
		return u, err
	}
	var cache *rest.CacheConfig
	if cfg.Cache.ResponsesOn() {
		cache = &rest.CacheConfig{
			Version:  st.Version,
			MaxBytes: cfg.Cache.MaxBytes,
			MaxAge:   time.Duration(cfg.Cache.MaxAgeSeconds) * time.Second,
		}
	}
	met := metrics.New()
	// A write signed in with Basic credentials on a store that checks a
	// sign-in with the write's first statement goes on with the sign-in
	// kept, checked there (store.SignInCheck), instead of reading it
	// first in a round trip of its own.
	deferrer, _ := st.(store.SignInDeferrer)
	rs := rest.NewServer(rest.Config{
		Cache:   cache,
		Version: st.Version, // ETags and 304s on anonymous reads
		Names:   names,
		SiteInfo: func(ctx context.Context) (rest.SiteInfo, error) {
			set, err := site.Settings(ctx)
			if err != nil {
				return rest.SiteInfo{}, err
			}
			return rest.SiteInfo{Name: set.Title, Description: set.Description, Timezone: set.Location()}, nil
		},
		SiteURL:        cfg.Site.URL,
		MaxBodyBytes:   cfg.Limits.MaxBodyBytes,
		MaxUploadBytes: cfg.Limits.MaxUploadBytes,
		// Upload bodies may outlast ReadTimeout at upload_min_rate.
		UploadGrace:     ReadTimeout,
		UploadMinRate:   cfg.Limits.UploadMinRate,
		Authenticate:    authenticate,
		DeferSignIn:     deferrer != nil && deferrer.DefersSignIn(),
		ResponseHeaders: sessions.ResponseHeaders,
		CORS: rest.CORS{
			AllowedOrigins: cfg.CORS.AllowedOrigins,
			MaxAge:         time.Duration(cfg.CORS.MaxAgeSeconds) * time.Second,
		},
		RateLimit: newRateLimit(cfg, st, logger, met),
		Logger:    logger,
	})
	if err := api.Install(site, rs); err != nil {
		return nil, err
	}
	endpoints.Register(rs, site)
	s := &Server{cfg: cfg, logger: logger, store: st, site: site, names: names, sessions: sessions, authenticate: authenticate, api: rs,
		metrics: met}
	s.retention = &retention.Pruner{
		Store: st,
		Policy: retention.Policy{
			WebhookAge:    time.Duration(cfg.WebhookRetention.Days) * 24 * time.Hour,
			WebhookEvents: cfg.WebhookRetention.MaxEvents,
		},
		Logger: logger,
		Pause:  10 * time.Millisecond,
	}
	ne, err := url.Parse(names.NonceEndpoint)
	if err != nil || !strings.HasPrefix(ne.Path, "/") {
		return nil, fmt.Errorf("nonce endpoint %q: not a site path", names.NonceEndpoint)
	}
	s.noncePath, s.nonceQuery = ne.Path, ne.Query()
	prefix := strings.TrimRight(names.Prefix, "/")
	s.labels = siteLabels{openAPI: prefix + openAPIPath, docs: prefix + docsPath, nonce: s.noncePath}
	if err := s.startExtensions(ctx, api, rs, site, st); err != nil {
		return nil, err
	}
	if err := s.newFrontEnd(); err != nil {
		return nil, err
	}
	// The outermost handler works out each request's client address and
	// scheme once (believing trusted proxies only); every layer below
	// reads them from the request's context.
	s.handler = s.observe(forwarded.NewResolver(cfg.Server.TrustedProxy), s.routes(rs))
	s.ready = s.newReadiness()
	if err := s.registerMetrics(rs); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	// Greeting tells how to create the first administrator.
	if err := s.initSetup(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// AdminHint returns the command line that creates the first administrator
// of the site cfg describes, for a person who runs folio as program
// ("folio", "./folio", "go run ./cmd/folio"). It asks for the password
// rather than showing one, which would land in the shell's history.
func AdminHint(cfg *config.Config, program string) string {
	return program + " user create " + SiteFlag(cfg) + " --login admin --email admin@example.com --role administrator"
}

// SiteFlag returns the flag that names the site of cfg in a command line
// shown to a person: --data DIR, or --database with the URL's password
// hidden (hints land in logs).
func SiteFlag(cfg *config.Config) string {
	if cfg.DatabaseURL != "" {
		return "--database " + shellQuote(config.RedactURL(cfg.DatabaseURL))
	}
	return "--data " + shellQuote(cfg.DataDir)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// routes builds the top-level handler: the API under the prefix, the site
// root page at "/", 404 elsewhere.
func (s *Server) routes(api http.Handler) http.Handler {
	prefix := strings.TrimRight(s.names.Prefix, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		// in names the route for the request log and the metrics (the
		// API names its own).
		in := reqlog.FromContext(r.Context())
		if in == nil {
			in = &reqlog.Info{}
		}
		switch {
		case p == HealthPath:
			in.Route, in.Quiet = HealthPath, true
			s.serveHealth(w, r)
		case p == ReadyPath:
			in.Route, in.Quiet = ReadyPath, true
			s.serveReady(w, r)
		case p == prefix+openAPIPath:
			in.Route = s.labels.openAPI
			s.serveOpenAPI(w, r)
		case p == prefix+docsPath || p == prefix+docsPath+"/":
			in.Route = s.labels.docs
			s.serveAPIDocs(w, r)
		case p == prefix || strings.HasPrefix(p, prefix+"/"):
			api.ServeHTTP(w, r)
		case p == "/" && r.URL.Query().Get("rest_route") != "":
			api.ServeHTTP(w, restRouteRequest(r, prefix))
		case p == "/":
			in.Route = "/"
			s.serveRoot(w, r)
		case p == "/login":
			in.Route = "/login"
			s.serveLogin(w, r)
		case p == "/favicon.ico":
			in.Route = "/favicon.ico"
			s.serveFavicon(w, r)
		case p == "/logout":
			in.Route = "/logout"
			s.serveLogout(w, r)
		case p == s.noncePath:
			in.Route = s.labels.nonce
			s.serveNonce(w, r)
		case strings.HasPrefix(p, UploadsPrefix):
			in.Route = routeUploads
			s.serveUploads(w, r)
		case strings.HasPrefix(p, assetsPrefix):
			in.Route = routeAssets
			s.serveAsset(w, r)
		case p == setupPath:
			in.Route = setupPath
			s.serveSetup(w, r)
		case p == "/admin" || strings.HasPrefix(p, adminPath):
			in.Route = routeAdmin
			s.serveAdmin(w, r)
		default:
			in.Route = routeFrontEnd
			s.serveFrontEnd(w, r)
		}
	})
}

// restRouteRequest turns "/?rest_route=/svc/v2/posts" into a request for
// "{prefix}/svc/v2/posts", as the original platform accepts for sites
// without pretty permalinks.
func restRouteRequest(r *http.Request, prefix string) *http.Request {
	q := r.URL.Query()
	route := q.Get("rest_route")
	q.Del("rest_route")
	r2 := r.Clone(r.Context())
	r2.URL.Path = prefix + "/" + strings.TrimLeft(route, "/")
	r2.URL.RawPath = ""
	r2.URL.RawQuery = q.Encode()
	r2.RequestURI = r2.URL.RequestURI()
	return r2
}

// APIRoot returns the API root URL ({api_root}) for a request: the
// configured site URL, or the request's scheme and host, plus the prefix
// and a slash.
func (s *Server) APIRoot(r *http.Request) string {
	return s.siteBase(r) + strings.TrimRight(s.names.Prefix, "/") + "/"
}

// siteBase returns the site's URL without trailing slash: the configured
// site URL, or the request's scheme (forwarded.Scheme: a trusted proxy's
// X-Forwarded-Proto counts) and host.
func (s *Server) siteBase(r *http.Request) string {
	if s.cfg.Site.URL != "" {
		return s.cfg.Site.URL
	}
	return forwarded.Scheme(r) + "://" + r.Host
}

// serveRoot answers "/": the built-in reader's home page, or, without it,
// a small landing page that links the admin, the API and its reference
// (and the external front end), and advertises the API (reference §9
// discovery: Link header and <link> element).
func (s *Server) serveRoot(w http.ResponseWriter, r *http.Request) {
	if s.front != nil {
		s.front.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	root := s.APIRoot(r)
	rel := s.names.RelBase
	nonce := newScriptNonce()
	setPageHeaders(w.Header(), nonce)
	w.Header().Set("Link", fmt.Sprintf("<%s>; rel=%q", root, rel))
	set := s.pageSettings(r)
	title := html.EscapeString(set.Title)
	desc := html.EscapeString(set.Description)
	page := "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>" + title + "</title>\n" +
		"<link rel=\"" + html.EscapeString(rel) + "\" href=\"" + html.EscapeString(root) + "\"/>\n</head>\n<body>\n<h1>" + title + "</h1>\n"
	if desc != "" {
		page += "<p>" + desc + "</p>\n"
	}
	page += "<ul>\n"
	if ext := s.cfg.Site.ExternalFrontEnd(); ext != "" {
		page += "<li>Site: <a href=\"" + html.EscapeString(ext+"/") + "\">" + html.EscapeString(ext+"/") + "</a></li>\n"
	}
	page += "<li>Admin: <a href=\"" + adminPath + "\">" + html.EscapeString(s.siteBase(r)+adminPath) + "</a></li>\n" +
		"<li>API: <a href=\"" + html.EscapeString(root) + "\">" + html.EscapeString(root) + "</a></li>\n" +
		"<li>API reference: <a href=\"" + html.EscapeString(strings.TrimRight(s.names.Prefix, "/")+docsPath) + "\">" + html.EscapeString(s.siteBase(r)+strings.TrimRight(s.names.Prefix, "/")+docsPath) + "</a></li>\n" +
		"</ul>\n" + settingsScript(s.settingsObject(r), nonce) + "</body>\n</html>\n"
	w.Header().Set("Content-Length", fmt.Sprint(len(page)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(page))
}

// pageSettings returns the effective site settings (see content.Settings)
// for a page of the site; a page still shows, with the settings last
// loaded, when the store cannot be read.
func (s *Server) pageSettings(r *http.Request) *content.Settings {
	return s.site.SettingsOrLast(r.Context())
}

// settingsScript wraps the settings statements of a signed-in page in the
// page's one inline script, allowed by the response's CSP nonce; it is
// empty when settings is.
func settingsScript(settings, nonce string) string {
	if settings == "" {
		return ""
	}
	return "<script nonce=\"" + nonce + "\">" + settings + "</script>\n"
}

// Handler returns the site's top-level HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Store returns the site's store.
func (s *Server) Store() store.Store { return s.store }

// Site returns the site's domain layer.
func (s *Server) Site() *content.Site { return s.site }

// Names returns the REST names the site serves.
func (s *Server) Names() rest.Names { return s.names }

// Serve serves HTTP on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting, waits up to ShutdownTimeout for requests
// in flight and returns nil. Any other serving error is returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	// The background work stops, and is waited for, before Serve returns,
	// so that the caller may close the store right after.
	schedCtx, stopSched := context.WithCancel(ctx)
	var background sync.WaitGroup
	defer func() {
		stopSched()
		background.Wait()
	}()
	if s.site != nil {
		background.Go(func() { s.publishScheduled(schedCtx) })
		background.Go(func() { s.sweepMediaReservations(schedCtx) })
	}
	if o, ok := s.store.(store.Optimizer); ok {
		background.Go(func() { s.optimizeStore(schedCtx, o) })
	}
	if s.webhooks != nil {
		background.Go(func() { s.webhooks.Run(schedCtx) })
	}
	if s.retention != nil {
		background.Go(func() { s.retention.Run(schedCtx, 0) })
	}
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.logger.Info("shutting down", "timeout", ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc
	if err != nil {
		_ = hs.Close()
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	return nil
}

// PublishInterval is how often scheduled posts whose date has come are
// published.
const PublishInterval = 30 * time.Second

// publishScheduled publishes due scheduled posts at start and then every
// PublishInterval until ctx ends. Several nodes may run it at once.
func (s *Server) publishScheduled(ctx context.Context) {
	t := time.NewTicker(PublishInterval)
	defer t.Stop()
	for {
		if n, err := s.site.PublishDue(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("publishing scheduled posts", "err", err)
		} else if n > 0 {
			s.logger.Info("published scheduled posts", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// OptimizeInterval is how often a serving node has a store that needs it
// refresh its stale planner statistics and merge its full-text indexes
// (SQLite: a table that grew 25-fold since it was analyzed, an index in
// more than eight segments). A run that finds nothing to do costs a few
// milliseconds of the writer.
const OptimizeInterval = 10 * time.Minute

// optimizeStore has o refresh its planner statistics and merge its
// indexes every OptimizeInterval until ctx ends.
func (s *Server) optimizeStore(ctx context.Context, o store.Optimizer) {
	t := time.NewTicker(OptimizeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := o.Optimize(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("optimizing the store", "err", err)
		}
	}
}

// Close closes the store.
func (s *Server) Close() error {
	if err := s.store.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}
