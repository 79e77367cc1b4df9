package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/folio-server/folio/internal/extension"
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
			logger := newLogger(cmd.ErrOrStderr())
			// Listen first, so that a port in use is reported before the
			// data directory is created or migrated.
			ln, err := net.Listen("tcp", cfg.Addr)
			if err != nil {
				return listenError(cfg.Addr, err)
			}
			defer ln.Close()
			created := server.NewSiteDir(cfg)
			srv, err := server.NewWith(ctx, cfg, logger, exts...)
			if err != nil {
				return err
			}
			defer srv.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "listening on http://%s\n", ln.Addr())
			if created != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "created new site in %s\n", created)
			}
			srv.Greeting(cmd.ErrOrStderr(), ln.Addr(), commandName())
			if err := srv.Serve(ctx, ln); err != nil {
				return err
			}
			logger.Info("stopped")
			return nil
		},
	}
	f.add(cmd, true)
	return cmd
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
