package wxrimport_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/endpoints"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/wxrimport"
)

// fixtures is the folder of the real WordPress exports.
const fixtures = "../../testdata/wxr"

// env is a site on a fresh store (SQLite, or PostgreSQL when
// FOLIO_TEST_DATABASE_URL is set) with its REST API served over HTTP.
type env struct {
	t    testing.TB
	db   store.Store
	site *content.Site
	srv  *httptest.Server
}

func newEnv(t testing.TB, mutate ...func(*config.Config)) *env {
	t.Helper()
	db := storetest.Open(t)
	return newEnvOn(t, db, mutate...)
}

func newEnvOn(t testing.TB, db store.Store, mutate ...func(*config.Config)) *env {
	t.Helper()
	cfg := config.Default()
	cfg.Site.Title = "Imported"
	for _, m := range mutate {
		m(cfg)
	}
	site, err := content.NewSite(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := media.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	site.SetBlobs(blobs)
	basic := &auth.BasicAuth{Users: db, Apps: db, Roles: site.Roles(), Now: time.Now}
	rs := rest.NewServer(rest.Config{
		Names:          rest.DefaultNames(),
		SiteName:       cfg.Site.Title,
		MaxBodyBytes:   1 << 20,
		MaxUploadBytes: 4 << 20,
		Authenticate:   auth.Chain(basic),
		Cache:          &rest.CacheConfig{Version: db.Version},
	})
	endpoints.Register(rs, site)
	mux := http.NewServeMux()
	mux.Handle("/api/", rs)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &env{t: t, db: db, site: site, srv: srv}
}

// importFiles imports the fixture files (paths under testdata/wxr) with
// opts and returns the summary.
func (e *env) importFiles(ctx context.Context, opts wxrimport.Options, files ...string) (*wxrimport.Summary, error) {
	e.t.Helper()
	im, err := wxrimport.New(ctx, e.site, opts)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		fh, err := os.Open(filepath.Join(fixtures, f))
		if err != nil {
			e.t.Fatal(err)
		}
		st, _ := fh.Stat()
		err = im.Import(ctx, f, fh, st.Size())
		fh.Close()
		if err != nil {
			return im.Summary(), err
		}
	}
	return im.Finish(ctx)
}

func (e *env) mustImport(opts wxrimport.Options, files ...string) *wxrimport.Summary {
	e.t.Helper()
	sum, err := e.importFiles(context.Background(), opts, files...)
	if err != nil {
		e.t.Fatalf("import %v: %v", files, err)
	}
	return sum
}

// get fetches an API path anonymously and decodes the JSON body into out;
// it returns the response.
func (e *env) get(path string, out any) *http.Response {
	e.t.Helper()
	res, err := e.srv.Client().Get(e.srv.URL + "/api/svc/v2" + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			e.t.Fatalf("GET %s: %v: %s", path, err, body)
		}
	}
	return res
}
