// Package metrics keeps Folio's Prometheus metrics (github.com/prometheus/
// client_golang): HTTP requests by route pattern, method and status class,
// their durations, requests in flight, webhook deliveries by outcome,
// database pool statistics, SQLite's group commit (batches, checkpoints,
// WAL size) and the Go runtime and process collectors.
// Every metric name starts with "folio_". The server registers the
// gauges it reads from its own parts (response cache, webhook outbox,
// image queue) with Register; Handler serves them all in the Prometheus
// text format, on the separate metrics listener only.
package metrics

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace is the prefix of every metric name.
const Namespace = "folio"

// Unmatched is the route label of requests no route matched, so that
// random URLs cannot grow the number of series.
const Unmatched = "unmatched"

// DurationBuckets are the upper bounds, in seconds, of the request
// duration histogram: 1 ms to 10 s.
var DurationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// methods are the method labels; any other method counts as "OTHER", so
// that made-up methods cannot grow the number of series.
var methods = [...]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"}

// classes are the status class labels, indexed by status/100 - 1.
var classes = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

func methodIndex(m string) int {
	for i, x := range methods[:len(methods)-1] {
		if m == x {
			return i
		}
	}
	return len(methods) - 1
}

func classIndex(status int) int {
	c := status/100 - 1
	if c < 0 || c >= len(classes) {
		return len(classes) - 1 // a status out of range is a server bug
	}
	return c
}

// Metrics is one process's registry and request metrics. It is safe for
// concurrent use.
type Metrics struct {
	reg        *prometheus.Registry
	inFlight   prometheus.Gauge
	requests   *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	bytes      *prometheus.CounterVec
	deliveries *prometheus.CounterVec
	limited    *prometheus.CounterVec
	// routes caches the series of each route label (*routeSeries), so
	// that counting a request builds no label values and hashes nothing.
	routes sync.Map
}

// routeSeries holds the series of one route, made on first use.
type routeSeries struct {
	requests [len(methods)][len(classes)]atomic.Pointer[counter]
	duration [len(methods)]atomic.Pointer[observer]
	bytes    [len(methods)]atomic.Pointer[counter]
}

type counter struct{ prometheus.Counter }
type observer struct{ prometheus.Observer }

// New returns metrics registered on a new registry, with the Go runtime
// and process collectors (as folio_go_* and folio_process_*).
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "http_requests_in_flight",
		Help: "HTTP requests being served.",
	})
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "http_requests_total",
		Help: "HTTP requests served, by route pattern, method and status class.",
	}, []string{"route", "method", "code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "http_request_duration_seconds",
		Help:    "Time from a request's arrival to the end of its response, by route pattern and method.",
		Buckets: DurationBuckets,
	}, []string{"route", "method"})
	m.bytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "http_response_bytes_total",
		Help: "Response body bytes written, by route pattern and method.",
	}, []string{"route", "method"})
	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "webhook_deliveries_total",
		Help: "Webhook delivery attempts by outcome: delivered, retry (failed, will be tried again) or failed (given up).",
	}, []string{"outcome"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "rate_limited_total",
		Help: "Requests refused with 429 rest_too_many_requests by the API rate limits, by budget (read, write, search, upload).",
	}, []string{"class"})
	m.reg.MustRegister(m.inFlight, m.requests, m.duration, m.bytes, m.deliveries, m.limited)
	prefixed := prometheus.WrapRegistererWithPrefix(Namespace+"_", m.reg)
	prefixed.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// Registry returns the registry, for tests and for collectors added
// later.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Register adds collectors to the registry.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Handler serves the metrics in the Prometheus text (or protobuf) format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: false,
	})
}

// Start counts a request in flight; call Done when it ends.
func (m *Metrics) Start() { m.inFlight.Inc() }

// Done ends a request Start counted: it counts it under route (""
// counts as Unmatched), method and the class of status, and records its
// duration and response bytes.
func (m *Metrics) Done(route, method string, status int, bytes int64, d time.Duration) {
	m.inFlight.Dec()
	if route == "" {
		route = Unmatched
	}
	rs := m.series(route)
	mi, ci := methodIndex(method), classIndex(status)
	c := rs.requests[mi][ci].Load()
	if c == nil {
		c = &counter{m.requests.WithLabelValues(route, methods[mi], classes[ci])}
		rs.requests[mi][ci].Store(c)
	}
	c.Inc()
	o := rs.duration[mi].Load()
	if o == nil {
		o = &observer{m.duration.WithLabelValues(route, methods[mi])}
		rs.duration[mi].Store(o)
	}
	o.Observe(d.Seconds())
	if bytes > 0 {
		b := rs.bytes[mi].Load()
		if b == nil {
			b = &counter{m.bytes.WithLabelValues(route, methods[mi])}
			rs.bytes[mi].Store(b)
		}
		b.Add(float64(bytes))
	}
}

func (m *Metrics) series(route string) *routeSeries {
	if v, ok := m.routes.Load(route); ok {
		return v.(*routeSeries)
	}
	v, _ := m.routes.LoadOrStore(route, &routeSeries{})
	return v.(*routeSeries)
}

// Delivery counts one webhook delivery attempt with its outcome
// ("delivered", "retry" or "failed").
func (m *Metrics) Delivery(outcome string) { m.deliveries.WithLabelValues(outcome).Inc() }

