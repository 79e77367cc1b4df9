package extension_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/storetest"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
)

// env is a whole Folio server over a fresh SQLite data directory, built
// with the given extensions, with one user per role (login = role).
type env struct {
	t    *testing.T
	srv  *server.Server
	http *httptest.Server
	rec  *hooks.Recorder
	pass map[string]string
	ids  map[string]int64
}

// extFunc is an extension made of a Register function.
type extFunc func(api *extension.API) error

func (f extFunc) Name() string                      { return "test" }
func (f extFunc) Register(api *extension.API) error { return f(api) }

func newEnv(t *testing.T, mutate func(*config.Config), exts ...extension.Extension) *env {
	t.Helper()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	off := false
	cfg.Limits.RateLimits = &off // the suite calls faster than any person
	if mutate != nil {
		mutate(cfg)
	}
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewWith(context.Background(), cfg, nil, exts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e := &env{t: t, srv: srv, rec: &hooks.Recorder{}, pass: map[string]string{}, ids: map[string]int64{}}
	e.http = httptest.NewServer(srv.Handler())
	t.Cleanup(e.http.Close)
	for _, role := range []string{"administrator", "editor", "author", "contributor", "subscriber"} {
		e.addUser(role, role)
	}
	srv.Extensions().Hooks.Record(e.rec)
	return e
}

func (e *env) addUser(login, role string) {
	ctx := context.Background()
	st := e.srv.Store()
	u := &store.User{Login: login, Email: login + "@example.com", DisplayName: login, Nicename: login, Registered: time.Now().UTC(), Roles: []string{role}}
	if err := st.InsertUser(ctx, u); err != nil {
		e.t.Fatal(err)
	}
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := st.InsertAppPassword(ctx, &store.AppPassword{UUID: fmt.Sprintf("uuid-%d", u.ID), UserID: u.ID, Name: "t", Hash: hash, Created: time.Now().UTC()}); err != nil {
		e.t.Fatal(err)
	}
	e.pass[login], e.ids[login] = plain, u.ID
}

type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *resp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("not an object: %s", r.Body)
	}
	return m
}

func (r *resp) arr(t *testing.T) []any {
	t.Helper()
	var a []any
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatalf("not an array: %s", r.Body)
	}
	return a
}

// do sends a request as login ("" = anonymous) with an optional JSON body.
func (e *env) do(method, path, login string, body any) *resp {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.http.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if login != "" {
		req.SetBasicAuth(login, e.pass[login])
	}
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &resp{Status: res.StatusCode, Header: res.Header, Body: b}
}

func (e *env) want(r *resp, status int) {
	e.t.Helper()
	if r.Status != status {
		e.t.Fatalf("status = %d, want %d: %s", r.Status, status, r.Body)
	}
}

// upload sends a raw file body to /media as login.
func (e *env) upload(login, name, ctype string, data []byte) *resp {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.http.URL+"/api/svc/v2/media", bytes.NewReader(data))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	req.SetBasicAuth(login, e.pass[login])
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &resp{Status: res.StatusCode, Header: res.Header, Body: b}
}
