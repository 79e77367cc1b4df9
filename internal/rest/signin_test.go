package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// TestWriteRunsAgainWhenItsKeptSignInMoved: with DeferSignIn, a write
// signed in with Basic credentials, with a body the server can keep, is
// authenticated as one that may go on with a kept sign-in
// (store.SignInDeferred); when the user's check (store.SignInCheck),
// read before the answer, finds it moved on, the request runs again from
// its start, with the same body and its first run's answer and headers
// dropped, authenticated with the sign-in read. Reads, bodies of other
// kinds or of unknown length, and a server without DeferSignIn are never
// deferred.
func TestWriteRunsAgainWhenItsKeptSignInMoved(t *testing.T) {
	t.Parallel()
	moved, revoked := false, false
	var deferred []bool
	var runs []string
	newServer := func(deferOn bool) *rest.Server {
		s := rest.NewServer(rest.Config{
			DeferSignIn:  deferOn,
			MaxBodyBytes: 1 << 10,
			// Headers of the caller, set before the handler runs.
			ResponseHeaders: func(r *http.Request, u *auth.User) http.Header {
				if u != nil && u.ID() == 7 {
					return http.Header{"X-Kept-Caller": {"7"}}
				}
				return nil
			},
			Authenticate: func(r *http.Request) (*auth.User, error) {
				d := store.SignInDeferred(r.Context())
				deferred = append(deferred, d)
				if !d {
					if revoked {
						return nil, &auth.Error{Code: "rest_authentication_failed", Message: "no", Status: 401}
					}
					reqlog.SetUser(r.Context(), 8) // as the server's authenticator does
					return auth.NewTestUser(8, "editor"), nil
				}
				reqlog.SetUser(r.Context(), 7)
				kept := store.Generations{Auth: 1, Site: 1}
				return auth.NewTestUser(7, "editor").WithSignInCheck(&store.SignInCheck{Key: "k", Gen: kept,
					Read: func(context.Context) (store.Generations, store.LoginCounter, error) {
						if moved {
							return store.Generations{Auth: 2, Site: 1}, store.LoginCounter{}, nil
						}
						return kept, store.LoginCounter{}, nil
					}}), nil
			},
		})
		s.Register("svc/v2", "/thing", &rest.Route{Endpoints: []*rest.Endpoint{{
			Methods: rest.Readable,
			Handler: func(r *rest.Request) (*rest.Response, error) {
				runs = append(runs, "read")
				return rest.NewResponse(200, map[string]any{"user": r.User.ID()}), nil
			},
		}, {
			Methods: rest.Creatable,
			Args:    []*rest.Arg{{Name: "word", Type: "string"}},
			Handler: func(r *rest.Request) (*rest.Response, error) {
				word := r.String("word")
				runs = append(runs, word)
				resp := rest.NewResponse(201, map[string]any{"user": r.User.ID(), "word": word})
				if len(runs) == 1 {
					resp.SetHeader("X-First-Run", "yes")
				}
				return resp, nil
			},
		}}})
		return s
	}
	var info *reqlog.Info
	send := func(s *rest.Server, method, ctype, body string, length int64) (*httptest.ResponseRecorder, map[string]any) {
		t.Helper()
		deferred, runs = nil, nil
		info = &reqlog.Info{}
		r := httptest.NewRequest(method, "/api/svc/v2/thing", strings.NewReader(body))
		r = r.WithContext(reqlog.NewContext(r.Context(), info))
		r.SetBasicAuth("ed", "pw")
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		r.ContentLength = length
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s: %v: %s", method, err, rec.Body)
		}
		return rec, out
	}
	on := newServer(true)
	js := `{"word":"wren"}`

	// Held: one run, as the kept user.
	rec, out := send(on, "POST", "application/json", js, int64(len(js)))
	if rec.Code != 201 || out["user"] != float64(7) || len(runs) != 1 || len(deferred) != 1 || !deferred[0] {
		t.Fatalf("held: %d %v, runs %v, deferred %v", rec.Code, out, runs, deferred)
	}

	// Moved: a second run with the same body, answered alone.
	moved = true
	rec, out = send(on, "POST", "application/json", js, int64(len(js)))
	if rec.Code != 201 || out["user"] != float64(8) || out["word"] != "wren" {
		t.Fatalf("moved: %d %v", rec.Code, out)
	}
	if strings.Join(runs, ",") != "wren,wren" || len(deferred) != 2 || !deferred[0] || deferred[1] {
		t.Fatalf("moved: runs %v, deferred %v; want two runs, the second not deferred", runs, deferred)
	}
	if rec.Header().Get("X-First-Run") != "" || rec.Header().Get("X-Kept-Caller") != "" {
		t.Fatalf("the first run's headers were sent: %v", rec.Header())
	}
	rec, out = send(on, "POST", "application/x-www-form-urlencoded", "word=finch", 10)
	if rec.Code != 201 || out["word"] != "finch" || strings.Join(runs, ",") != "finch,finch" {
		t.Fatalf("moved, urlencoded: %d %v, runs %v", rec.Code, out, runs)
	}

	// Moved, and refused when read: the log line names no caller.
	revoked = true
	rec, out = send(on, "POST", "application/json", js, int64(len(js)))
	if rec.Code != 401 || out["code"] != "rest_authentication_failed" || strings.Join(runs, ",") != "wren" {
		t.Fatalf("revoked: %d %v, runs %v", rec.Code, out, runs)
	}
	if info.UserID != 0 {
		t.Fatalf("the log line of a refused second run names user %d", info.UserID)
	}
	revoked = false

	// Never deferred.
	for _, c := range []struct {
		name, method, ctype, body string
		length                    int64
	}{
		{"a read", "GET", "", "", 0},
		{"a multipart body", "POST", "multipart/form-data; boundary=x", "--x--", 5},
		{"a body of unknown length", "POST", "application/json", js, -1},
		{"a body past MaxBodyBytes", "POST", "application/json", `{"word":"` + strings.Repeat("w", 1100) + `"}`, 1112},
	} {
		send(on, c.method, c.ctype, c.body, c.length)
		if len(deferred) != 1 || deferred[0] {
			t.Errorf("%s: deferred %v", c.name, deferred)
		}
	}
	off := newServer(false)
	if rec, out := send(off, "POST", "application/json", js, int64(len(js))); rec.Code != 201 || out["user"] != float64(8) || len(deferred) != 1 || deferred[0] {
		t.Errorf("without DeferSignIn: %d %v, deferred %v", rec.Code, out, deferred)
	}
}
