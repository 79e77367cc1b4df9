package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/metrics"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlite"
	"github.com/folio-server/folio/internal/store/sqlstore"
	"github.com/prometheus/client_golang/prometheus"
)

// Paths of the health endpoints, the same in both naming modes.
const (
	HealthPath = "/healthz"
	ReadyPath  = "/readyz"
	// MetricsPath is where the metrics listener serves the metrics.
	MetricsPath = "/metrics"
)

// ReadyTimeout bounds the checks of one readiness probe.
const ReadyTimeout = 2 * time.Second

// Route labels of the site's paths outside the API, in the request log
// and the metrics.
const (
	routeFrontEnd = "frontend"
	routeUploads  = UploadsPrefix + "*"
	routeAssets   = assetsPrefix + "*"
	routeAdmin    = adminPath + "*"
)

// readiness holds the checks of /readyz; tests replace them.
type readiness struct {
	// ping checks the database answers.
	ping func(ctx context.Context) error
	// schema returns the database's schema version and the binary's.
	schema func(ctx context.Context) (current, latest int64, err error)
	// uploads checks the upload storage takes writes.
	uploads func(ctx context.Context) error
}

// newReadiness returns the checks of the site's store and upload storage.
func (s *Server) newReadiness() readiness {
	var rd readiness
	if h, ok := s.store.(store.Health); ok {
		rd.ping, rd.schema = h.Ping, h.SchemaVersion
	}
	rd.uploads = func(ctx context.Context) error {
		c, ok := s.site.Blobs().(media.Checker)
		if !ok {
			return nil
		}
		return c.CheckWritable(ctx)
	}
	return rd
}

// setNoStore marks a health answer as never to be cached.
func setNoStore(h http.Header) {
	h["Cache-Control"] = []string{"no-store"}
	h["Content-Type"] = []string{"application/json; charset=UTF-8"}
	h["X-Content-Type-Options"] = []string{"nosniff"}
}

// healthMethod answers a method other than GET and HEAD with 405 and
// reports whether the request may go on.
func healthMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
	return false
}

var healthOK = []byte(`{"status":"ok"}` + "\n")

// serveHealth answers /healthz: the process is alive. It touches nothing.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	if !healthMethod(w, r) {
		return
	}
	setNoStore(w.Header())
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(healthOK))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(healthOK)
	}
}

// readyAnswer is the body of /readyz.
type readyAnswer struct {
	// Status is "ok" or "unavailable".
	Status string `json:"status"`
	// Failed names the checks that failed, in the order of Checks.
	Failed []string `json:"failed,omitempty"`
	// Checks gives each check's result: "ok" or what went wrong, in
	// words that reveal nothing of the host (the log has the cause).
	Checks readyChecks `json:"checks"`
}

type readyChecks struct {
	Database   string `json:"database"`
	Migrations string `json:"migrations"`
	Uploads    string `json:"uploads"`
}

// serveReady answers /readyz: 200 when the database answers within
// ReadyTimeout, its schema is not behind this binary's and the upload
// storage takes a write; 503 naming the checks that failed otherwise. A
// schema ahead of the binary (a newer node migrated it during a rolling
// upgrade) counts as ready: migrations only add what older nodes ignore.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	if !healthMethod(w, r) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
	defer cancel()
	var a readyAnswer
	var wg sync.WaitGroup
	wg.Go(func() {
		a.Checks.Uploads = s.readyCheck(ctx, "uploads", s.ready.uploads)
	})
	a.Checks.Database = s.readyCheck(ctx, "database", s.ready.ping)
	if a.Checks.Database != "ok" {
		a.Checks.Migrations = "not checked"
	} else {
		a.Checks.Migrations = s.readyCheck(ctx, "migrations", func(ctx context.Context) error {
			if s.ready.schema == nil {
				return nil
			}
			cur, latest, err := s.ready.schema(ctx)
			if err != nil {
				return err
			}
			if cur < latest {
				return errPending{cur, latest}
			}
			return nil
		})
	}
	wg.Wait()
	status := http.StatusOK
	a.Status = "ok"
	for _, c := range []struct{ name, res string }{{"database", a.Checks.Database}, {"migrations", a.Checks.Migrations}, {"uploads", a.Checks.Uploads}} {
		if c.res != "ok" {
			a.Failed = append(a.Failed, c.name)
		}
	}
	if len(a.Failed) > 0 {
		status = http.StatusServiceUnavailable
		a.Status = "unavailable"
	}
	body, _ := json.Marshal(a)
	body = append(body, '\n')
	setNoStore(w.Header())
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// errPending says the schema is behind the binary.
type errPending struct{ current, latest int64 }

