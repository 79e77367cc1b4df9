package frontend

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"text/template/parse"
	"time"
)

//go:embed templates/*.html
var builtin embed.FS

// pageTemplates are the templates the reader executes; every other file
// holds the partials they call.
var pageTemplates = []string{"index.html", "single.html", "404.html"}

// funcs are the functions templates may call besides html/template's own.
var funcs = template.FuncMap{
	// date formats a time with a Go layout ("January 2, 2006").
	"date": func(t time.Time, layout string) string { return t.Format(layout) },
}

// parseTemplates parses the built-in templates, then the *.html files of
// themeDir, each replacing the built-in file of the same name (and the
// templates it defines) or adding partials.
func parseTemplates(themeDir string) (*template.Template, error) {
	files := map[string]string{} // file name → text
	builtinNames, err := fs.Glob(builtin, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, name := range builtinNames {
		b, err := builtin.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(name)] = string(b)
	}
	if themeDir != "" {
		themed, err := filepath.Glob(filepath.Join(themeDir, "*.html"))
		if err != nil {
			return nil, fmt.Errorf("theme %s: %w", themeDir, err)
		}
		for _, path := range themed {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("theme: %w", err)
			}
			files[filepath.Base(path)] = string(b)
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	root := template.New("").Funcs(funcs)
	for _, name := range names {
		if _, err := root.New(name).Parse(files[name]); err != nil {
			return nil, fmt.Errorf("theme template %s: %w", name, err)
		}
	}
	for _, name := range pageTemplates {
		if root.Lookup(name) == nil {
			return nil, fmt.Errorf("theme: no template %s", name)
		}
	}
	// A page that calls a template no file defines fails here, at start,
	// not on a visitor's request.
	for _, t := range root.Templates() {
		if t.Tree == nil {
			continue
		}
		for _, called := range calledTemplates(t.Tree.Root) {
			if root.Lookup(called) == nil {
				return nil, fmt.Errorf("theme template %s: calls template %q, which no file defines", t.Name(), called)
			}
		}
	}
	return root, nil
}

// calledTemplates lists the names of the templates {{template}} actions
// under n call.
func calledTemplates(n parse.Node) []string {
	var out []string
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.TemplateNode:
			out = append(out, n.Name)
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	walk(n)
	return out
}
