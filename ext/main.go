package ext

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
)

// Main runs a custom folio binary with the extensions added with Use. It
// understands `serve` (the default) and `migrate`, with the stock binary's
// --data, --database, --config, --addr and --compat flags and FOLIO_*
// environment variables; manage users and application passwords with the
// stock `folio` binary on the same data. Main exits the process.
func Main() {
	if err := Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}

// Run is Main without the exit: it runs the command in args until ctx
// ends or SIGINT/SIGTERM arrives.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "migrate") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o config.Overrides
	fs.StringVar(&o.DataDir, "data", "", "data directory (env FOLIO_DATA; default ./folio-data)")
	fs.StringVar(&o.DatabaseURL, "database", "", "database URL or SQLite file (env FOLIO_DATABASE_URL)")
	fs.StringVar(&o.ConfigFile, "config", "", "config file (env FOLIO_CONFIG)")
	fs.StringVar(&o.Addr, "addr", "", "listen address (env FOLIO_ADDR; default 127.0.0.1:8080)")
	fs.StringVar(&o.Compat, "compat", "", `"wordpress" serves the WordPress names (env FOLIO_COMPAT)`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.Resolve(o, os.Getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if cmd == "migrate" {
		st, err := server.OpenStore(ctx, cfg)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "database is up to date")
		return st.Close()
	}
	srv, err := server.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	return srv.Serve(ctx, ln)
}
