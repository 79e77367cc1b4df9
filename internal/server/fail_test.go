package server

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/store"
)

// TestPageFailures checks the error boundary of the site's own pages: a
// database or storage outage is 503 with Retry-After, anything else 500,
// neither carries the cause's text, and each is logged once with its cause
// and request id.
func TestPageFailures(t *testing.T) {
	const secret = "dial tcp 10.0.0.7:5432: connection refused"
	cases := []struct {
		err    error
		status int
	}{
		{fmt.Errorf("get option: %w: %s", store.ErrUnavailable, secret), 503},
		{fmt.Errorf("sign out: %w: %s", store.ErrBusy, secret), 503},
		{fmt.Errorf("open blob: %w: %s", media.ErrUnavailable, secret), 503},
		{errors.New(secret), 500},
	}
	for _, c := range cases {
		var logs bytes.Buffer
		s := &Server{logger: slog.New(reqlog.NewHandler(slog.NewTextHandler(&logs, nil)))}
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/wp-uploads/x.png", nil)
		r = r.WithContext(reqlog.NewContext(r.Context(), &reqlog.Info{ID: "req-7"}))
		s.fail(w, r, "serving upload", c.err)
		if w.Code != c.status || strings.Contains(w.Body.String(), "10.0.0.7") {
			t.Errorf("%v: %d %q, want %d without the cause", c.err, w.Code, w.Body, c.status)
		}
		if got := w.Header().Get("Retry-After"); (got != "") != (c.status == 503) {
			t.Errorf("%v: Retry-After %q", c.err, got)
		}
		if strings.Count(logs.String(), "\n") != 1 || !strings.Contains(logs.String(), "10.0.0.7") || !strings.Contains(logs.String(), "request_id=req-7") {
			t.Errorf("%v: want one log line with the cause and request id, got %q", c.err, logs.String())
		}
	}
}
