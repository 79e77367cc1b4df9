// Package cli builds Folio's command-line interface (the cli.md contract):
// serve, migrate, version, user create/app-password/list, db copy, export
// wxr, import wxr, openapi, backup, restore, doctor, bench and the hidden
// bench-hello. The stock binary (cmd/folio) and
// custom binaries built with ext.Main run the same command tree; only the
// extensions serve (and export, for their post types and taxonomies) builds
// the site with differ.
package cli

import (
	"os"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/spf13/cobra"
)

// NewRootCmd builds the whole command tree. version is what `version`
// prints; serve builds the site with exts (none for the stock binary).
func NewRootCmd(version string, exts ...extension.Extension) *cobra.Command {
	root := &cobra.Command{
		Use:           "folio",
		Short:         "Folio is a single-binary content server with a REST API",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newServeCmd(exts),
		newMigrateCmd(),
		newVersionCmd(version),
		newUserCmd(),
		newBenchCmd(),
		newBenchHelloCmd(),
		newDBCmd(),
		newExportCmd(version, exts),
		newImportCmd(exts),
		newOpenAPICmd(exts),
		newBackupCmd(),
		newRestoreCmd(),
		newDoctorCmd(),
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
	f.addPool(cmd)
	if withServe {
		fl.StringVar(&f.o.Addr, "addr", "", "listen address (env FOLIO_ADDR; default 127.0.0.1:8080)")
		fl.StringVar(&f.o.Compat, "compat", "", `"wordpress" serves the WordPress names (env FOLIO_COMPAT)`)
		fl.StringVar(&f.o.CORSOrigins, "cors-origins", "", `origins allowed to call the API from a browser, comma-separated, or "*" (env FOLIO_CORS_ORIGINS; default none)`)
		fl.StringVar(&f.o.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, a listener apart from --addr (env FOLIO_METRICS_ADDR; default off)")
		fl.StringVar(&f.o.LogFormat, "log-format", "", `log format: "text" or "json" (env FOLIO_LOG_FORMAT; default text)`)
		fl.StringVar(&f.o.LogLevel, "log-level", "", "least severe level logged: debug, info, warn or error (env FOLIO_LOG_LEVEL; default info)")
		fl.StringVar(&f.o.MediaURL, "media-url", "", "upload storage: s3://bucket?endpoint=host:port&region=r or file:///dir (env FOLIO_MEDIA_URL; default DATA/uploads)")
	}
}

// addPool registers the connection pool flags on cmd.
func (f *siteFlags) addPool(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.o.DBMaxConns, "db-max-conns", 0, "most database connections per process (env FOLIO_DB_MAX_CONNS; default 4 per CPU, at least 8)")
	fl.IntVar(&f.o.DBMinConns, "db-min-conns", 0, "idle PostgreSQL connections kept open (env FOLIO_DB_MIN_CONNS; default 0)")
	fl.DurationVar(&f.o.DBMaxConnLifetime, "db-max-conn-lifetime", 0, "recycle PostgreSQL connections after this long (env FOLIO_DB_MAX_CONN_LIFETIME; default 1h)")
	fl.DurationVar(&f.o.DBConnectTimeout, "db-connect-timeout", 0, "give up connecting to PostgreSQL after this long (env FOLIO_DB_CONNECT_TIMEOUT; default 5s)")
}

// config resolves the configuration from the flags, the environment and
// the config file.
func (f *siteFlags) config() (*config.Config, error) {
	return config.Resolve(f.o, os.Getenv)
}
