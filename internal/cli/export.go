package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/wxrexport"
	"github.com/spf13/cobra"
)

func newExportCmd(version string, exts []extension.Extension) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export the site",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newExportWXRCmd(version, exts))
	return cmd
}

func newExportWXRCmd(version string, exts []extension.Extension) *cobra.Command {
	var (
		f       siteFlags
		output  string
		siteURL string
	)
	cmd := &cobra.Command{
		Use:   "wxr",
		Short: "Write the whole site as WXR 1.2 (a WordPress export file)",
		Long: `Write every user, category, tag, term, post, page, attachment, post of a
custom type, post meta and comment as WXR 1.2, the file WordPress's
Tools → Export writes and its importer reads, to standard output or to
the file -o names (written to a temporary file beside it and renamed when
complete). Auto-drafts, revisions and spam comments are left out.

The export reads one consistent snapshot of the database and never blocks
writers, so it can run while a server is serving the same database. Post
types and taxonomies come from the configuration (--config), as for serve.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			ctx := cmd.Context()
			cfg, err := f.config()
			if err != nil {
				return err
			}
			if cfg, err = configWithExtensions(cfg, exts); err != nil {
				return err
			}
			st, err := server.OpenStore(ctx, cfg)
			if err != nil {
				return err
			}
			defer func() {
				if cerr := st.Close(); cerr != nil && err == nil {
					err = fmt.Errorf("close database: %w", cerr)
				}
			}()
			site, err := content.NewSite(st, cfg)
			if err != nil {
				return err
			}
			opts := wxrexport.Options{SiteURL: siteURL, Generator: "Folio/" + version}
			if output == "" || output == "-" {
				return wxrexport.Export(ctx, site, cmd.OutOrStdout(), opts)
			}
			return writeAtomically(output, func(w io.Writer) error {
				return wxrexport.Export(ctx, site, w, opts)
			})
		},
	}
	f.add(cmd, false)
	fl := cmd.Flags()
	fl.StringVarP(&output, "output", "o", "", "write to this file instead of standard output")
	fl.StringVar(&siteURL, "site-url", "", "public URL of the site for links (default: site.url from the config, else http://ADDR)")
	return cmd
}

// writeAtomically runs write on a temporary file in path's directory and
// renames it to path once write and the sync succeeded, so that path never
// holds a partial file; on failure the temporary file is removed.
func writeAtomically(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create output: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename output to %s: %w", path, err)
	}
	return nil
}
