package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/reqlog"
	"github.com/folio-server/folio/internal/server"
	"github.com/spf13/cobra"
)

// DefaultMemoryLimit is the Go runtime's soft memory limit of `folio
// serve`, unless GOMEMLIMIT is set. It is the binary's choice: the server
// package leaves the runtime alone.
const DefaultMemoryLimit = 128 << 20

func newServeCmd(exts []extension.Extension) *cobra.Command {
	var f siteFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the site and its REST API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				// A soft limit makes the collector work harder before the
				// heap grows past it, which keeps RSS flat under load; the
				// caches are bounded well below it. GOMEMLIMIT overrides it.
				debug.SetMemoryLimit(DefaultMemoryLimit)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			level := new(slog.LevelVar)
			logger := newServeLogger(cmd.ErrOrStderr(), cfg.Log, level)
			// Listen first, so that a port in use is reported before the
			// data directory is created or migrated.
			ln, err := net.Listen("tcp", cfg.Addr)
			if err != nil {
				return listenError(cfg.Addr, err)
			}
			defer ln.Close()
			var mln net.Listener
			if cfg.Server.MetricsAddr != "" {
				if mln, err = net.Listen("tcp", cfg.Server.MetricsAddr); err != nil {
					return fmt.Errorf("listen for metrics on %s (--metrics-addr): %w", cfg.Server.MetricsAddr, err)
				}
				defer mln.Close()
			}
			created := server.NewSiteDir(cfg)
			srv, err := server.NewWith(ctx, cfg, logger, exts...)
			if err != nil {
				return err
			}
			defer srv.Close()
			// SIGHUP reloads what can change at run time; it is caught
			// before the listening line, so that whoever waits for that
			// line may send it.
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			go func() {
				for {
					select {
					case <-ctx.Done():
						return
					case <-hup:
						reloadConfig(&f, cfg, level, srv, logger)
					}
				}
			}()
			var metricsDone chan error
			if mln != nil {
				metricsDone = make(chan error, 1)
				go func() { metricsDone <- srv.ServeMetrics(ctx, mln) }()
			}
			fmt.Fprintf(cmd.OutOrStdout(), "listening on http://%s\n", ln.Addr())
			if mln != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "metrics on http://%s%s\n", mln.Addr(), server.MetricsPath)
			}
			if created != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "created new site in %s\n", created)
			}
			srv.Greeting(cmd.ErrOrStderr(), ln.Addr(), commandName())
			err = srv.Serve(ctx, ln)
			if metricsDone != nil {
				stop()
				if merr := <-metricsDone; merr != nil && err == nil {
					err = merr
				}
			}
			if err != nil {
				return err
			}
			logger.Info("stopped")
			return nil
		},
	}
	f.add(cmd, true)
	return cmd
}

// newServeLogger returns serve's logger: text or JSON lines on w (as c
// says) at the level held by level, set from c, each line of a request
// naming its request id.
func newServeLogger(w io.Writer, c config.Log, level *slog.LevelVar) *slog.Logger {
	level.Set(c.SlogLevel())
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	if c.Format == config.LogJSON {
		h = slog.NewJSONHandler(w, opts)
	} else {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(reqlog.NewHandler(h))
}

// reloadConfig is serve's answer to SIGHUP: it resolves the configuration
// again (flags, environment, file) and applies what can change at run
// time: the log level and the CORS settings. A configuration that does
// not load leaves everything as it was. Settings that need a restart and
// changed are named in a warning.
func reloadConfig(f *siteFlags, running *config.Config, level *slog.LevelVar, srv *server.Server, logger *slog.Logger) {
	cfg, err := f.config()
	if err != nil {
		logger.Error("reloading the configuration failed; the running settings stay", "err", err)
		return
	}
	level.Set(cfg.Log.SlogLevel())
	srv.Reload(cfg)
	logger.Info("configuration reloaded", "log_level", cfg.Log.Level, "cors_allowed_origins", cfg.CORS.AllowedOrigins)
	if changed := restartSettings(running, cfg); len(changed) > 0 {
		logger.Warn("changed settings take effect on restart only", "settings", changed)
	}
}

// restartSettings names the settings that differ between the running
// configuration and a reloaded one and that only a restart applies
// (the most common ones: where the site listens and keeps its data, the
// names, the log format and the metrics address).
func restartSettings(old, cfg *config.Config) []string {
	var out []string
	for _, s := range []struct {
		name     string
		was, now string
	}{
		{"addr", old.Addr, cfg.Addr},
		{"data_dir", old.DataDir, cfg.DataDir},
		{"database_url", old.DatabaseURL, cfg.DatabaseURL},
		{"compat", old.Compat, cfg.Compat},
		{"media.url", old.Media.URL, cfg.Media.URL},
		{"site.url", old.Site.URL, cfg.Site.URL},
		{"log.format", old.Log.Format, cfg.Log.Format},
		{"server.metrics_addr", old.Server.MetricsAddr, cfg.Server.MetricsAddr},
	} {
		if s.was != s.now {
			out = append(out, s.name)
		}
	}
	return out
}

// listenError explains a failure to listen on addr.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen on %s: the address is already in use (is another folio serve running?); stop that program or pick another address with --addr, e.g. --addr 127.0.0.1:8081: %w", addr, err)
	}
	return fmt.Errorf("listen on %s: %w", addr, err)
}

// commandName returns how the person ran this program, for hints they can
// copy: "go run ./cmd/folio" under `go run` (whose binary lives in a
// temporary build directory), else the name they typed.
func commandName() string {
	exe, _ := os.Executable()
	arg0 := ""
	if len(os.Args) > 0 {
		arg0 = os.Args[0]
	}
	return commandNameFor(exe, arg0)
}

// commandNameFor is commandName for the executable's path exe and the
// program name arg0 as typed.
func commandNameFor(exe, arg0 string) string {
	if filepath.Base(filepath.Dir(exe)) == "exe" && strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/folio"
	}
	if arg0 != "" {
		return shellWord(arg0)
	}
	return "folio"
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
