package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/wxrimport"
	"github.com/spf13/cobra"
)

func newImportCmd(exts []extension.Extension) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import content from other systems",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newImportWXRCmd(exts))
	return cmd
}

func newImportWXRCmd(exts []extension.Extension) *cobra.Command {
	var (
		f         siteFlags
		opts      wxrimport.Options
		authorMap string
	)
	cmd := &cobra.Command{
		Use:   "wxr FILE...",
		Short: "Import WordPress export files (WXR 1.0, 1.1, 1.2)",
		Long: `Import one or more WordPress export files (Tools → Export, WXR 1.0, 1.1 or
1.2): authors, categories (with their hierarchy), tags, terms of configured
taxonomies, posts, pages (with hierarchy and menu order), attachments,
entries of configured custom post types, comments (threads and statuses),
post meta and post formats. Files are read as a stream.

Authors become users with the --author-role role and no usable password (an
administrator sets one); an author whose login exists here is that user, and
--author-map old=new,... maps logins of the file to existing users.
Categories, tags and terms are matched by taxonomy and slug, so the site's
"Uncategorized" absorbs the file's. Custom post types and taxonomies are
imported only when configured (--config, as serve reads it); WordPress's
own types (menus, block templates, global styles, revisions) are skipped.
Both are counted in the summary with the reason.

Attachments are always imported as records. With --media-dir (a copy of
the old site's wp-content/uploads), each file is copied into the site's
upload storage and its image sizes are made as for an upload; without it,
or when a file is missing, the attachment keeps its original URL as its
source_url ("remote").

Importing is idempotent and resumable: every record is mapped to its id in
the file in the same transaction it is written in, so importing the same
file again creates nothing new, and an import interrupted (Ctrl-C, a crash)
continues where it stopped when run again.

Imported records fire no REST hooks and no webhooks, so that a bulk import
never floods subscribers; response caches are still retired.

--dry-run reads the files and prints what would be done without writing.
A progress bar is drawn on a terminal (plain progress lines otherwise) on
standard error; the summary table goes to standard output.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) (err error) {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			m, err := parseAuthorMap(authorMap)
			if err != nil {
				return err
			}
			opts.AuthorMap = m
			for _, file := range files {
				if _, err := os.Stat(file); err != nil {
					return err
				}
			}
			cfg, err := f.config()
			if err != nil {
				return err
			}
			if cfg, err = configWithExtensions(cfg, exts); err != nil {
				return err
			}
			if opts.DryRun && !cfg.IsPostgres() {
				// A dry run never creates a site: with no database at
				// --data it reports against an empty site in a
				// temporary directory, removed afterwards.
				if _, serr := os.Stat(cfg.DatabasePath()); errors.Is(serr, fs.ErrNotExist) {
					tmp, terr := os.MkdirTemp("", "folio-dry-run-")
					if terr != nil {
						return terr
					}
					defer os.RemoveAll(tmp)
					c := *cfg
					c.DataDir, c.DatabaseURL = tmp, ""
					cfg = &c
				}
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
			if err := site.MediaConfigError(); err != nil {
				return fmt.Errorf("media.allowed_types: %w", err)
			}
			if opts.MediaDir != "" && !opts.DryRun {
				blobs, err := media.OpenBlobs(ctx, cfg)
				if err != nil {
					return fmt.Errorf("open upload storage: %w", err)
				}
				site.SetBlobs(blobs)
			}
			bar := newProgressBar(cmd.ErrOrStderr())
			opts.Progress = bar.update
			im, err := wxrimport.New(ctx, site, opts)
			if err != nil {
				return err
			}
			var sum *wxrimport.Summary
			run := func(ctx context.Context) (err error) {
				sum, err = importFiles(ctx, im, files)
				return err
			}
			if bl, ok := st.(store.BulkLoader); ok && !opts.DryRun {
				err = bl.BulkLoad(ctx, run)
			} else {
				err = run(ctx)
			}
			bar.done()
			if sum != nil {
				if werr := sum.Write(cmd.OutOrStdout()); werr != nil && err == nil {
					err = werr
				}
				writeAuthorHint(cmd.OutOrStdout(), sum, server.SiteFlag(cfg))
			}
			if errors.Is(err, context.Canceled) {
				return errors.New("import interrupted; run the same command again to resume")
			}
			return err
		},
	}
	f.add(cmd, false)
	fl := cmd.Flags()
	fl.StringVar(&f.o.MediaURL, "media-url", "", "upload storage: s3://bucket?endpoint=host:port&region=r or file:///dir (env FOLIO_MEDIA_URL; default DATA/uploads)")
	fl.StringVar(&opts.MediaDir, "media-dir", "", "copy attachment files from this copy of the old site's wp-content/uploads")
	fl.StringVar(&authorMap, "author-map", "", "map authors of the file to existing users: old=new,old2=new2")
	fl.StringVar(&opts.AuthorRole, "author-role", "author", "role of the users made for the file's authors")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "read the files and report what would be imported, without writing")
	return cmd
}

// writeAuthorHint tells, after a summary that created users for the
// file's authors, that they cannot sign in yet and how to give them a
// password.
func writeAuthorHint(w io.Writer, sum *wxrimport.Summary, site string) {
	if !slices.Contains(sum.Kinds(), "authors") {
		return
	}
	n := sum.Kind("authors").Created
	if n == 0 {
		return
	}
	verb := "were"
	if sum.DryRun {
		verb = "would be"
	}
	fmt.Fprintf(w, "\n%d users %s created for the file's authors with no usable password: they cannot sign in until one is set with\n  %s user set-password %s --login LOGIN\n(`%s user list %s` shows the logins)\n",
		n, verb, commandName(), site, commandName(), site)
}

// importFiles imports each file in turn, then runs the importer's last
// pass; the summary is returned also on error.
func importFiles(ctx context.Context, im *wxrimport.Importer, files []string) (*wxrimport.Summary, error) {
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			return im.Summary(), err
		}
		var size int64
		if st, err := fh.Stat(); err == nil {
			size = st.Size()
		}
		err = im.Import(ctx, file, fh, size)
		fh.Close()
		if err != nil {
			return im.Summary(), err
		}
	}
	return im.Finish(ctx)
}

// parseAuthorMap reads --author-map: comma-separated old=new pairs.
func parseAuthorMap(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		old, login, ok := strings.Cut(pair, "=")
		old, login = strings.TrimSpace(old), strings.TrimSpace(login)
		if !ok || old == "" || login == "" {
			return nil, fmt.Errorf("--author-map: %q is not old=new", pair)
		}
		m[old] = login
	}
	return m, nil
}

// progressBar shows an import's progress on w: a bar redrawn in place when
// w is a terminal, otherwise a plain line every 10% of a file (and at its
// end).
type progressBar struct {
	w        io.Writer
	terminal bool
	file     string
	lastPct  int
	lastDraw time.Time
	drawn    bool
	last     wxrimport.Progress
}

func newProgressBar(w io.Writer) *progressBar {
	terminal := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			terminal = true
		}
	}
	return &progressBar{w: w, terminal: terminal, lastPct: -1}
}

func (b *progressBar) update(p wxrimport.Progress) {
	if p.File != b.file {
		if b.drawn && b.terminal {
			b.draw(b.last, 100)
			fmt.Fprintln(b.w)
		}
		b.file, b.lastPct, b.drawn = p.File, -1, false
	}
	pct := 0
	if p.Size > 0 {
		pct = int(p.Read * 100 / p.Size)
	}
	if b.terminal {
		b.last = p
		if time.Since(b.lastDraw) < 100*time.Millisecond {
			return
		}
		b.draw(p, pct)
		return
	}
	if pct/10 == b.lastPct/10 && b.lastPct >= 0 {
		return
	}
	b.lastPct = pct
	fmt.Fprintf(b.w, "%s: %d%% (%d records)\n", p.File, pct, p.Records)
}

// draw redraws the bar in place.
func (b *progressBar) draw(p wxrimport.Progress, pct int) {
	const width = 30
	fill := min(pct, 100) * width / 100
	fmt.Fprintf(b.w, "\r%s [%s%s] %3d%% %d records", p.File,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), pct, p.Records)
	b.lastDraw, b.drawn = time.Now(), true
}

// done draws the last state and ends the bar's line.
func (b *progressBar) done() {
	if !b.terminal || b.last.File == "" {
		return
	}
	pct := 0
	if b.last.Size > 0 {
		pct = int(b.last.Read * 100 / b.last.Size)
	}
	b.draw(b.last, pct)
	fmt.Fprintln(b.w)
}
