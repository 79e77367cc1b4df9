package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
)

// TestStoreUnavailableIs503 checks that an error wrapping
// store.ErrUnavailable, from a handler or from authentication, is answered
// with 503 rest_database_unavailable rather than a 500.
func TestStoreUnavailableIs503(t *testing.T) {
	t.Parallel()
	down := fmt.Errorf("postgres: get post 1: %w: %w", store.ErrUnavailable, errors.New("dial tcp: connection refused"))
	tests := []struct {
		name       string
		authErr    error
		handlerErr error
		status     int
		code       string
	}{
		{"handler", nil, down, http.StatusServiceUnavailable, "rest_database_unavailable"},
		{"authentication", down, nil, http.StatusServiceUnavailable, "rest_database_unavailable"},
		{"other errors stay 500", nil, errors.New("boom"), http.StatusInternalServerError, "rest_internal_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(Config{
				Names:        DefaultNames(),
				Authenticate: func(*http.Request) (*auth.User, error) { return nil, tt.authErr },
				Logger:       slog.New(slog.DiscardHandler),
			})
			s.Register("svc/v2", "/thing", &Route{Endpoints: []*Endpoint{{
				Methods: Readable,
				Handler: func(*Request) (*Response, error) {
					if tt.handlerErr != nil {
						return nil, tt.handlerErr
					}
					return NewResponse(http.StatusOK, map[string]any{"ok": true}), nil
				},
			}}})
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/thing", nil))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			var body struct {
				Code string
				Data struct{ Status int }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Code != tt.code || body.Data.Status != tt.status {
				t.Fatalf("body %s, want code %s", w.Body, tt.code)
			}
		})
	}
}
