package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDatabaseMustBeAPostgresURLADBFileOrAnExistingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, url string
		want      string // the DatabaseURL after Normalize; "" = an error
	}{
		{"postgres URL", "postgres://u:pw@h:5432/db?sslmode=disable", "postgres://u:pw@h:5432/db?sslmode=disable"},
		{"postgresql URL", "postgresql://u@h/db", "postgresql://u@h/db"},
		{"sqlite file", filepath.Join(dir, "site.db"), filepath.Join(dir, "site.db")},
		{"relative sqlite file", "site.sqlite3", "site.sqlite3"},
		{"sqlite:// prefix", "sqlite://" + filepath.Join(dir, "x.db"), "sqlite://" + filepath.Join(dir, "x.db")},
		{"existing directory", dir, filepath.Join(dir, DatabaseFile)},
		{"mysql URL", "mysql://root:pw@localhost/folio", ""},
		{"typo postgres//", "postgres//u@h/db", ""},
		{"typo postgres:/", "postgres:/u@h/db", ""},
		{"unknown scheme without slashes", "mysql:host=x", ""},
		{"http URL", "http://example.com/x.db", ""},
		{"directory that does not exist", filepath.Join(dir, "nope"), ""},
		{"file without .db", filepath.Join(dir, "site.txt"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.DatabaseURL = tt.url
			err := c.Normalize()
			if tt.want == "" {
				if err == nil {
					t.Fatalf("Normalize accepted --database %q (now %q)", tt.url, c.DatabaseURL)
				}
				if !strings.Contains(err.Error(), DatabaseForms) {
					t.Errorf("error %q does not name the accepted forms", err)
				}
				if strings.Contains(err.Error(), ":pw@") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tt.url, err)
			}
			if c.DatabaseURL != tt.want {
				t.Errorf("DatabaseURL = %q, want %q", c.DatabaseURL, tt.want)
			}
		})
	}
}

func TestDatabaseErrorNeverShowsThePassword(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"mysql://root:hunter2@db/folio", "postgres//root:hunter2@db/folio", "postgresql:root:hunter2@db"} {
		_, err := Resolve(Overrides{DatabaseURL: v}, nil)
		if err == nil {
			t.Fatalf("Resolve accepted %q", v)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error for %q shows the password: %v", v, err)
		}
	}
}

func TestFrontEndOption(t *testing.T) {
	t.Parallel()
	theme := t.TempDir()
	tests := []struct {
		in       string
		builtin  bool
		external string
		wantErr  bool
	}{
		{"", true, "", false},
		{"builtin", true, "", false},
		{"none", false, "", false},
		{"https://www.example.com/", false, "https://www.example.com", false},
		{"ftp://example.com", false, "", true},
		{"www.example.com", false, "", true},
	}
	for _, tt := range tests {
		c := Default()
		c.Site.FrontEnd = tt.in
		c.Site.ThemeDir = theme
		err := c.Normalize()
		if (err != nil) != tt.wantErr {
			t.Fatalf("front_end %q: err = %v", tt.in, err)
		}
		if err != nil {
			continue
		}
		if c.Site.BuiltinFrontEnd() != tt.builtin || c.Site.ExternalFrontEnd() != tt.external {
			t.Errorf("front_end %q: builtin %v external %q", tt.in, c.Site.BuiltinFrontEnd(), c.Site.ExternalFrontEnd())
		}
		if c.Site.PostsPerPage != DefaultPostsPerPage {
			t.Errorf("posts_per_page = %d", c.Site.PostsPerPage)
		}
	}
	c := Default()
	c.Site.ThemeDir = filepath.Join(theme, "missing")
	if err := c.Normalize(); err == nil || !strings.Contains(err.Error(), "theme_dir") {
		t.Errorf("missing theme_dir: err = %v", err)
	}
	file := filepath.Join(theme, "x.toml")
	if err := os.WriteFile(file, []byte("[site]\nfront_end = \"none\"\nposts_per_page = 5\ntheme_dir = \""+theme+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if c.Site.FrontEnd != FrontEndNone || c.Site.PostsPerPage != 5 || c.Site.ThemeDir != theme {
		t.Errorf("loaded site = %+v", c.Site)
	}
}
