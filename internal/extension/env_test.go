package extension_test

import (
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/hooks"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/testkit"
)

// env is a whole Folio server (internal/testkit) on the store
// FOLIO_TEST_DATABASE_URL names, built with the given extensions, with one
// user per role (login = role) and every hook recorded.
type env struct {
	*testkit.Site
	t   *testing.T
	srv *server.Server
	rec *hooks.Recorder
}

type resp = testkit.Response

// extFunc is an extension made of a Register function.
type extFunc func(api *extension.API) error

func (f extFunc) Name() string                      { return "test" }
func (f extFunc) Register(api *extension.API) error { return f(api) }

func newEnv(t *testing.T, mutate func(*config.Config), exts ...extension.Extension) *env {
	t.Helper()
	opts := []testkit.Option{testkit.Extensions(exts...)}
	if mutate != nil {
		opts = append(opts, testkit.Config(mutate))
	}
	s := testkit.New(t, opts...)
	e := &env{Site: s, t: t, srv: s.Server, rec: &hooks.Recorder{}}
	s.Server.Extensions().Hooks.Record(e.rec)
	return e
}

// do sends a request as login ("" = anonymous) with an optional JSON body.
func (e *env) do(method, path, login string, body any) *resp {
	e.t.Helper()
	if body == nil {
		return e.Do(method, path, login)
	}
	return e.Do(method, path, login, body)
}

func (e *env) want(r *resp, status int) {
	e.t.Helper()
	r.WantStatus(status)
}
