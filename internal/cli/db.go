package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/spf13/cobra"
)

func newDBCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Database tools",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newDBCopyCmd())
	return cmd
}

func newDBCopyCmd() *cobra.Command {
	var (
		f        siteFlags
		from, to string
	)
	cmd := &cobra.Command{
		Use:   "copy",
		Short: "Copy a whole site from one database to another (SQLite ↔ PostgreSQL)",
		Long: `Copy every table of a site, ids preserved and id counters advanced, into a
new database. --from and --to each take a postgres:// URL, a SQLite file or a
data directory (its folio.db). Both databases are migrated first; the
destination must not have any posts, users or comments yet. The copy is one
transaction on the destination: all or nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return errors.New("both --from and --to are required")
			}
			base, err := f.config()
			if err != nil {
				return err
			}
			n, tables, err := copySite(cmd.Context(), base, from, to)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "copied %d rows of %d tables\n", n, tables)
			return nil
		},
	}
	f.addPool(cmd)
	cmd.Flags().StringVar(&from, "from", "", "source: postgres:// URL, SQLite file or data directory (required)")
	cmd.Flags().StringVar(&to, "to", "", "destination: postgres:// URL, SQLite file or data directory (required)")
	return cmd
}

// siteConfig returns base with the database set to where: a postgres://
// URL, a SQLite file (a path ending in .db, .sqlite or .sqlite3 that is not
// a directory) or else a data directory, created when missing.
func siteConfig(base *config.Config, where string) (*config.Config, error) {
	if err := config.CheckDatabaseScheme(where); err != nil {
		return nil, err
	}
	c := *base
	c.DatabaseURL = where
	if strings.HasPrefix(where, "postgres://") || strings.HasPrefix(where, "postgresql://") {
		return &c, nil
	}
	st, err := os.Stat(where)
	isDir := err == nil && st.IsDir()
	switch filepath.Ext(where) {
	case ".db", ".sqlite", ".sqlite3":
		if !isDir {
			return &c, nil
		}
	}
	c.DatabaseURL = filepath.Join(where, config.DatabaseFile)
	return &c, nil
}

// copyBatch is how many rows go to the destination at once.
const copyBatch = 500

// copySite copies every table of the site at from into the empty site at
// to and returns how many rows and tables it copied.
func copySite(ctx context.Context, base *config.Config, from, to string) (rows int64, tables int, err error) {
	srcCfg, err := siteConfig(base, from)
	if err != nil {
		return 0, 0, fmt.Errorf("--from: %w", err)
	}
	dstCfg, err := siteConfig(base, to)
	if err != nil {
		return 0, 0, fmt.Errorf("--to: %w", err)
	}
	if srcCfg.DatabasePath() == dstCfg.DatabasePath() {
		return 0, 0, errors.New("--from and --to name the same database")
	}
	if !srcCfg.IsPostgres() {
		if _, err := os.Stat(srcCfg.DatabasePath()); err != nil {
			return 0, 0, fmt.Errorf("source: %w", err)
		}
	}
	src, err := server.OpenStore(ctx, srcCfg)
	if err != nil {
		return 0, 0, fmt.Errorf("source: %w", err)
	}
	defer src.Close()
	dst, err := server.OpenStore(ctx, dstCfg)
	if err != nil {
		return 0, 0, fmt.Errorf("destination: %w", err)
	}
	defer func() {
		if cerr := dst.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close destination: %w", cerr)
		}
	}()
	sc, ok1 := src.(store.Copier)
	dc, ok2 := dst.(store.Copier)
	if !ok1 || !ok2 {
		return 0, 0, errors.New("this database cannot be copied")
	}
	if err := checkEmpty(ctx, dst); err != nil {
		return 0, 0, err
	}
	list, err := sc.CopyTables(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("source: %w", err)
	}
	dstList, err := dc.CopyTables(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("destination: %w", err)
	}
	if a, b := slices.Sorted(slices.Values(list)), slices.Sorted(slices.Values(dstList)); !slices.Equal(a, b) {
		return 0, 0, fmt.Errorf("the databases have different tables (source: %s; destination: %s)",
			strings.Join(a, ", "), strings.Join(b, ", "))
	}
	last, err := sc.LastIDs(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("source: %w", err)
	}
	load := func(ctx context.Context) error {
		return dc.Import(ctx, func(im store.Importer) error {
			for _, table := range list {
				var cols []string
				var batch [][]any
				flush := func() error {
					if len(batch) == 0 {
						return nil
					}
					if err := im.InsertRows(ctx, table, cols, batch); err != nil {
						return err
					}
					rows += int64(len(batch))
					batch = batch[:0]
					return nil
				}
				err := sc.ExportRows(ctx, table, func(c []string, row []any) error {
					cols = c
					batch = append(batch, slices.Clone(row))
					if len(batch) >= copyBatch {
						return flush()
					}
					return nil
				})
				if err != nil {
					return fmt.Errorf("copy %s: %w", table, err)
				}
				if err := flush(); err != nil {
					return fmt.Errorf("copy %s: %w", table, err)
				}
			}
			for _, table := range list {
				if id, ok := last[table]; ok {
					if err := im.SetLastID(ctx, table, id); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	if bl, ok := dst.(store.BulkLoader); ok {
		err = bl.BulkLoad(ctx, load)
	} else {
		err = load(ctx)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("copy into destination: %w", err)
	}
	return rows, len(list), nil
}

// checkEmpty refuses a destination that already has a site.
func checkEmpty(ctx context.Context, st store.Store) error {
	posts, err := st.CountPosts(ctx, store.PostQuery{})
	if err != nil {
		return fmt.Errorf("destination: %w", err)
	}
	users, err := st.CountUsers(ctx, store.UserQuery{})
	if err != nil {
		return fmt.Errorf("destination: %w", err)
	}
	comments, err := st.CountComments(ctx, store.CommentQuery{})
	if err != nil {
		return fmt.Errorf("destination: %w", err)
	}
	if posts+users+comments > 0 {
		return fmt.Errorf("the destination already has %d posts, %d users and %d comments; copy only into a new database", posts, users, comments)
	}
	return nil
}
