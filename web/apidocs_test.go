package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestAPIDocsRendererIsCopiedFromTheLockFile fails when
// apidocs/package-lock.json names another Swagger UI than the one copied
// into apidocs/dist (run `go generate ./web`).
func TestAPIDocsRendererIsCopiedFromTheLockFile(t *testing.T) {
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("apidocs/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	v := lock.Packages["node_modules/swagger-ui-dist"].Version
	if v == "" {
		t.Fatal("apidocs/package-lock.json does not pin swagger-ui-dist")
	}
	for _, name := range []string{"swagger-ui-bundle.js", "swagger-ui.css"} {
		a, ok := Lookup(name)
		if !ok {
			t.Fatalf("%s is not served", name)
		}
		notice := fmt.Sprintf("/*! swagger-ui-dist %s | Apache-2.0 License | ", v)
		if !bytes.HasPrefix(a.Body, []byte(notice)) {
			t.Errorf("%s does not start with %q: run `go generate ./web`", name, notice)
		}
		if bytes.Contains(a.Body, []byte("sourceMappingURL=")) {
			t.Errorf("%s points at source maps that are not served", name)
		}
	}
	js, ok := Lookup("apidocs.js")
	if !ok || !bytes.Contains(js.Body, []byte("SwaggerUIBundle(")) || !bytes.Contains(js.Body, []byte("validatorUrl: null")) {
		t.Error("apidocs.js does not start Swagger UI without the online validator")
	}
}
