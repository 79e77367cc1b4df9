package cli

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
)

// wxrDoc is the part of a WXR file the command tests look at.
type wxrDoc struct {
	Link  string `xml:"channel>link"`
	Items []struct {
		ID   int64  `xml:"http://wordpress.org/export/1.2/ post_id"`
		Type string `xml:"http://wordpress.org/export/1.2/ post_type"`
	} `xml:"channel>item"`
}

func runExport(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	cmd := NewRootCmd("test")
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"export", "wxr"}, args...))
	err := cmd.ExecuteContext(context.Background())
	return out.Bytes(), err
}

func parseWXR(t *testing.T, data []byte) wxrDoc {
	t.Helper()
	var doc wxrDoc
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not a well-formed export: %v\n%.300s", err, data)
	}
	return doc
}

func TestExportWXRCommandReadsDataAndConfig(t *testing.T) {
	for _, k := range []string{config.EnvData, config.EnvDatabaseURL, config.EnvConfig} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "folio.toml")
	if err := os.WriteFile(conf, []byte("[site]\nurl = \"https://books.example\"\n\n[[post_types]]\nname = \"book\"\nrest_base = \"books\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve(config.Overrides{DataDir: dir, ConfigFile: conf}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	var ids []int64
	for _, typ := range []string{"post", "book"} {
		p := &store.Post{Type: typ, Status: "publish", Author: 1, Title: typ, Slug: typ, Date: now, DateGMT: now, Modified: now, ModifiedGMT: now}
		if err := st.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	// The store stays open, as a running server's would.
	defer st.Close()

	out, err := runExport(t, "--data", dir, "--config", conf)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseWXR(t, out)
	if doc.Link != "https://books.example" || len(doc.Items) != 2 || doc.Items[0].ID != ids[0] || doc.Items[1].Type != "book" {
		t.Fatalf("export with the config: link %q items %+v", doc.Link, doc.Items)
	}

	// Without the config the custom type is unknown and not exported.
	out, err = runExport(t, "--data", dir)
	if err != nil {
		t.Fatal(err)
	}
	if doc := parseWXR(t, out); len(doc.Items) != 1 || doc.Items[0].Type != "post" || doc.Link != "http://127.0.0.1:8080" {
		t.Fatalf("export without the config: link %q items %+v", doc.Link, doc.Items)
	}

	// -o writes the file (and nothing to stdout), leaving no temporary file.
	outDir := t.TempDir()
	target := filepath.Join(outDir, "site.xml")
	stdout, err := runExport(t, "--data", dir, "--config", conf, "-o", target, "--site-url", "https://other.example/")
	if err != nil {
		t.Fatal(err)
	}
	if len(stdout) != 0 {
		t.Fatalf("stdout with -o: %q", stdout)
	}
	data, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if doc := parseWXR(t, data); len(doc.Items) != 2 || doc.Link != "https://other.example" {
		t.Fatalf("file export: link %q items %+v", doc.Link, doc.Items)
	}
	entries, _ := os.ReadDir(outDir)
	if len(entries) != 1 {
		t.Fatalf("output directory holds %d entries, want only site.xml", len(entries))
	}

	// A file that cannot be written is an error and leaves nothing behind.
	bad := filepath.Join(outDir, "missing", "site.xml")
	if _, err := runExport(t, "--data", dir, "-o", bad); err == nil || !strings.Contains(err.Error(), "create output") {
		t.Fatalf("export to %s: %v, want a create error", bad, err)
	}
}
