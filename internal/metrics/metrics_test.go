package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape = %d", rec.Code)
	}
	return rec.Body.String()
}

func TestDoneCountsByRouteMethodAndStatusClass(t *testing.T) {
	t.Parallel()
	m := New()
	for _, r := range []struct {
		route, method string
		status        int
	}{
		{"/api/svc/v2/posts", "GET", 200},
		{"/api/svc/v2/posts", "GET", 204},
		{"/api/svc/v2/posts", "POST", 499},
		{"", "GET", 404},
		{"/x", "PROPFIND", 200},
		{"/x", "GET", 600},
	} {
		m.Start()
		m.Done(r.route, r.method, r.status, 10, 3*time.Millisecond)
	}
	text := scrape(t, m)
	for _, want := range []string{
		`folio_http_requests_total{code="2xx",method="GET",route="/api/svc/v2/posts"} 2`,
		`folio_http_requests_total{code="4xx",method="POST",route="/api/svc/v2/posts"} 1`,
		`folio_http_requests_total{code="4xx",method="GET",route="unmatched"} 1`,
		`folio_http_requests_total{code="2xx",method="OTHER",route="/x"} 1`,
		`folio_http_requests_total{code="5xx",method="GET",route="/x"} 1`,
		`folio_http_request_duration_seconds_bucket{method="GET",route="/api/svc/v2/posts",le="0.005"} 2`,
		`folio_http_response_bytes_total{method="GET",route="/api/svc/v2/posts"} 20`,
		`folio_http_requests_in_flight 0`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestDoneAllocatesNothingOnceARouteWasSeen: counting a request on a route
// seen before builds no label values (the series are cached per route).
func TestDoneAllocatesNothingOnceARouteWasSeen(t *testing.T) {
	m := New()
	m.Start()
	m.Done("/api/svc/v2/posts", "GET", 200, 100, time.Millisecond)
	allocs := testing.AllocsPerRun(1000, func() {
		m.Start()
		m.Done("/api/svc/v2/posts", "GET", 200, 100, time.Millisecond)
	})
	if allocs != 0 {
		t.Errorf("Done allocates %.1f times per request", allocs)
	}
}

func TestPoolCollectorReportsEveryPool(t *testing.T) {
	t.Parallel()
	m := New()
	err := m.Register(PoolCollector(func() []store.PoolStats {
		return []store.PoolStats{{Pool: "read", MaxOpen: 8, Open: 3, InUse: 1, Idle: 2, WaitCount: 5, WaitDuration: 1500 * time.Millisecond}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	text := scrape(t, m)
	for _, want := range []string{
		`folio_db_connections_max{pool="read"} 8`,
		`folio_db_connections_open{pool="read"} 3`,
		`folio_db_connections_in_use{pool="read"} 1`,
		`folio_db_connections_idle{pool="read"} 2`,
		`folio_db_connection_waits_total{pool="read"} 5`,
		`folio_db_connection_wait_seconds_total{pool="read"} 1.5`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func BenchmarkDone(b *testing.B) {
	m := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Start()
			m.Done("/api/svc/v2/posts/(?P<id>[\\d]+)", "GET", 200, 512, time.Millisecond)
		}
	})
}

func TestGroupCommitCollectorReportsBatchesCheckpointsAndWAL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wal     int64
		want    []string
		wantNot []string
	}{
		{"wal known", 4096, []string{`folio_sqlite_wal_bytes 4096`}, nil},
		{"wal unknown", -1, nil, []string{`folio_sqlite_wal_bytes`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New()
			err := m.Register(GroupCommitCollector(func() GroupCommitStats {
				return GroupCommitStats{
					Batches: 10, Members: 37, Shared: 4,
					Checkpoints: []CheckpointCount{{Mode: "truncate", Result: "done", N: 2}, {Mode: "truncate", Result: "busy", N: 1},
						{Mode: "passive", Result: "done", N: 9}},
					Syncs:    8,
					WALBytes: tt.wal,
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			text := scrape(t, m)
			for _, want := range append([]string{
				`folio_sqlite_group_batches_total 10`,
				`folio_sqlite_group_members_total 37`,
				`folio_sqlite_group_shared_batches_total 4`,
				`folio_sqlite_wal_checkpoints_total{mode="truncate",result="done"} 2`,
				`folio_sqlite_wal_checkpoints_total{mode="truncate",result="busy"} 1`,
				`folio_sqlite_wal_checkpoints_total{mode="passive",result="done"} 9`,
				`folio_sqlite_wal_syncs_total 8`,
			}, tt.want...) {
				if !strings.Contains(text, want) {
					t.Errorf("metrics lack %s", want)
				}
			}
			for _, not := range tt.wantNot {
				if strings.Contains(text, not+" ") {
					t.Errorf("metrics hold %s", not)
				}
			}
		})
	}
}