func (e errPending) Error() string {
	return fmt.Sprintf("schema version %d, this binary needs %d", e.current, e.latest)
}

// readyCheck runs one check and returns its answer: "ok", "timeout",
// "pending" (migrations) or "failed". The cause is logged at WARN.
func (s *Server) readyCheck(ctx context.Context, name string, check func(context.Context) error) string {
	if check == nil {
		return "ok"
	}
	err := check(ctx)
	if err == nil {
		return "ok"
	}
	s.logger.WarnContext(ctx, "readiness check failed", "check", name, "err", err)
	var p errPending
	switch {
	case errors.As(err, &p):
		return "pending"
	case ctx.Err() != nil:
		return "timeout"
	}
	return "failed"
}

// observe is the site's outermost handler. For each request it works out
// the client (forwarded), takes or makes the request id (echoed in
// X-Request-Id), puts both and a reqlog.Info in the context, and when the
// request ends writes its log line and counts it in the metrics.
func (s *Server) observe(res *forwarded.Resolver, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// One allocation holds the request's Info and its writer.
		ob := &observed{statusWriter: statusWriter{ResponseWriter: w}}
		in, lw := &ob.info, &ob.statusWriter
		if id := r.Header.Get(reqlog.Header); reqlog.SaneID(id) {
			in.ID = id
		} else {
			in.ID = reqlog.NewID()
		}
		w.Header()[reqlog.Header] = []string{in.ID}
		client := res.Resolve(r)
		r = r.WithContext(reqlog.NewContext(forwarded.NewContext(r.Context(), client), in))
		s.metrics.Start()
		completed := false
		defer func() {
			status := lw.status
			if !completed && status == 0 {
				status = http.StatusInternalServerError // a panic on its way up
			}
			if status == 0 {
				status = http.StatusOK
			}
			d := time.Since(start)
			s.metrics.Done(in.Route, r.Method, status, lw.bytes, d)
			s.logRequest(r, in, client, status, lw.bytes, d)
		}()
		next.ServeHTTP(lw, r)
		completed = true
	})
}

// observed is what observe keeps about one request.
type observed struct {
	statusWriter
	info reqlog.Info
}

// maxLoggedPath bounds the path in a request's log line.
const maxLoggedPath = 256

// logRequest writes the request's log line: INFO (WARN for a 5xx,
// DEBUG for health probes). It names the route pattern and the path, but
// never the query, headers or body, where credentials, nonces and
// passwords travel.
func (s *Server) logRequest(r *http.Request, in *reqlog.Info, client forwarded.Client, status int, bytes int64, d time.Duration) {
	level := slog.LevelInfo
	switch {
	case in.Quiet:
		level = slog.LevelDebug
	case status >= 500 && status != rest.StatusClientClosedRequest:
		level = slog.LevelWarn
	}
	ctx := r.Context()
	if !s.logger.Enabled(ctx, level) {
		return
	}
	route := in.Route
	if route == "" {
		route = metrics.Unmatched
	}
	user := reqlog.Anonymous
	if in.UserID != 0 {
		user = strconv.FormatInt(in.UserID, 10)
	}
	path := r.URL.Path
	if len(path) > maxLoggedPath {
		path = path[:maxLoggedPath] + "…"
	}
	// The request id comes from the context (reqlog.Handler).
	s.logger.LogAttrs(ctx, level, "request",
		slog.String("method", r.Method),
		slog.String("route", route),
		slog.String("path", path),
		slog.Int("status", status),
		slog.Int64("bytes", bytes),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("user", user),
		slog.String("client_ip", client.Addr()),
	)
}

// statusWriter records the status and body size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 || w.status < 200 { // 1xx answers come before the final one
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// ReadFrom keeps the underlying writer's sendfile path for files
// (http.ServeContent copies with io.Copy).
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.bytes += n
	return n, err
}

