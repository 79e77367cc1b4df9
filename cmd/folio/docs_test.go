package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docFiles are the documents a newcomer reads.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	return append(files, "../../README.md")
}

var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)\s]*)?\)`)

// TestDocsLinkOnlyToFilesThatExistAndNameNoInternalNotes: every relative
// link of the README and docs/ names a file of the repository, and no
// document refers to the project's internal notes (the spec's rule and
// section numbers, its decisions, issue numbers, files outside the
// repository).
func TestDocsLinkOnlyToFilesThatExistAndNameNoInternalNotes(t *testing.T) {
	t.Parallel()
	internal := regexp.MustCompile(`cli\.md|seed\.md|seed rule|the seed's|reference §|§\d|decisions? #?\d|issue #\d|DESIGN\.md|STYLE\.md|/work/`)
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", file, target)
			}
		}
		for _, m := range internal.FindAllString(text, -1) {
			t.Errorf("%s mentions %q, which a newcomer cannot look up", file, m)
		}
	}
}

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestExtendingGuideExtensionBuildsInItsOwnModule follows "Start an
// extension in its own module" of docs/extending.md: its two Go files in
// a new module with a replace directive to this repository, built with
// no network (every module it needs is in the cache already).
func TestExtendingGuideExtensionBuildsInItsOwnModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	t.Parallel()
	b, err := os.ReadFile("../../docs/extending.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	start := strings.Index(guide, "## Start an extension in its own module")
	end := strings.Index(guide, "## A custom binary")
	if start < 0 || end < start {
		t.Fatal("docs/extending.md has no section \"Start an extension in its own module\"")
	}
	blocks := goBlock.FindAllStringSubmatch(guide[start:end], -1)
	if len(blocks) != 2 {
		t.Fatalf("the section has %d Go blocks, want the extension and its main", len(blocks))
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/shout\n\ngo 1.26\n\nreplace github.com/folio-server/folio => "+root+"\n")
	// Folio's checksums: the test runs without network, so the checksum
	// database cannot be asked (go mod tidy with network needs nothing).
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sums))
	write("shout.go", blocks[0][1])
	write("cmd/folio-shout/main.go", blocks[1][1])
	bin := filepath.Join(t.TempDir(), "folio-shout")
	// go build -mod=mod adds the requirements go mod tidy would, without
	// the modules only tidy's wider view needs (fetched with network).
	for _, args := range [][]string{{"build", "-o", bin, "./cmd/folio-shout"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "folio ") {
		t.Errorf("folio-shout version: %v %s", err, out)
	}
}
