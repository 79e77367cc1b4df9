package wxrimport_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
	"github.com/folio-server/folio/internal/wxrimport"
)

// fixtures is the folder of the real WordPress exports.
const fixtures = "../../testdata/wxr"

// env is a site to import into: a whole server (internal/testkit) on a
// fresh store (SQLite, or PostgreSQL when FOLIO_TEST_DATABASE_URL is set),
// without users, or (bareSite) the content site alone on a store the test
// wraps.
type env struct {
	*testkit.Site // nil for a bare site
	t             testing.TB
	db            store.Store
	site          *content.Site
}

// newEnv starts a site titled "Imported" with no users (an import creates
// its authors), changed by opts.
func newEnv(t testing.TB, opts ...testkit.Option) *env {
	t.Helper()
	opts = append([]testkit.Option{testkit.NoUsers(), testkit.Config(func(c *config.Config) { c.Site.Title = "Imported" })}, opts...)
	s := testkit.New(t, opts...)
	return &env{Site: s, t: t, db: s.Store(), site: s.Server.Site()}
}

// bareSite is the content site alone on db, with uploads in a temporary
// folder: for a store the server cannot be given (one that fails on
// purpose), checked through the store only.
func bareSite(t testing.TB, db store.Store) *env {
	t.Helper()
	cfg := config.Default()
	cfg.Site.Title = "Imported"
	site, err := content.NewSite(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := media.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	site.SetBlobs(blobs)
	return &env{t: t, db: db, site: site}
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

// get fetches an API path anonymously and decodes the JSON body into out
// (when not nil); it returns the response.
func (e *env) get(path string, out any) *testkit.Response {
	e.t.Helper()
	r := e.Do("GET", e.API(path), "")
	if out != nil {
		r.Decode(out)
	}
	return r
}
