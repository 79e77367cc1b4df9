// Package web holds the browser assets Folio serves from its binary: the
// bundled API client (jQuery, Underscore, Backbone and the Folio client,
// built by build.sh into dist/api-client.js and checked in, so a plain
// `go build` needs no Node.js), the admin's rich-text editor bundle
// (DOMPurify and Squire, dist/editor.js), the admin's scripts (admin/*.js,
// plain scripts loaded in AdminScripts order) and the styles of the admin
// and the sign-in page.
//
// Rebuild the bundles after changing src/ or package-lock.json with
// `go generate ./web`; the output is byte-identical for the same inputs.
//
// The API reference page ({api_root}docs) renders with Swagger UI, whose
// bundle and style sheet apidocs/build.sh copies from the version pinned
// in apidocs/package-lock.json into apidocs/dist/ (checked in the same
// way), and apidocs/apidocs.js starts it.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
)

//go:generate bash build.sh
//go:generate bash apidocs/build.sh

//go:embed dist/api-client.js dist/editor.js admin/*.js admin/*.css apidocs/dist/swagger-ui-bundle.js apidocs/dist/swagger-ui.css apidocs/apidocs.js
var files embed.FS

// adminScripts are the admin's scripts in the order the page loads them:
// core.js first (the shared helpers every other script uses), app.js last
// (it reads the screens the others registered and starts the router).
var adminScripts = []string{
	"core.js",
	"richtext.js",
	"termpicker.js",
	"media.js",
	"posts.js",
	"postedit.js",
	"comments.js",
	"terms.js",
	"users.js",
	"settings.js",
	"app.js",
}

// Asset is one embedded file, ready to serve.
type Asset struct {
	// Name is the file name under /assets/.
	Name string
	// ContentType is the value of the Content-Type header.
	ContentType string
	// Body is the file's content.
	Body []byte
	// Version is a short hex digest of Body, for cache-busting URLs.
	Version string
	// ETag is the quoted entity tag of Body.
	ETag string
}

const (
	jsType  = "text/javascript; charset=utf-8"
	cssType = "text/css; charset=utf-8"
)

// sources maps served names to embedded paths and content types.
var sources = func() []struct{ name, path, ctype string } {
	out := []struct{ name, path, ctype string }{
		{"api-client.js", "dist/api-client.js", jsType},
		{"editor.js", "dist/editor.js", jsType},
		{"admin.css", "admin/admin.css", cssType},
		{"login.css", "admin/login.css", cssType},
		{"swagger-ui-bundle.js", "apidocs/dist/swagger-ui-bundle.js", jsType},
		{"swagger-ui.css", "apidocs/dist/swagger-ui.css", cssType},
		{"apidocs.js", "apidocs/apidocs.js", jsType},
	}
	for _, name := range adminScripts {
		out = append(out, struct{ name, path, ctype string }{"admin/" + name, "admin/" + name, jsType})
	}
	return out
}()

var assets = load()

func load() map[string]*Asset {
	m := make(map[string]*Asset, len(sources))
	for _, s := range sources {
		b, err := files.ReadFile(s.path)
		if err != nil {
			panic(fmt.Sprintf("web: embedded %s: %v", s.path, err))
		}
		sum := sha256.Sum256(b)
		v := hex.EncodeToString(sum[:])[:16]
		m[s.name] = &Asset{Name: s.name, ContentType: s.ctype, Body: b, Version: v, ETag: `"` + v + `"`}
	}
	return m
}

// Lookup returns the asset served as /assets/name.
func Lookup(name string) (*Asset, bool) {
	a, ok := assets[name]
	return a, ok
}

// AdminScripts returns the asset names of the admin's scripts in the order
// the admin page loads them (after api-client.js and editor.js).
func AdminScripts() []string {
	out := make([]string, len(adminScripts))
	for i, name := range adminScripts {
		out[i] = "admin/" + name
	}
	return out
}

// Names returns the names of all assets, in a fixed order.
func Names() []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s.name
	}
	return out
}
