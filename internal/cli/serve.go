package cli

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/server"
	"github.com/spf13/cobra"
)

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
