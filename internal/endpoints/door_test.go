package endpoints_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestControllersGoThroughContent checks that no controller reaches the
// store except through content.Site's methods: content.Site.Storage is for
// the import, export and command-line tools only.
func TestControllersGoThroughContent(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Storage" {
				t.Errorf("%s: a controller reaches the store directly (Storage)", fset.Position(sel.Pos()))
			}
			return true
		})
	}
}
