package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/sqlite"
	"github.com/spf13/cobra"
)

// doctorStore is what folio doctor reads from a store it opened without
// migrating it.
type doctorStore interface {
	store.Store
	store.Inspector
	SchemaVersion(ctx context.Context) (current, latest int64, err error)
}

// maxOrphansShown bounds the orphaned upload files doctor names.
const maxOrphansShown = 20

func newDoctorCmd() *cobra.Command {
	var f siteFlags
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check a site: database integrity, migrations, orphaned uploads, webhook backlog, table sizes",
		Long: `Report on a site without changing it (no migration is applied): the
database's integrity (SQLite's PRAGMA integrity_check and foreign key check),
whether its schema is this binary's, the row count of every table, the
webhook outbox's backlog and the oldest webhook event kept, and upload files
that no media record owns. It exits 1 when the database fails its integrity
check or its schema is not this binary's. Safe while the server runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			return doctor(cmd.Context(), cfg, cmd.OutOrStdout(), time.Now())
		},
	}
	f.add(cmd, false)
	return cmd
}

// errDoctor is returned when doctor found a problem it reported.
var errDoctor = errors.New("doctor found problems (see above)")

// doctor writes its report on the site of cfg to w.
func doctor(ctx context.Context, cfg *config.Config, w io.Writer, now time.Time) error {
	var st doctorStore
	failed := false
	if cfg.IsPostgres() {
		db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.Options{MaxConns: 2, ConnectTimeout: cfg.DB.ConnectTimeout})
		if err != nil {
			return fmt.Errorf("open database %s: %w", config.RedactURL(cfg.DatabaseURL), err)
		}
		defer db.Close()
		st = db
		fmt.Fprintf(w, "database: PostgreSQL %s\n", config.RedactURL(cfg.DatabaseURL))
		fmt.Fprintln(w, "integrity: not checked by folio on PostgreSQL (use pg_amcheck)")
		off, err := db.VacuumOff(ctx)
		if err != nil {
			return err
		}
		reportVacuum(w, off)
	} else {
		path := cfg.DatabasePath()
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no site database at %s (give --data DIR or --database FILE)", path)
		}
		fmt.Fprintf(w, "database: SQLite %s\n", path)
		problems, err := sqlite.IntegrityCheck(ctx, path)
		if err != nil {
			return err
		}
		if len(problems) == 0 {
			fmt.Fprintln(w, "integrity: ok")
		} else {
			failed = true
			fmt.Fprintf(w, "integrity: FAILED (%d problems)\n", len(problems))
			for i, p := range problems {
				if i == maxOrphansShown {
					fmt.Fprintf(w, "  … and %d more\n", len(problems)-i)
					break
				}
				fmt.Fprintf(w, "  %s\n", p)
			}
		}
		db, err := sqlite.Open(ctx, path, sqlite.Options{MaxOpenConns: 2})
		if err != nil {
			return fmt.Errorf("open database %s: %w", path, err)
		}
		defer db.Close()
		st = db
	}
	cur, latest, err := st.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	switch {
	case cur == latest:
		fmt.Fprintf(w, "schema: version %d, current\n", cur)
	case cur < latest:
		failed = true
		fmt.Fprintf(w, "schema: version %d, behind this binary's %d (run folio migrate)\n", cur, latest)
	default:
		failed = true
		fmt.Fprintf(w, "schema: version %d, newer than this binary's %d (upgrade folio)\n", cur, latest)
	}
	if cur < latest {
		return errDoctor // the tables read below may not exist yet
	}
	in, err := st.Inspect(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "tables (rows):")
	for _, t := range in.Tables {
		fmt.Fprintf(w, "  %-24s %d\n", t.Name, t.Rows)
	}
	if in.PendingDeliveries == 0 {
		fmt.Fprintln(w, "webhook outbox: no pending deliveries")
	} else {
		fmt.Fprintf(w, "webhook outbox: %d pending deliveries, the oldest created %s (%s ago)\n",
			in.PendingDeliveries, in.OldestPending.Format(time.RFC3339), age(now, in.OldestPending))
	}
	if in.OldestEvent.IsZero() {
		fmt.Fprintln(w, "oldest webhook event: none kept")
	} else {
		fmt.Fprintf(w, "oldest webhook event: %s (%s ago)\n", in.OldestEvent.Format(time.RFC3339), age(now, in.OldestEvent))
	}
	if err := reportOrphans(ctx, cfg, st, w); err != nil {
		return err
	}
	if failed {
		return errDoctor
	}
	return nil
}

// reportVacuum says whether autovacuum reaches the site's tables (off
// names "server" and the tables it is turned off for). Off is a warning,
// not a failure: the site works, but the rows that its counts and
// rate-limit buckets leave behind on every write are never reclaimed.
func reportVacuum(w io.Writer, off []string) {
	if len(off) == 0 {
		fmt.Fprintln(w, "autovacuum: on")
		return
	}
	what := make([]string, len(off))
	for i, o := range off {
		what[i] = "table " + o
		if o == "server" {
			what[i] = "the server (autovacuum or track_counts)"
		}
	}
	fmt.Fprintf(w, "autovacuum: OFF for %s; warning: post_counts, term_counts, term_post_counts, author_post_counts, comment_counts, search_kept_counts, rate_limits and sessions change rows on most writes and requests, and without vacuum the old versions of those rows are never reclaimed (turn autovacuum on)\n", strings.Join(what, ", "))
}

// orphanBatch is how many upload files doctor looks up in one query.
const orphanBatch = 500

// reportOrphans names the files of a local uploads directory that no
// media record owns (nor an upload in flight).
func reportOrphans(ctx context.Context, cfg *config.Config, st store.MediaStore, w io.Writer) error {
	if localUploads(cfg) != nil {
		fmt.Fprintln(w, "uploads: kept in a bucket, not checked")
		return nil
	}
	dir := cfg.UploadsDir()
	files, orphans := 0, []string{}
	// The files are looked up in the store a batch at a time.
	var batch []string
	check := func() error {
		known, err := st.MediaPathsKnown(ctx, batch)
		if err != nil {
			return err
		}
		for _, rel := range batch {
			if !known[rel] {
				orphans = append(orphans, rel)
			}
		}
		batch = batch[:0]
		return nil
	}
	err := walkUploads(dir, func(rel, _ string) error {
		files++
		batch = append(batch, rel)
		if len(batch) == orphanBatch {
			return check()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = check()
	}
	if err != nil {
		return fmt.Errorf("check uploads: %w", err)
	}
	fmt.Fprintf(w, "uploads: %d files in %s, %d orphaned (no media record owns them)\n", files, dir, len(orphans))
	for i, o := range orphans {
		if i == maxOrphansShown {
			fmt.Fprintf(w, "  … and %d more\n", len(orphans)-i)
			break
		}
		fmt.Fprintf(w, "  %s\n", o)
	}
	return nil
}

// age says how long ago t was, rounded for reading.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	case d >= time.Hour:
		return d.Round(time.Hour).String()
	}
	return d.Round(time.Second).String()
}
