package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// textServer serves one route that echoes its `q` parameter, declared as a
// string of at most 10 characters.
func textServer(t *testing.T, log *slog.Logger, handler func(*Request) (*Response, error)) *Server {
	t.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := NewServer(Config{Names: DefaultNames(), Logger: log})
	if handler == nil {
		handler = func(r *Request) (*Response, error) {
			return NewResponse(http.StatusOK, map[string]any{"q": r.String("q")}), nil
		}
	}
	s.Register("svc/v2", "/echo", &Route{Endpoints: []*Endpoint{
		{Methods: Readable, Handler: handler, Args: []*Arg{{Name: "q", Type: "string", MaxLength: 10}}},
		{Methods: Creatable, Handler: handler, Args: []*Arg{{Name: "q", Type: "string", MaxLength: 10}}},
	}})
	return s
}

type errBody struct {
	Code    string
	Message string
	Data    struct {
		Status int
		Params map[string]string
	}
}

func decodeErr(t *testing.T, w *httptest.ResponseRecorder) errBody {
	t.Helper()
	var b errBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	return b
}

// TestParametersWithNULOrInvalidUTF8AreInvalidParams: text no store keeps
// alike (PostgreSQL refuses both) is a 400 rest_invalid_param naming the
// parameter, from the query, the form and the JSON body, declared or not.
func TestParametersWithNULOrInvalidUTF8AreInvalidParams(t *testing.T) {
	t.Parallel()
	s := textServer(t, nil, nil)
	tests := []struct {
		name, method, target, ctype, body, param string
	}{
		{"NUL in a declared query parameter", "GET", "/api/svc/v2/echo?q=a%00b", "", "", "q"},
		{"invalid UTF-8 in a declared query parameter", "GET", "/api/svc/v2/echo?q=%FF%FE", "", "", "q"},
		{"NUL in an undeclared parameter", "GET", "/api/svc/v2/echo?password=x%00", "", "", "password"},
		{"invalid UTF-8 in a bracketed key", "GET", "/api/svc/v2/echo?filter[s]=%C3%28", "", "", "filter"},
		{"NUL in a form body", "POST", "/api/svc/v2/echo", "application/x-www-form-urlencoded", "q=%00", "q"},
		{"NUL in a JSON string", "POST", "/api/svc/v2/echo", "application/json", `{"q":"a\u0000"}`, "q"},
		{"NUL deep in a JSON object", "POST", "/api/svc/v2/echo", "application/json", `{"meta":{"k":["x","\u0000"]}}`, "meta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "http://example.test"+tt.target, strings.NewReader(tt.body))
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", w.Code, w.Body)
			}
			b := decodeErr(t, w)
			if b.Code != "rest_invalid_param" || b.Data.Status != 400 || b.Data.Params[tt.param] == "" {
				t.Errorf("body %+v, want rest_invalid_param naming %s", b, tt.param)
			}
		})
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/echo?q=%C3%A9t%C3%A9", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"été"`) {
		t.Errorf("valid UTF-8: %d %s", w.Code, w.Body)
	}
}