// RateLimited counts one request refused by the rate limit of the budget
// class ("read", "write", "search" or "upload").
func (m *Metrics) RateLimited(class string) { m.limited.WithLabelValues(class).Inc() }

// PoolCollector returns a collector of the database pool statistics
// stats reports (one entry per pool) at every scrape.
func PoolCollector(stats func() []store.PoolStats) prometheus.Collector {
	return &poolCollector{stats: stats}
}

var (
	poolMax = prometheus.NewDesc(Namespace+"_db_connections_max",
		"Most connections the pool may open.", []string{"pool"}, nil)
	poolOpen = prometheus.NewDesc(Namespace+"_db_connections_open",
		"Connections open, in use or idle.", []string{"pool"}, nil)
	poolInUse = prometheus.NewDesc(Namespace+"_db_connections_in_use",
		"Connections in use.", []string{"pool"}, nil)
	poolIdle = prometheus.NewDesc(Namespace+"_db_connections_idle",
		"Idle connections.", []string{"pool"}, nil)
	poolWaits = prometheus.NewDesc(Namespace+"_db_connection_waits_total",
		"Times a caller had to wait for a connection.", []string{"pool"}, nil)
	poolWaitSeconds = prometheus.NewDesc(Namespace+"_db_connection_wait_seconds_total",
		"Time spent waiting for a connection.", []string{"pool"}, nil)
)

type poolCollector struct {
	stats func() []store.PoolStats
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolMax, poolOpen, poolInUse, poolIdle, poolWaits, poolWaitSeconds} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.stats() {
		ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxOpen), s.Pool)
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(s.Open), s.Pool)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(s.InUse), s.Pool)
		ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(s.Idle), s.Pool)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount), s.Pool)
		ch <- prometheus.MustNewConstMetric(poolWaitSeconds, prometheus.CounterValue, s.WaitDuration.Seconds(), s.Pool)
	}
}

// GroupCommitStats is what SQLite's group-commit writer has done since the
// process started, read at every scrape.
type GroupCommitStats struct {
	// Batches is how many batches (SQLite transactions) committed; Members
	// how many write transactions they held (Members/Batches is the mean
	// batch size); Shared how many batches held more than one.
	Batches, Members, Shared int64
	// Checkpoints are the WAL checkpoints run: the writer's truncations
	// and the checkpointer's passive ones.
	Checkpoints []CheckpointCount
	// Syncs is how many syncs of the WAL made committed batches durable.
	Syncs int64
	// WALBytes is the WAL file's size now; negative when unknown.
	WALBytes int64
}

// CheckpointCount counts the checkpoints of one mode ("truncate" or
// "passive") with one result: "done" (the WAL was checkpointed, and
// truncated by a truncation) or "busy" (readers on older WAL frames kept a
// truncation from completing; the file was locked for a passive one).
type CheckpointCount struct {
	Mode, Result string
	N            int64
}

var (
	groupBatches = prometheus.NewDesc(Namespace+"_sqlite_group_batches_total",
		"Batches of write transactions the SQLite writer committed as one SQLite transaction.", nil, nil)
	groupMembers = prometheus.NewDesc(Namespace+"_sqlite_group_members_total",
		"Write transactions the committed batches held (divided by the batches: members per batch).", nil, nil)
	groupShared = prometheus.NewDesc(Namespace+"_sqlite_group_shared_batches_total",
		"Committed batches that held more than one write transaction.", nil, nil)
	groupCheckpoints = prometheus.NewDesc(Namespace+"_sqlite_wal_checkpoints_total",
		"WAL checkpoints run, by mode (truncate: the writer's past the WAL limit; passive: the checkpointer's) and result (done, or busy).", []string{"mode", "result"}, nil)
	walSyncs = prometheus.NewDesc(Namespace+"_sqlite_wal_syncs_total",
		"Syncs of the SQLite write-ahead log that made committed batches durable (one covers every batch committed before it began).", nil, nil)
	walBytes = prometheus.NewDesc(Namespace+"_sqlite_wal_bytes",
		"Size of the SQLite write-ahead log file.", nil, nil)
)

// GroupCommitCollector returns a collector of the SQLite writer's batch
// and checkpoint counters and the WAL's size, which stats reports at every
// scrape.
func GroupCommitCollector(stats func() GroupCommitStats) prometheus.Collector {
	return &groupCollector{stats: stats}
}

type groupCollector struct {
	stats func() GroupCommitStats
}

func (c *groupCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{groupBatches, groupMembers, groupShared, groupCheckpoints, walSyncs, walBytes} {
		ch <- d
	}
}

func (c *groupCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	ch <- prometheus.MustNewConstMetric(groupBatches, prometheus.CounterValue, float64(s.Batches))
	ch <- prometheus.MustNewConstMetric(groupMembers, prometheus.CounterValue, float64(s.Members))
	ch <- prometheus.MustNewConstMetric(groupShared, prometheus.CounterValue, float64(s.Shared))
	ch <- prometheus.MustNewConstMetric(walSyncs, prometheus.CounterValue, float64(s.Syncs))
	for _, cp := range s.Checkpoints {
		ch <- prometheus.MustNewConstMetric(groupCheckpoints, prometheus.CounterValue, float64(cp.N), cp.Mode, cp.Result)
	}
	if s.WALBytes >= 0 {
		ch <- prometheus.MustNewConstMetric(walBytes, prometheus.GaugeValue, float64(s.WALBytes))
	}
}
