package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
)

const smallExport = "../../testdata/wxr/wordpress-importer/small-export.xml"

func runImport(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := NewRootCmd("test")
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"import", "wxr"}, args...))
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// countPosts opens the site in dir and counts its posts and pages.
func countPosts(t *testing.T, dir string) int64 {
	t.Helper()
	return countPostsWhere(t, dir, store.PostQuery{Types: []string{"post", "page"}})
}

func countPostsWhere(t *testing.T, dir string, q store.PostQuery) int64 {
	t.Helper()
	cfg, err := config.Resolve(config.Overrides{DataDir: dir}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := server.OpenStore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.CountPosts(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestImportWXRCommandDryRunThenImport runs `folio import wxr` with
// --dry-run (a summary of what would be created, nothing written), then
// for real, then again (nothing new), with plain progress lines on a
// non-terminal.
func TestImportWXRCommandDryRunThenImport(t *testing.T) {
	for _, k := range []string{config.EnvData, config.EnvDatabaseURL, config.EnvConfig, config.EnvMediaURL} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	out, errOut, err := runImport(t, "--data", dir, "--dry-run", smallExport)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, errOut)
	}
	for _, want := range []string{"KIND", "WOULD CREATE", "EXISTING", "SKIPPED"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry-run summary lacks %q:\n%s", want, out)
		}
	}
	row := func(out, kind string) []string {
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) == 4 && f[0] == kind {
				return f[1:]
			}
		}
		t.Fatalf("no %s row in:\n%s", kind, out)
		return nil
	}
	if got := row(out, "posts"); got[0] != "6" {
		t.Errorf("dry run posts row = %v, want 6 to create", got)
	}
	if got := row(out, "categories"); got[0] != "29" || got[1] != "1" {
		t.Errorf("dry run categories row = %v, want 29 to create and 1 existing (Uncategorized)", got)
	}
	if !strings.Contains(errOut, "small-export.xml: 100%") {
		t.Errorf("no plain progress line on stderr: %q", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, config.DatabaseFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the dry run created a database at --data (stat: %v)", err)
	}

	out, errOut, err = runImport(t, "--data", dir, smallExport)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errOut)
	}
	if got := row(out, "pages"); got[0] != "5" {
		t.Errorf("pages row = %v, want 5 created", got)
	}
	// Imported authors cannot sign in: the summary says so and how to
	// give them a password.
	if !strings.Contains(out, "created for the file's authors with no usable password") ||
		!strings.Contains(out, "user set-password --data "+dir+" --login LOGIN") {
		t.Errorf("summary does not say how imported authors get a password:\n%s", out)
	}
	if n := countPosts(t, dir); n != 11 {
		t.Fatalf("stored %d posts and pages, want 11", n)
	}
	// The import ran as a bulk load: what it wrote is searchable at once.
	if n := countPostsWhere(t, dir, store.PostQuery{Types: []string{"page"}, Search: "parent page"}); n != 2 {
		t.Fatalf("a search of the imported pages for %q finds %d, want the 2 whose text has both words", "parent page", n)
	}
	out, _, err = runImport(t, "--data", dir, smallExport)
	if err != nil {
		t.Fatal(err)
	}
	if got := row(out, "posts"); got[0] != "0" || got[1] != "6" {
		t.Errorf("second import posts row = %v, want 0 created, 6 existing", got)
	}
	if strings.Contains(out, "no usable password") {
		t.Errorf("second import, which created no author, talks about passwords:\n%s", out)
	}
	if n := countPosts(t, dir); n != 11 {
		t.Fatalf("after a second import: %d posts and pages, want 11", n)
	}
}

// TestImportWXRCommandErrors: a malformed file and an unknown mapped user
// are errors (non-zero exit) with a message that says where and why.
func TestImportWXRCommandErrors(t *testing.T) {
	for _, k := range []string{config.EnvData, config.EnvDatabaseURL, config.EnvConfig, config.EnvMediaURL} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.xml")
	doc := "<?xml version=\"1.0\"?>\n<rss xmlns:wp=\"http://wordpress.org/export/1.2/\">\n<channel>\n<item>\n<title>x</title>\n</channel>\n</rss>\n"
	if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runImport(t, "--data", dir, bad)
	if err == nil || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("malformed file: err = %v, want an error naming line 6", err)
	}
	_, _, err = runImport(t, "--data", dir, "--author-map", "admin=nobody", smallExport)
	if err == nil || !strings.Contains(err.Error(), `no user "nobody"`) {
		t.Errorf("author map to a missing user: err = %v", err)
	}
	_, _, err = runImport(t, "--data", dir, "--author-map", "admin", smallExport)
	if err == nil || !strings.Contains(err.Error(), "not old=new") {
		t.Errorf("bad author map: err = %v", err)
	}
	if _, _, err := runImport(t, "--data", dir); err == nil {
		t.Error("no file: no error")
	}
}