// TestStringMaxLengthIsAnInvalidParam: a declared maximum length is
// checked in characters, not bytes.
func TestStringMaxLengthIsAnInvalidParam(t *testing.T) {
	t.Parallel()
	s := textServer(t, nil, nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/echo?q=12345678901", nil))
	b := decodeErr(t, w)
	if w.Code != 400 || b.Code != "rest_invalid_param" || b.Data.Params["q"] != "q must be at most 10 characters long" {
		t.Errorf("11 characters: %d %+v", w.Code, b)
	}
	w = httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/echo?q="+strings.Repeat("%C3%A9", 10), nil))
	if w.Code != 200 {
		t.Errorf("10 two-byte characters: %d %s", w.Code, w.Body)
	}
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClientDisconnectIsNotLoggedAsAnError: a request whose client went
// away is logged at DEBUG only, so that clients cannot flood the log.
func TestClientDisconnectIsNotLoggedAsAnError(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithCancel(context.Background())
	s := textServer(t, log, func(r *Request) (*Response, error) {
		cancel() // the client hangs up while the handler works
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/echo", nil).WithContext(ctx))
	if w.Code == http.StatusInternalServerError {
		t.Errorf("status 500 for a canceled request")
	}
	if got := logs.String(); got != "" {
		t.Errorf("logged at INFO or above: %s", got)
	}
}

// TestTypeErrorsComeBeforeRangeErrors: a value that is no number at all is
// "<name> is not of type integer", even where a sanitizer (absint) would
// have turned it into 0 and a range error; a number with trailing text is
// still sanitized (reference §3.3).
func TestTypeErrorsComeBeforeRangeErrors(t *testing.T) {
	t.Parallel()
	s := NewServer(Config{Names: DefaultNames(), Logger: slog.New(slog.DiscardHandler)})
	s.Register("svc/v2", "/things", &Route{Endpoints: []*Endpoint{{
		Methods: Readable,
		Handler: func(r *Request) (*Response, error) {
			return NewResponse(http.StatusOK, map[string]any{"page": r.Int("page")}), nil
		},
		Args: []*Arg{
			{Name: "page", Type: "integer", Default: int64(1), Minimum: Int(1), Sanitize: AbsInt},
			{Name: "per_page", Type: "integer", Minimum: Int(1), Maximum: Int(100), Sanitize: AbsInt},
			{Name: "count", Type: "integer", Minimum: Int(1)},
			{Name: "ratio", Type: "number", Minimum: Int(0)},
			{Name: "force", Type: "boolean"},
		},
	}}})
	for _, tt := range []struct{ query, param, reason string }{
		{"page=abc", "page", "page is not of type integer"},
		{"page=", "page", "page is not of type integer"},
		{"per_page=x1", "per_page", "per_page is not of type integer"},
		{"count=abc", "count", "count is not of type integer"},
		{"ratio=abc", "ratio", "ratio is not of type number"},
		{"force=maybe", "force", "force is not of type boolean"},
		{"page=0", "page", "page must be greater than 1 (inclusive)"},
		{"per_page=101", "per_page", "per_page must be between 1 (inclusive) and 100 (inclusive)"},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/things?"+tt.query, nil))
		b := decodeErr(t, w)
		if w.Code != 400 || b.Code != "rest_invalid_param" || b.Data.Params[tt.param] != tt.reason {
			t.Errorf("%s: %d %+v, want %q", tt.query, w.Code, b, tt.reason)
		}
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "http://example.test/api/svc/v2/things?page=12abc", nil))
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"page":12`) {
		t.Errorf("page=12abc: %d %s", w.Code, w.Body)
	}
}

// TestCanceledAnswerIsNeverCached: the answer to a request whose client
// went away is not kept by the response cache, so the next caller of the
// same URL gets the real answer.
func TestCanceledAnswerIsNeverCached(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	s := NewServer(Config{Names: DefaultNames(), Logger: slog.New(slog.DiscardHandler),
		Cache: &CacheConfig{Version: func(context.Context) (int64, error) { return 1, nil }}})
	s.Register("svc/v2", "/echo", &Route{Endpoints: []*Endpoint{{Methods: Readable,
		Handler: func(r *Request) (*Response, error) {
			if calls.Add(1) == 1 {
				return nil, fmt.Errorf("list: %w", context.Canceled)
			}
			return NewResponse(http.StatusOK, map[string]any{"ok": true}), nil
		}}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	first := httptest.NewRecorder()
	s.ServeHTTP(first, httptest.NewRequest("GET", "http://example.test/api/svc/v2/echo", nil).WithContext(ctx))
	if first.Code != StatusClientClosedRequest {
		t.Fatalf("canceled request: %d", first.Code)
	}
	second := httptest.NewRecorder()
	s.ServeHTTP(second, httptest.NewRequest("GET", "http://example.test/api/svc/v2/echo", nil))
	if second.Code != http.StatusOK {
		t.Fatalf("the next caller got %d %s: the canceled answer was cached", second.Code, second.Body)
	}
}
