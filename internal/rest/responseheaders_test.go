package rest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/rest"
)

func TestResponseHeadersHookAddsHeadersAfterAuthentication(t *testing.T) {
	t.Parallel()
	var seen []*auth.User
	fail := false
	s := rest.NewServer(rest.Config{
		Authenticate: func(r *http.Request) (*auth.User, error) {
			if fail {
				return nil, &auth.Error{Code: "rest_cookie_invalid_nonce", Message: "Cookie nonce is invalid", Status: 403}
			}
			if r.Header.Get("X-Who") == "ed" {
				return auth.NewTestUser(7, "editor"), nil
			}
			return nil, nil
		},
		ResponseHeaders: func(r *http.Request, u *auth.User) http.Header {
			seen = append(seen, u)
			if u == nil {
				return nil
			}
			return http.Header{"X-Api-Nonce": {"abcdef0123"}}
		},
	})
	s.Register("svc/v2", "/thing", &rest.Route{Endpoints: []*rest.Endpoint{{
		Methods: rest.Readable,
		Handler: func(r *rest.Request) (*rest.Response, error) {
			return rest.NewResponse(200, map[string]any{"ok": true}), nil
		},
	}}})
	get := func(who string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/api/svc/v2/thing", nil)
		r.Header.Set("X-Who", who)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		return rec
	}
	if rec := get("ed"); rec.Code != 200 || rec.Header().Get("X-API-Nonce") != "abcdef0123" {
		t.Errorf("signed in: %d %v", rec.Code, rec.Header())
	}
	if rec := get(""); rec.Code != 200 || rec.Header().Get("X-API-Nonce") != "" {
		t.Errorf("anonymous: %d %v", rec.Code, rec.Header())
	}
	if len(seen) != 2 || seen[0].ID() != 7 || seen[1] != nil {
		t.Errorf("hook saw %v", seen)
	}
	fail = true
	if rec := get("ed"); rec.Code != 403 || rec.Header().Get("X-API-Nonce") != "" || len(seen) != 2 {
		t.Errorf("authentication error: %d %v (hook calls %d)", rec.Code, rec.Header(), len(seen))
	}
}
