package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/metrics"
	"github.com/folio-server/folio/internal/reqlog"
)

// BenchmarkObserve measures what the outermost handler (request id,
// client address, metrics and the request log line) adds to a request
// whose handler does nothing: with the log line written (info) and
// filtered out (warn).
func BenchmarkObserve(b *testing.B) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelWarn} {
		b.Run(level.String(), func(b *testing.B) {
			s := &Server{metrics: metrics.New(), logger: slog.New(reqlog.NewHandler(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: level})))}
			h := s.observe(forwarded.NewResolver(nil), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reqlog.SetRoute(r.Context(), "/api/svc/v2/posts")
				w.WriteHeader(http.StatusNoContent)
			}))
			r := httptest.NewRequest("GET", "/api/svc/v2/posts", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}
