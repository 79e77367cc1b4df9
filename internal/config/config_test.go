package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "folio.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultValues(t *testing.T) {
	t.Parallel()
	c := Default()
	if c.Addr != "127.0.0.1:8080" || c.DataDir != "./folio-data" {
		t.Errorf("addr/data = %q/%q", c.Addr, c.DataDir)
	}
	if c.Site.Title != "Folio" || c.Site.Timezone != "UTC" || !c.Site.ShowAvatars {
		t.Errorf("site = %+v", c.Site)
	}
	if c.Limits.MaxBodyBytes != 10<<20 || c.Limits.MaxUploadBytes != 64<<20 {
		t.Errorf("limits = %+v", c.Limits)
	}
	if err := c.Normalize(); err != nil {
		t.Errorf("default config does not validate: %v", err)
	}
}

func TestLoadCLIExampleFile(t *testing.T) {
	t.Parallel()
	// The example from cli.md, verbatim.
	p := writeFile(t, `
compat = "wordpress"             # optional; same as --compat

[site]
title = "My site"
description = "Just another site"
url = "http://127.0.0.1:8080"   # public URL used in links; when unset,
                                # links use the scheme and host of each request
show_avatars = true

[[post_types]]
name = "book"
rest_base = "books"
hierarchical = false
supports = ["title", "editor", "author", "thumbnail", "excerpt", "comments", "revisions"]

[[taxonomies]]
name = "genre"
rest_base = "genres"
hierarchical = true
object_types = ["book", "post"]

[limits]
max_body_bytes = 1024
`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Compat != "wordpress" || c.ConfigFile != p {
		t.Errorf("compat/file = %q/%q", c.Compat, c.ConfigFile)
	}
	wantSite := Site{Title: "My site", Description: "Just another site", URL: "http://127.0.0.1:8080", ShowAvatars: true, Timezone: "UTC",
		AllowAnonymousComments: true, CommentPreviouslyApproved: true, CommentMaxLinks: 2,
		DefaultCategory: 1, DefaultCommentStatus: "open", DefaultPingStatus: "open",
		FrontEnd: FrontEndBuiltin, PostsPerPage: DefaultPostsPerPage}
	if c.Site != wantSite {
		t.Errorf("site = %+v, want %+v", c.Site, wantSite)
	}
	wantPT := []PostType{{
		Name: "book", RestBase: "books",
		Supports:      []string{"title", "editor", "author", "thumbnail", "excerpt", "comments", "revisions"},
		Label:         "Books",
		SingularLabel: "Book",
	}}
	if !reflect.DeepEqual(c.PostTypes, wantPT) {
		t.Errorf("post types = %+v, want %+v", c.PostTypes, wantPT)
	}
	wantTx := []Taxonomy{{
		Name: "genre", RestBase: "genres", Hierarchical: true,
		ObjectTypes: []string{"book", "post"}, Label: "Genres", SingularLabel: "Genre",
	}}
	if !reflect.DeepEqual(c.Taxonomies, wantTx) {
		t.Errorf("taxonomies = %+v, want %+v", c.Taxonomies, wantTx)
	}
	if c.Limits.MaxBodyBytes != 1024 || c.Limits.MaxUploadBytes != 64<<20 {
		t.Errorf("limits = %+v", c.Limits)
	}
	// Keys the file leaves out keep their defaults.
	if c.Addr != DefaultAddr || c.DataDir != DefaultDataDir {
		t.Errorf("addr/data = %q/%q", c.Addr, c.DataDir)
	}
}

func TestLoadFillsRestBaseSupportsAndLabels(t *testing.T) {
	t.Parallel()
	c, err := Load(writeFile(t, `
[[post_types]]
name = "case_study"
[[taxonomies]]
name = "region"
object_types = ["case_study"]
`))
	if err != nil {
		t.Fatal(err)
	}
	pt := c.PostTypes[0]
	if pt.RestBase != "case_study" || pt.Label != "Case Study" || pt.SingularLabel != "Case Study" {
		t.Errorf("post type = %+v", pt)
	}
	if !reflect.DeepEqual(pt.Supports, []string{"title", "editor"}) {
		t.Errorf("supports = %v", pt.Supports)
	}
	if c.Taxonomies[0].RestBase != "region" {
		t.Errorf("taxonomy rest base = %q", c.Taxonomies[0].RestBase)
	}
}

func TestLoadShowAvatarsFalse(t *testing.T) {
	t.Parallel()
	c, err := Load(writeFile(t, "[site]\nshow_avatars = false\ntimezone = \"Europe/Berlin\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Site.ShowAvatars {
		t.Error("show_avatars = false was not applied")
	}
	loc, err := c.Location()
	if err != nil || loc.String() != "Europe/Berlin" {
		t.Errorf("location = %v, %v", loc, err)
	}
}

func TestLoadRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []string // fragments the error must contain
	}{
		{"unknown top-level key", "colour = \"red\"\n", []string{"unknown keys", "colour"}},
		{"unknown nested keys", "[site]\ntitel = \"x\"\n[[post_types]]\nname = \"book\"\nbase = \"b\"\n", []string{"site.titel", "post_types.base"}},
		{"bad toml", "[site\n", []string{"config"}},
		{"upper-case name", "[[post_types]]\nname = \"Book\"\n", []string{`post type "Book"`, "a-z"}},
		{"name with space", "[[taxonomies]]\nname = \"a b\"\n", []string{`taxonomy "a b"`}},
		{"empty name", "[[post_types]]\nrest_base = \"x\"\n", []string{"name is required"}},
		{"too long name", "[[post_types]]\nname = \"" + strings.Repeat("a", 33) + "\"\n", []string{"1 to 32"}},
		{"built-in post type", "[[post_types]]\nname = \"page\"\nrest_base = \"my-pages\"\n", []string{`"page"`, "built-in post type"}},
		{"built-in taxonomy", "[[taxonomies]]\nname = \"category\"\nrest_base = \"cats\"\n", []string{"built-in taxonomy"}},
		{"reserved base", "[[post_types]]\nname = \"article\"\nrest_base = \"posts\"\n", []string{`rest_base "posts"`, "built-in route"}},
		{"reserved base by default", "[[taxonomies]]\nname = \"tags\"\n", []string{`rest_base "tags"`}},
		{"duplicate type names", "[[post_types]]\nname = \"book\"\n[[post_types]]\nname = \"book\"\nrest_base = \"books2\"\n", []string{`name is already post type "book"`}},
		{"type and taxonomy share base", "[[post_types]]\nname = \"book\"\nrest_base = \"things\"\n[[taxonomies]]\nname = \"thing\"\nrest_base = \"things\"\n", []string{`rest_base "things" is already used`}},
		{"bad rest base", "[[post_types]]\nname = \"book\"\nrest_base = \"Books/x\"\n", []string{`rest_base "Books/x"`}},
		{"unknown supports", "[[post_types]]\nname = \"book\"\nsupports = [\"title\", \"wings\"]\n", []string{`unknown supports value "wings"`}},
		{"unknown object type", "[[taxonomies]]\nname = \"genre\"\nobject_types = [\"movie\"]\n", []string{`object type "movie"`}},
		{"bad compat", "compat = \"drupal\"\n", []string{`compat "drupal"`}},
		{"bad timezone", "[site]\ntimezone = \"Mars/Olympus\"\n", []string{"site.timezone"}},
		{"bad url", "[site]\nurl = \"example.com/blog\"\n", []string{"site.url"}},
		{"bad default comment status", "[site]\ndefault_comment_status = \"maybe\"\n", []string{"site.default_comment_status", `"open" or "closed"`}},
		{"bad default ping status", "[site]\ndefault_ping_status = \"shut\"\n", []string{"site.default_ping_status"}},
		{"negative default category", "[site]\ndefault_category = -3\n", []string{"site.default_category"}},
		{"negative comment max links", "[site]\ncomment_max_links = -1\n", []string{"site.comment_max_links"}},
		{"negative limit", "[limits]\nmax_upload_bytes = -1\n", []string{"max_upload_bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(writeFile(t, tt.body))
			if err == nil {
				t.Fatal("Load accepted the file")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	if _, err := Load(filepath.Join(t.TempDir(), "nope.toml")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func TestResolvePrecedence(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "addr = \"file:1\"\ndata_dir = \"/file/data\"\ncompat = \"wordpress\"\n[site]\ntitle = \"From file\"\n")
	other := writeFile(t, "addr = \"other:1\"\n")
	tests := []struct {
		name     string
		flags    Overrides
		env      map[string]string
		wantAddr string
		wantData string
		wantDB   string
		wantComp string
		wantFile string
	}{
		{"defaults", Overrides{}, nil, DefaultAddr, DefaultDataDir, "", "", ""},
		{"file over defaults", Overrides{ConfigFile: file}, nil, "file:1", "/file/data", "", "wordpress", file},
		{"file from env", Overrides{}, map[string]string{EnvConfig: file}, "file:1", "/file/data", "", "wordpress", file},
		{"flag file beats env file", Overrides{ConfigFile: other}, map[string]string{EnvConfig: file}, "other:1", DefaultDataDir, "", "", other},
		{"env over file", Overrides{ConfigFile: file}, map[string]string{EnvAddr: "env:2", EnvData: "/env/data", EnvDatabaseURL: "/env/x.db"}, "env:2", "/env/data", "/env/x.db", "wordpress", file},
		{"flags over env", Overrides{ConfigFile: file, Addr: "flag:3", DataDir: "/flag/data", DatabaseURL: "postgres://h/db"}, map[string]string{EnvAddr: "env:2", EnvData: "/env/data", EnvDatabaseURL: "/env/x.db"}, "flag:3", "/flag/data", "postgres://h/db", "wordpress", file},
		{"env compat", Overrides{}, map[string]string{EnvCompat: "wordpress"}, DefaultAddr, DefaultDataDir, "", "wordpress", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Resolve(tt.flags, envMap(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			got := []string{c.Addr, c.DataDir, c.DatabaseURL, c.Compat, c.ConfigFile}
			want := []string{tt.wantAddr, tt.wantData, tt.wantDB, tt.wantComp, tt.wantFile}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestResolveRejectsBadCompatFlag(t *testing.T) {
	t.Parallel()
	if _, err := Resolve(Overrides{Compat: "joomla"}, nil); err == nil || !strings.Contains(err.Error(), "joomla") {
		t.Fatalf("err = %v", err)
	}
}

func TestResolveBadFileFromEnv(t *testing.T) {
	t.Parallel()
	if _, err := Resolve(Overrides{}, envMap(map[string]string{EnvConfig: "/does/not/exist.toml"})); err == nil {
		t.Fatal("Resolve ignored an unreadable FOLIO_CONFIG")
	}
}

func TestDatabasePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data, url string
		want      string
		postgres  bool
	}{
		{"/srv/folio", "", "/srv/folio/folio.db", false},
		{"./folio-data", "", "folio-data/folio.db", false},
		{"/srv/folio", "/var/lib/site.db", "/var/lib/site.db", false},
		{"/srv/folio", "sqlite:///var/lib/site.db", "/var/lib/site.db", false},
		{"/srv/folio", "file:/tmp/x.db", "/tmp/x.db", false},
		{"/srv/folio", "postgres://u@h/db", "postgres://u@h/db", true},
		{"/srv/folio", "postgresql://u@h/db", "postgresql://u@h/db", true},
	}
	for _, tt := range tests {
		c := &Config{DataDir: tt.data, DatabaseURL: tt.url}
		if got := c.DatabasePath(); got != tt.want {
			t.Errorf("DatabasePath(%q, %q) = %q, want %q", tt.data, tt.url, got, tt.want)
		}
		if got := c.IsPostgres(); got != tt.postgres {
			t.Errorf("IsPostgres(%q) = %v", tt.url, got)
		}
	}
}

func TestLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tz      string
		want    string
		wantErr bool
	}{
		{"", "UTC", false},
		{"UTC", "UTC", false},
		{"America/New_York", "America/New_York", false},
		{"Nowhere/Special", "", true},
	}
	for _, tt := range tests {
		c := &Config{Site: Site{Timezone: tt.tz}}
		loc, err := c.Location()
		if (err != nil) != tt.wantErr {
			t.Errorf("Location(%q) err = %v", tt.tz, err)
			continue
		}
		if err == nil && loc.String() != tt.want {
			t.Errorf("Location(%q) = %q, want %q", tt.tz, loc, tt.want)
		}
	}
}

func TestSiteURLTrailingSlashRemoved(t *testing.T) {
	t.Parallel()
	c, err := Load(writeFile(t, "[site]\nurl = \"https://example.com/blog/\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Site.URL != "https://example.com/blog" {
		t.Errorf("url = %q", c.Site.URL)
	}
}
