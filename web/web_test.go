package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestBundleIsBuiltFromTheCurrentSources fails when src/api-client.js or
// package-lock.json changed without `go generate ./web`.
func TestBundleIsBuiltFromTheCurrentSources(t *testing.T) {
	dist, err := os.ReadFile("dist/api-client.js")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("src/api-client.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(dist, src) {
		t.Fatal("dist/api-client.js does not end with src/api-client.js: run `go generate ./web`")
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	var prev int
	for _, name := range []string{"jquery", "underscore", "backbone"} {
		v := lock.Packages["node_modules/"+name].Version
		if v == "" {
			t.Fatalf("package-lock.json does not pin %s", name)
		}
		notice := fmt.Sprintf("/*! %s %s | MIT License | ", name, v)
		i := bytes.Index(dist, []byte(notice))
		if i < 0 {
			t.Fatalf("bundle lacks %q: run `go generate ./web`", notice)
		}
		if i < prev {
			t.Errorf("%s comes before the library it needs", name)
		}
		prev = i
	}
	if bytes.Contains(dist, []byte("sourceMappingURL")) {
		t.Error("bundle points at source maps that are not served")
	}
}

func TestAssetsAreEmbeddedWithVersions(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Names() {
		a, ok := Lookup(name)
		if !ok || len(a.Body) == 0 {
			t.Fatalf("%s: not embedded", name)
		}
		if len(a.Version) != 16 || a.ETag != `"`+a.Version+`"` || seen[a.Version] {
			t.Errorf("%s: version %q, ETag %q", name, a.Version, a.ETag)
		}
		seen[a.Version] = true
		if !strings.HasPrefix(a.ContentType, "text/") {
			t.Errorf("%s: content type %q", name, a.ContentType)
		}
	}
	if _, ok := Lookup("web.go"); ok {
		t.Error("Lookup serves files that are not assets")
	}
}

// TestEveryAdminScriptIsLoaded fails when a script under admin/ is not in
// the page's load order, or the order names a file that does not exist.
func TestEveryAdminScriptIsLoaded(t *testing.T) {
	entries, err := os.ReadDir("admin")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, name := range AdminScripts() {
		listed[name] = true
		if _, ok := Lookup(name); !ok {
			t.Errorf("%s is in the load order but not embedded", name)
		}
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".js") && !listed["admin/"+e.Name()] {
			t.Errorf("admin/%s is not in adminScripts, so the page never loads it", e.Name())
		}
	}
	if got := AdminScripts(); got[0] != "admin/core.js" || got[len(got)-1] != "admin/app.js" {
		t.Errorf("load order %v: core.js must come first and app.js last", got)
	}
}

// TestAdminScriptsNeedNoUnsafeEval fails when an admin script or the
// editor bundle evaluates strings as code or writes inline event handler
// attributes, which the admin's Content-Security-Policy forbids.
func TestAdminScriptsNeedNoUnsafeEval(t *testing.T) {
	names := append(AdminScripts(), "editor.js")
	for _, name := range names {
		a, _ := Lookup(name)
		for _, bad := range []string{"eval(", "new Function(", "setAttribute('on", `setAttribute("on`, "javascript:"} {
			if bytes.Contains(a.Body, []byte(bad)) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}
