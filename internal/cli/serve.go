package cli

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
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
			srv, err := server.NewWith(ctx, cfg, logger, exts...)
			if err != nil {
				return err
			}
			defer srv.Close()
			ln, err := net.Listen("tcp", cfg.Addr)
			if err != nil {
				return fmt.Errorf("listen: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "listening on http://%s\n", ln.Addr())
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
