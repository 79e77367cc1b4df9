package cli

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store/sqlite"
	"github.com/spf13/cobra"
)

// UploadsTarSuffix is added to a backup's file name to name the tar of
// its uploads (--with-uploads).
const UploadsTarSuffix = ".uploads.tar"

// pgDumpHint says how to back up and restore a PostgreSQL site.
const pgDumpHint = "on PostgreSQL use its own tools: pg_dump --format=custom --file site.dump URL, " +
	"and pg_restore --no-owner --dbname URL site.dump into an empty database (docs/operations.md, \"Backups and restore\")"

func newBackupCmd() *cobra.Command {
	var (
		f           siteFlags
		out         string
		withUploads bool
	)
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Write a consistent copy of a SQLite site's database (and uploads), also while it serves",
		Long: `Write a consistent copy of the site's SQLite database to a new file (-o),
taken at one moment while the server goes on serving (VACUUM INTO), checked
with PRAGMA integrity_check before it is kept. With --with-uploads the
uploads directory is written to a tar file next to it (FILE.uploads.tar),
after the database. PostgreSQL sites are backed up with pg_dump.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return errors.New("-o FILE is required: where to write the backup")
			}
			cfg, err := f.config()
			if err != nil {
				return err
			}
			if cfg.IsPostgres() {
				return errors.New("folio backup copies SQLite sites; " + pgDumpHint)
			}
			src := cfg.DatabasePath()
			if _, err := os.Stat(src); err != nil {
				return fmt.Errorf("no site database at %s (give --data DIR or --database FILE)", src)
			}
			if withUploads {
				if err := localUploads(cfg); err != nil {
					return err
				}
				if _, err := os.Stat(out + UploadsTarSuffix); err == nil {
					return fmt.Errorf("%s exists; remove it or choose another name", out+UploadsTarSuffix)
				}
			}
			if err := sqlite.Backup(cmd.Context(), src, out); err != nil {
				return err
			}
			st, _ := os.Stat(out)
			fmt.Fprintf(cmd.OutOrStdout(), "database backed up to %s (%d bytes, integrity ok)\n", out, st.Size())
			if withUploads {
				n, err := tarDir(cfg.UploadsDir(), out+UploadsTarSuffix)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "uploads backed up to %s (%d files)\n", out+UploadsTarSuffix, n)
			}
			return nil
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVarP(&out, "output", "o", "", "the backup file to write (required; must not exist)")
	cmd.Flags().BoolVar(&withUploads, "with-uploads", false, "also write the uploads directory to FILE"+UploadsTarSuffix)
	return cmd
}

func newRestoreCmd() *cobra.Command {
	var (
		f       siteFlags
		in      string
		uploads string
		force   bool
	)
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Put a backup made by folio backup in place as a SQLite site's database (and uploads)",
		Long: `Check the backup (-i) with PRAGMA integrity_check, copy it into place as the
site's database, and migrate it to this binary's schema. The server must be
stopped. An existing database is only replaced with --force. --uploads
FILE.uploads.tar restores the uploads too (files in the archive replace
those of the same name). PostgreSQL sites are restored with pg_restore.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" {
				return errors.New("-i FILE is required: the backup to restore")
			}
			cfg, err := f.config()
			if err != nil {
				return err
			}
			if cfg.IsPostgres() {
				return errors.New("folio restore restores SQLite sites; " + pgDumpHint)
			}
			if uploads != "" {
				if err := localUploads(cfg); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			problems, err := sqlite.IntegrityCheck(ctx, in)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				return fmt.Errorf("%s fails its integrity check, nothing restored: %s", in, problems[0])
			}
			dst := cfg.DatabasePath()
			if _, err := os.Stat(dst); err == nil && !force {
				return fmt.Errorf("%s exists; stop the server and give --force to replace it", dst)
			}
			if err := installFile(in, dst); err != nil {
				return err
			}
			st, err := server.OpenStore(ctx, cfg)
			if err != nil {
				return err
			}
			if err := st.Close(); err != nil {
				return fmt.Errorf("close database: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "database restored to %s\n", dst)
			if uploads != "" {
				n, err := untar(uploads, cfg.UploadsDir())
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "uploads restored to %s (%d files)\n", cfg.UploadsDir(), n)
			}
			return nil
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVarP(&in, "input", "i", "", "the backup file to restore (required)")
	cmd.Flags().StringVar(&uploads, "uploads", "", "a tar of uploads written by folio backup --with-uploads")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing database (stop the server first)")
	return cmd
}

// localUploads refuses upload backups of sites whose uploads are not in a
// local directory.
func localUploads(cfg *config.Config) error {
	if cfg.Media.URL != "" && !strings.HasPrefix(cfg.Media.URL, "file://") {
		return errors.New("uploads are kept in a bucket (media.url); back the bucket up with its own tools")
	}
	return nil
}

// installFile copies src over dst through a temporary file beside it,
// synced before the rename, and removes dst's stale WAL and shared-memory
// files.
func installFile(src, dst string) (err error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".restore-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, in); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Remove(dst + ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if err = os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// walkUploads calls fn with the slash path relative to dir and the file
// path of every regular file under dir, skipping hidden files (the
// temporary files of uploads in progress). A missing dir has no files.
func walkUploads(dir string, fn func(rel, path string) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel), p)
	})
}

// tarDir writes the regular files under dir (not the temporary files of
// uploads in progress) to a new tar file at out, through a temporary file
// renamed when complete, and returns how many it wrote. A missing dir
// gives an empty archive.
func tarDir(dir, out string) (n int, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".part-*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	tw := tar.NewWriter(tmp)
	err = walkUploads(dir, func(rel, p string) error {
		f, err := os.Open(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(st, "")
		if err != nil {
			return err
		}
		hdr.Name = rel
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := io.CopyN(tw, f, st.Size()); err != nil {
			return err
		}
		n++
		return nil
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		return 0, fmt.Errorf("back up uploads: %w", err)
	}
	return n, nil
}

// untar writes the regular files of the tar at src under dir, refusing
// names that would land outside it, and returns how many it wrote.
func untar(src, dir string) (int, error) {
	f, err := os.Open(src)
	if err != nil {
		return 0, fmt.Errorf("restore uploads: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	n := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("restore uploads: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(hdr.Name)
		if !fs.ValidPath(name) || name == "." {
			return n, fmt.Errorf("restore uploads: refusing the archive entry %q", hdr.Name)
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(name)), tr, hdr.FileInfo().Mode().Perm()); err != nil {
			return n, fmt.Errorf("restore uploads: %w", err)
		}
		n++
	}
}

// writeFile writes r to a temporary file beside p and renames it to p.
func writeFile(p string, r io.Reader, perm fs.FileMode) (err error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".restore-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, r); err == nil {
		err = tmp.Chmod(perm | 0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