// Flush sends buffered data to the client.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (read
// deadlines of uploads).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// registerMetrics adds the gauges read from the site's parts: the
// response cache, the database pools, SQLite's group commit, the webhook
// outbox and the image queue.
func (s *Server) registerMetrics(rs *rest.Server) error {
	var cs []prometheus.Collector
	if _, on := rs.CacheStats(); on {
		stat := func() rest.CacheStats { st, _ := rs.CacheStats(); return st }
		cs = append(cs,
			prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: metrics.Namespace, Name: "response_cache_hits_total",
				Help: "Anonymous API reads answered from the response cache."}, func() float64 { return float64(stat().Hits) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: metrics.Namespace, Name: "response_cache_misses_total",
				Help: "Cacheable anonymous API reads the response cache did not hold."}, func() float64 { return float64(stat().Misses) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metrics.Namespace, Name: "response_cache_bytes",
				Help: "Memory held by the response cache, by its estimate."}, func() float64 { return float64(stat().Bytes) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metrics.Namespace, Name: "response_cache_entries",
				Help: "Responses held by the response cache."}, func() float64 { return float64(stat().Entries) }),
		)
	}
	if h, ok := s.store.(store.Health); ok {
		cs = append(cs, metrics.PoolCollector(h.PoolStats), &outboxCollector{h: h, logger: s.logger})
	}
	if db, ok := s.store.(*sqlite.DB); ok {
		cs = append(cs, metrics.GroupCommitCollector(func() metrics.GroupCommitStats { return groupCommitStats(db) }))
	}
	if db, ok := s.store.(interface{ SearchCountStats() sqlstore.GateStats }); ok {
		cs = append(cs,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metrics.Namespace, Name: "search_counts_running",
				Help: "Costly reads running now: totals of searches, large search windows, deep pages (at most half the CPUs' worth at once)."},
				func() float64 { return float64(db.SearchCountStats().Running) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metrics.Namespace, Name: "search_counts_waiting",
				Help: "Costly reads (search totals, large search windows, deep pages) waiting for their turn."},
				func() float64 { return float64(db.SearchCountStats().Waiting) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: metrics.Namespace, Name: "search_count_waits_total",
				Help: "Costly reads (search totals, large search windows, deep pages) that had to wait for their turn."},
				func() float64 { return float64(db.SearchCountStats().Waited) }),
		)
	}
	capacity := s.cfg.Media.ImageWorkers + s.cfg.Media.ImageQueueLen()
	cs = append(cs,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metrics.Namespace, Name: "image_queue_pending",
			Help: "Image uploads waiting for or being processed by an image worker."},
			func() float64 { return float64(s.site.ImageProcessor().Pending()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metrics.Namespace, Name: "image_queue_capacity",
			Help: "Image uploads admitted at once (workers + queue); one more is answered 503."},
			func() float64 { return float64(capacity) }),
	)
	return s.metrics.Register(cs...)
}

// groupCommitStats reads the SQLite writer's counters and the WAL's size.
func groupCommitStats(db *sqlite.DB) metrics.GroupCommitStats {
	g := db.GroupStats()
	st := metrics.GroupCommitStats{
		Batches: g.Batches.Load(),
		Members: g.Members.Load(),
		Shared:  g.Shared.Load(),
		Checkpoints: []metrics.CheckpointCount{
			{Mode: "truncate", Result: "done", N: g.Checkpoints.Load()},
			{Mode: "truncate", Result: "busy", N: g.CheckpointsBusy.Load()},
			{Mode: "passive", Result: "done", N: g.Passive.Load()},
			{Mode: "passive", Result: "busy", N: g.PassiveBusy.Load()},
		},
		Syncs:    g.Syncs.Load(),
		WALBytes: -1,
	}
	if fi, err := os.Stat(db.Path() + "-wal"); err == nil {
		st.WALBytes = fi.Size()
	} else if errors.Is(err, os.ErrNotExist) {
		st.WALBytes = 0
	}
	return st
}

// outboxTimeout bounds the outbox count of one scrape.
const outboxTimeout = 2 * time.Second

var outboxDesc = prometheus.NewDesc(metrics.Namespace+"_webhook_outbox_pending",
	"Webhook deliveries waiting to be delivered (or retried).", nil, nil)

// outboxCollector counts the pending deliveries at every scrape; a scrape
// during a database outage leaves the metric out rather than fail.
type outboxCollector struct {
	h      store.Health
	logger *slog.Logger
}

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- outboxDesc }

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), outboxTimeout)
	defer cancel()
	n, err := c.h.PendingDeliveries(ctx)
	if err != nil {
		c.logger.Warn("metrics: counting the webhook outbox", "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(n))
}

// MetricsHandler returns the handler of the metrics listener: the
// metrics at /metrics, 404 elsewhere.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, s.metrics.Handler())
	return mux
}

// Metrics returns the site's metrics.
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// ServeMetrics serves MetricsHandler on ln, a listener apart from the
// public one, until ctx is cancelled.
func (s *Server) ServeMetrics(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.MetricsHandler(),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve metrics: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc
	return err
}

// Reload applies the settings of cfg that can change while the site runs:
// the CORS allowed origins and preflight max age. Every other setting
// needs a restart. (The log level is the logger's, which the caller owns;
// see folio serve's SIGHUP.)
func (s *Server) Reload(cfg *config.Config) {
	s.api.SetCORS(rest.CORS{
		AllowedOrigins: cfg.CORS.AllowedOrigins,
		MaxAge:         time.Duration(cfg.CORS.MaxAgeSeconds) * time.Second,
	})
}
