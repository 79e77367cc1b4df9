package main

import (
	"log/slog"
	"os"

	"github.com/folio-server/folio/internal/config"
	"github.com/spf13/cobra"
)

// newRootCmd builds the whole command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "folio",
		Short:         "Folio is a single-binary content server with a REST API",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newServeCmd(),
		newMigrateCmd(),
		newVersionCmd(),
		newUserCmd(),
		newBenchCmd(),
		newBenchHelloCmd(),
	)
	return root
}

// siteFlags are the flags every command that touches the site shares.
type siteFlags struct {
	o config.Overrides
}

// add registers --data, --database and --config on cmd; withServe adds
// --addr and --compat too.
func (f *siteFlags) add(cmd *cobra.Command, withServe bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.o.DataDir, "data", "", "data directory (env FOLIO_DATA; default ./folio-data)")
	fl.StringVar(&f.o.DatabaseURL, "database", "", "database URL or SQLite file (env FOLIO_DATABASE_URL; default DATA/folio.db)")
	fl.StringVar(&f.o.ConfigFile, "config", "", "config file (env FOLIO_CONFIG)")
	if withServe {
		fl.StringVar(&f.o.Addr, "addr", "", "listen address (env FOLIO_ADDR; default 127.0.0.1:8080)")
		fl.StringVar(&f.o.Compat, "compat", "", `"wordpress" serves the WordPress names (env FOLIO_COMPAT)`)
	}
}

// config resolves the configuration from the flags, the environment and
// the config file.
func (f *siteFlags) config() (*config.Config, error) {
	return config.Resolve(f.o, os.Getenv)
}

// newLogger returns the logger commands write diagnostics with (stderr).
func newLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, nil))
}
