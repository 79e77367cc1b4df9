package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store/postgres"
)

// benchSite is the seeded site a run measures.
type benchSite struct {
	// args name the site to `folio` commands (--data DIR or --database URL).
	args    []string
	backend string
	// ids are the seeded posts' ids.
	ids []int64
	// appPass is an application password of the benchmark's administrator.
	appPass string
	// dbFile is the SQLite database file; dbURL the PostgreSQL schema's
	// URL. One of them is set.
	dbFile, dbURL string
}

// prepareSite seeds a site for the run (or finds the one opts.Keep holds),
// creates the benchmark's administrator and an application password for
// it. cleanup removes what the run must not leave behind; it is never nil.
func prepareSite(ctx context.Context, opts Options, logf func(string, ...any)) (site *benchSite, cleanup func(), err error) {
	var undo []func()
	cleanup = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	backend := "SQLite"
	if opts.Database != "" {
		backend = "PostgreSQL"
	}
	dir := opts.Keep
	var kept *keptSite
	if dir != "" {
		if kept, err = readKept(dir); err != nil {
			return nil, cleanup, err
		}
		if kept != nil && (kept.Backend != backend || kept.Posts != opts.Posts) {
			return nil, cleanup, fmt.Errorf("keep %s: holds %d posts on %s, not %d on %s: name another directory", dir, kept.Posts, kept.Backend, opts.Posts, backend)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, cleanup, fmt.Errorf("keep: %w", err)
		}
	} else {
		tmp, err := os.MkdirTemp("", "folio-bench-")
		if err != nil {
			return nil, cleanup, fmt.Errorf("create temp dir: %w", err)
		}
		undo = append(undo, func() { os.RemoveAll(tmp) })
		dir = tmp
	}

	where := dir
	if kept != nil && kept.Database != "" {
		where = kept.Database
	} else if kept == nil && opts.Database != "" {
		u, drop, err := postgres.TempSchema(ctx, opts.Database, "folio_bench")
		if err != nil {
			return nil, cleanup, err
		}
		if opts.Keep == "" {
			undo = append(undo, func() {
				if err := drop(); err != nil {
					logf("drop benchmark schema: %v", err)
				}
			})
		}
		where = u
	}
	site = &benchSite{args: []string{"--data", dir}, backend: backend, dbFile: filepath.Join(dir, config.DatabaseFile)}
	if opts.Database != "" {
		site.args = []string{"--database", where}
		site.dbFile, site.dbURL = "", where
	}

	if kept != nil {
		logf("measuring the site kept in %s (%d posts seeded)", opts.Keep, kept.Posts)
		site.ids = expandRanges(kept.IDs)
	} else {
		logf("seeding %d posts in %s", opts.Posts, where)
		t0 := time.Now()
		if site.ids, err = seed(ctx, opts, where); err != nil {
			return nil, cleanup, err
		}
		logf("seeded in %s", time.Since(t0).Round(time.Millisecond))
		if opts.Database != "" {
			// A site that grew to this size would have been vacuumed
			// and analyzed by autovacuum long since; the bulk load has
			// not been yet.
			t0 := time.Now()
			if err := postgres.VacuumAnalyze(ctx, where); err != nil {
				return nil, cleanup, err
			}
			logf("vacuumed and analyzed in %s", time.Since(t0).Round(time.Millisecond))
		}
		if err := runCLI(ctx, opts.Exe, append([]string{"user", "create", "--login", adminLogin,
			"--email", adminEmail, "--password", "bench-" + randomToken(), "--role", "administrator"}, site.args...)...); err != nil {
			return nil, cleanup, err
		}
		if opts.Keep != "" {
			k := &keptSite{Backend: backend, Posts: opts.Posts, IDs: idRanges(site.ids)}
			if opts.Database != "" {
				k.Database = where
			}
			if err := writeKept(opts.Keep, k); err != nil {
				return nil, cleanup, err
			}
		}
	}
	out, err := cliOutput(ctx, opts.Exe, append([]string{"user", "app-password", "--login", adminLogin, "--name", "bench"}, site.args...)...)
	if err != nil {
		return nil, cleanup, err
	}
	site.appPass = lastLine(out)
	if opts.Keep != "" {
		undo = append(undo, func() { logf("the site stays in %s: folio serve %s %s", opts.Keep, site.args[0], site.args[1]) })
	}
	return site, cleanup, nil
}
