package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/store"
)

// TestErrorBoundary checks the one mapping of errors to responses: status,
// code, Retry-After, no internal text in the body, and exactly one log
// line, with cause and request id, per 5xx.
func TestErrorBoundary(t *testing.T) {
	t.Parallel()
	const secret = "pq: relation secret_table does not exist"
	busy := fmt.Errorf("sqlite: update post: %w: database is locked", store.ErrBusy)
	tests := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter bool
		logged     bool
	}{
		{"busy", busy, 503, "rest_database_unavailable", true, true},
		{"connection lost", fmt.Errorf("get post: %w: %s", store.ErrUnavailable, secret), 503, "rest_database_unavailable", true, true},
		{"outage under an answer", NewError("rest_cannot_delete", 500, "The post cannot be deleted.").WithCause(busy), 503, "rest_database_unavailable", true, true},
		{"answer with a cause", NewError("rest_cannot_delete", 500, "The post cannot be deleted.").WithCause(errors.New(secret)), 500, "rest_cannot_delete", false, true},
		{"not found", fmt.Errorf("get term 9: %w", store.ErrNotFound), 404, "rest_not_found", false, false},
		{"conflict", fmt.Errorf("insert user: %w (%s)", store.ErrConflict, secret), 409, "rest_conflict", false, false},
		{"client error", NewError("rest_invalid_param", 400, "Invalid parameter(s): x"), 400, "rest_invalid_param", false, false},
		{"anything else", errors.New(secret), 500, "rest_internal_error", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			s := NewServer(Config{
				Names:  DefaultNames(),
				Logger: slog.New(reqlog.NewHandler(slog.NewTextHandler(&logs, nil))),
			})
			s.Register("svc/v2", "/thing", &Route{Endpoints: []*Endpoint{{
				Methods: Readable,
				Handler: func(*Request) (*Response, error) { return nil, tt.err },
			}}})
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "http://example.test/api/svc/v2/thing", nil)
			s.ServeHTTP(w, r.WithContext(reqlog.NewContext(r.Context(), &reqlog.Info{ID: "req-42"})))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			var body struct {
				Code    string
				Message string
				Data    struct{ Status int }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Code != tt.code || body.Data.Status != tt.status || body.Message == "" {
				t.Fatalf("body %s, want code %s", w.Body, tt.code)
			}
			if strings.Contains(w.Body.String(), "secret") || strings.Contains(w.Body.String(), "store:") {
				t.Fatalf("body carries internal text: %s", w.Body)
			}
			if got := w.Header().Get("Retry-After"); (got != "") != tt.retryAfter {
				t.Fatalf("Retry-After %q, want one: %v", got, tt.retryAfter)
			}
			lines := strings.Count(logs.String(), "\n")
			if !tt.logged {
				if lines != 0 {
					t.Fatalf("logged a %d: %s", tt.status, logs.String())
				}
				return
			}
			if lines != 1 || !strings.Contains(logs.String(), "request_id=req-42") {
				t.Fatalf("want one log line with the request id, got %q", logs.String())
			}
			if tt.status == 500 && !strings.Contains(logs.String(), "secret_table") {
				t.Fatalf("the log line lacks the cause: %q", logs.String())
			}
		})
	}
}
