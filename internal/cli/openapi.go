package cli

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/server"
	"github.com/spf13/cobra"
)

// newOpenAPICmd is `folio openapi`: it prints the OpenAPI 3.1 description
// that `serve` answers at {api_root}openapi.json, without a server.
func newOpenAPICmd(exts []extension.Extension) *cobra.Command {
	var f siteFlags
	cmd := &cobra.Command{
		Use:   "openapi",
		Short: "Print the OpenAPI 3.1 description of the REST API",
		Long: "Print the OpenAPI 3.1 description of the REST API, as `serve` answers it at\n" +
			"{api_root}openapi.json: the site is built the same way (config file, --compat,\n" +
			"extensions) over a temporary empty database, so the site's own data is not\n" +
			"opened. Example: folio openapi --config folio.toml > openapi.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			tmp, err := os.MkdirTemp("", "folio-openapi-")
			if err != nil {
				return fmt.Errorf("temporary data directory: %w", err)
			}
			defer os.RemoveAll(tmp)
			// The description depends on the routes, not on the data: a
			// throwaway SQLite database and upload directory stand in for
			// the site's.
			c := *cfg
			c.DataDir, c.DatabaseURL = tmp, ""
			c.Media.URL, c.Media.PublicURL = "", ""
			srv, err := server.NewWith(cmd.Context(), &c, slog.New(slog.DiscardHandler), exts...)
			if err != nil {
				return err
			}
			defer srv.Close()
			_, err = cmd.OutOrStdout().Write(srv.OpenAPI())
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.o.ConfigFile, "config", "", "config file (env FOLIO_CONFIG)")
	fl.StringVar(&f.o.Compat, "compat", "", `"wordpress" describes the WordPress names (env FOLIO_COMPAT)`)
	return cmd
}
