package cli

import (
	"fmt"

	"github.com/folio-server/folio/internal/server"
	"github.com/spf13/cobra"
)

func newMigrateCmd() *cobra.Command {
	var f siteFlags
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply schema migrations and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			st, err := server.OpenStore(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if err := st.Close(); err != nil {
				return fmt.Errorf("close database: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "migrations applied")
			return nil
		},
	}
	f.add(cmd, false)
	return cmd
}
