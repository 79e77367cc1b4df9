// Package config holds Folio's run-time configuration: where to listen,
// where the data lives, the site options and the post types and taxonomies
// declared in the optional folio.toml file.
//
// Values come from, in order of precedence: command-line flags, FOLIO_*
// environment variables, the config file and the defaults of Default.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	// The zone database is embedded so that site.timezone works on hosts
	// without one.
	_ "time/tzdata"
)

// Default values used when nothing else sets them.
const (
	DefaultAddr           = "127.0.0.1:8080"
	DefaultDataDir        = "./folio-data"
	DefaultTitle          = "Folio"
	DefaultTimezone       = "UTC"
	DefaultMaxBodyBytes   = 10 << 20
	DefaultMaxUploadBytes = 64 << 20
	// DatabaseFile is the SQLite file name inside the data directory.
	DatabaseFile = "folio.db"
	// CompatWordPress selects the WordPress names for the API.
	CompatWordPress = "wordpress"
)

// Environment variable names read by ApplyEnv and Resolve.
const (
	EnvAddr        = "FOLIO_ADDR"
	EnvData        = "FOLIO_DATA"
	EnvConfig      = "FOLIO_CONFIG"
	EnvDatabaseURL = "FOLIO_DATABASE_URL"
	EnvCompat      = "FOLIO_COMPAT"
)

// Config is the whole run-time configuration of one Folio process.
type Config struct {
	// Addr is the host:port serve listens on.
	Addr string `toml:"addr"`
	// DataDir holds the SQLite database and uploads.
	DataDir string `toml:"data_dir"`
	// DatabaseURL selects the database; empty means SQLite at
	// DataDir/folio.db, a postgres:// URL selects PostgreSQL, anything else
	// is taken as the path of a SQLite file (an optional sqlite:// or file:
	// prefix is removed).
	DatabaseURL string `toml:"database_url"`
	// Compat is "" for the spec's names or "wordpress" for WordPress names.
	Compat string `toml:"compat"`
	// ConfigFile is the file the configuration was read from, if any.
	ConfigFile string `toml:"-"`

	Site       Site       `toml:"site"`
	PostTypes  []PostType `toml:"post_types"`
	Taxonomies []Taxonomy `toml:"taxonomies"`
	Limits     Limits     `toml:"limits"`
}

// Site holds the site options.
type Site struct {
	Title       string `toml:"title"`
	Description string `toml:"description"`
	// URL is the public URL used in links, without a trailing slash; when
	// empty, links use the scheme and host of each request.
	URL         string `toml:"url"`
	ShowAvatars bool   `toml:"show_avatars"`
	// Timezone is an IANA zone name; the default is "UTC".
	Timezone string `toml:"timezone"`
}

// PostType is a custom post type declared in the config file.
type PostType struct {
	Name          string   `toml:"name"`
	RestBase      string   `toml:"rest_base"`
	Hierarchical  bool     `toml:"hierarchical"`
	Supports      []string `toml:"supports"`
	Label         string   `toml:"label"`
	SingularLabel string   `toml:"singular_label"`
	Description   string   `toml:"description"`
}

// Taxonomy is a custom taxonomy declared in the config file.
type Taxonomy struct {
	Name          string   `toml:"name"`
	RestBase      string   `toml:"rest_base"`
	Hierarchical  bool     `toml:"hierarchical"`
	ObjectTypes   []string `toml:"object_types"`
	Label         string   `toml:"label"`
	SingularLabel string   `toml:"singular_label"`
	Description   string   `toml:"description"`
}

// Limits bounds request sizes.
type Limits struct {
	// MaxBodyBytes bounds JSON and form request bodies.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
	// MaxUploadBytes bounds media uploads.
	MaxUploadBytes int64 `toml:"max_upload_bytes"`
}

// BuiltinPostTypes are the post type names Folio defines itself.
var BuiltinPostTypes = []string{"post", "page", "attachment", "revision"}

// BuiltinTaxonomies are the taxonomy names Folio defines itself.
var BuiltinTaxonomies = []string{"category", "post_tag"}

// ReservedRestBases are the route bases Folio's own endpoints use.
var ReservedRestBases = []string{"posts", "pages", "media", "types", "statuses", "taxonomies", "users", "comments", "categories", "tags", "settings", "search"}

// PostTypeFeatures are the values accepted in a post type's supports list.
var PostTypeFeatures = []string{"title", "editor", "author", "thumbnail", "excerpt", "trackbacks", "custom-fields", "comments", "revisions", "page-attributes", "post-formats"}

// defaultSupports is what a post type supports when the file says nothing,
// as the original's register_post_type does.
var defaultSupports = []string{"title", "editor"}

var namePattern = regexp.MustCompile(`^[a-z0-9_-]+$`)

// maxNameLen is the longest post type or taxonomy name accepted (the
// original's column limit for post types is 20, for taxonomies 32).
const maxNameLen = 32

// Default returns the configuration used when nothing is set.
func Default() *Config {
	return &Config{
		Addr:    DefaultAddr,
		DataDir: DefaultDataDir,
		Site: Site{
			Title:       DefaultTitle,
			ShowAvatars: true,
			Timezone:    DefaultTimezone,
		},
		Limits: Limits{
			MaxBodyBytes:   DefaultMaxBodyBytes,
			MaxUploadBytes: DefaultMaxUploadBytes,
		},
	}
}

// Load reads the TOML file at path over the defaults, fills derived values
// (rest bases, labels) and validates the result. Keys the file has that
// Config does not know are an error naming them.
func Load(path string) (*Config, error) {
	c := Default()
	md, err := toml.DecodeFile(path, c)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("config %s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	c.ConfigFile = path
	if err := c.Normalize(); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Overrides are values given on the command line; empty strings mean "not
// given".
type Overrides struct {
	Addr        string
	DataDir     string
	DatabaseURL string
	Compat      string
	ConfigFile  string
}

// Resolve builds the configuration from flags, the environment (read with
// getenv; nil means no environment), the config file named by the flags or
// FOLIO_CONFIG, and the defaults, in that order of precedence.
func Resolve(flags Overrides, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	path := flags.ConfigFile
	if path == "" {
		path = getenv(EnvConfig)
	}
	var c *Config
	if path != "" {
		var err error
		if c, err = Load(path); err != nil {
			return nil, err
		}
	} else {
		c = Default()
	}
	c.ApplyEnv(getenv)
	c.Apply(flags)
	if err := c.Normalize(); err != nil {
		return nil, err
	}
	return c, nil
}

// ApplyEnv overrides c with the FOLIO_* variables that getenv reports as
// non-empty.
func (c *Config) ApplyEnv(getenv func(string) string) {
	c.Apply(Overrides{
		Addr:        getenv(EnvAddr),
		DataDir:     getenv(EnvData),
		DatabaseURL: getenv(EnvDatabaseURL),
		Compat:      getenv(EnvCompat),
	})
}

// Apply overrides c with the non-empty values of o (except ConfigFile,
// which only names where the file came from).
func (c *Config) Apply(o Overrides) {
	if o.Addr != "" {
		c.Addr = o.Addr
	}
	if o.DataDir != "" {
		c.DataDir = o.DataDir
	}
	if o.DatabaseURL != "" {
		c.DatabaseURL = o.DatabaseURL
	}
	if o.Compat != "" {
		c.Compat = o.Compat
	}
}

// Normalize fills derived defaults (rest bases, labels, supports, limits)
// and validates c. It is idempotent.
func (c *Config) Normalize() error {
	var errs []error
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	switch c.Compat {
	case "", CompatWordPress:
	default:
		errs = append(errs, fmt.Errorf("compat %q: must be empty or %q", c.Compat, CompatWordPress))
	}
	if c.Site.Timezone == "" {
		c.Site.Timezone = DefaultTimezone
	}
	if _, err := c.Location(); err != nil {
		errs = append(errs, err)
	}
	if c.Site.URL != "" {
		u, err := url.Parse(c.Site.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("site.url %q: must be an absolute http or https URL", c.Site.URL))
		}
		c.Site.URL = strings.TrimRight(c.Site.URL, "/")
	}
	if c.Limits.MaxBodyBytes == 0 {
		c.Limits.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.Limits.MaxUploadBytes == 0 {
		c.Limits.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if c.Limits.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("limits.max_body_bytes %d: must be positive", c.Limits.MaxBodyBytes))
	}
	if c.Limits.MaxUploadBytes < 0 {
		errs = append(errs, fmt.Errorf("limits.max_upload_bytes %d: must be positive", c.Limits.MaxUploadBytes))
	}
	errs = append(errs, c.normalizeTypes()...)
	return errors.Join(errs...)
}

// normalizeTypes fills and checks the custom post types and taxonomies.
func (c *Config) normalizeTypes() []error {
	var errs []error
	names := map[string]string{} // name → what uses it
	bases := map[string]string{}
	for _, n := range BuiltinPostTypes {
		names[n] = "a built-in post type"
	}
	for _, n := range BuiltinTaxonomies {
		names[n] = "a built-in taxonomy"
	}
	for _, b := range ReservedRestBases {
		bases[b] = "a built-in route"
	}
	claim := func(what, name, base string) {
		if prev, ok := names[name]; ok {
			errs = append(errs, fmt.Errorf("%s %q: name is already %s", what, name, prev))
		} else {
			names[name] = fmt.Sprintf("%s %q", what, name)
		}
		if prev, ok := bases[base]; ok {
			errs = append(errs, fmt.Errorf("%s %q: rest_base %q is already used by %s", what, name, base, prev))
		} else {
			bases[base] = fmt.Sprintf("%s %q", what, name)
		}
	}

	postTypes := map[string]bool{}
	for _, n := range BuiltinPostTypes {
		postTypes[n] = true
	}
	for i := range c.PostTypes {
		pt := &c.PostTypes[i]
		if err := checkName("post type", pt.Name); err != nil {
			errs = append(errs, err)
			continue
		}
		if pt.RestBase == "" {
			pt.RestBase = pt.Name
		}
		if err := checkBase("post type", pt.Name, pt.RestBase); err != nil {
			errs = append(errs, err)
			continue
		}
		claim("post type", pt.Name, pt.RestBase)
		postTypes[pt.Name] = true
		if pt.Supports == nil {
			pt.Supports = append([]string(nil), defaultSupports...)
		}
		for _, f := range pt.Supports {
			if !contains(PostTypeFeatures, f) {
				errs = append(errs, fmt.Errorf("post type %q: unknown supports value %q (known: %s)", pt.Name, f, strings.Join(PostTypeFeatures, ", ")))
			}
		}
		pt.SingularLabel, pt.Label = labels(pt.Name, pt.RestBase, pt.SingularLabel, pt.Label)
	}
	for i := range c.Taxonomies {
		tx := &c.Taxonomies[i]
		if err := checkName("taxonomy", tx.Name); err != nil {
			errs = append(errs, err)
			continue
		}
		if tx.RestBase == "" {
			tx.RestBase = tx.Name
		}
		if err := checkBase("taxonomy", tx.Name, tx.RestBase); err != nil {
			errs = append(errs, err)
			continue
		}
		claim("taxonomy", tx.Name, tx.RestBase)
		for _, ot := range tx.ObjectTypes {
			if !postTypes[ot] {
				errs = append(errs, fmt.Errorf("taxonomy %q: object type %q is not a known post type", tx.Name, ot))
			}
		}
		tx.SingularLabel, tx.Label = labels(tx.Name, tx.RestBase, tx.SingularLabel, tx.Label)
	}
	return errs
}

func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("%s: name is required", what)
	}
	if len(name) > maxNameLen || !namePattern.MatchString(name) {
		return fmt.Errorf("%s %q: name must be 1 to %d characters of a-z, 0-9, _ and -", what, name, maxNameLen)
	}
	return nil
}

func checkBase(what, name, base string) error {
	if !namePattern.MatchString(base) {
		return fmt.Errorf("%s %q: rest_base %q must be characters of a-z, 0-9, _ and -", what, name, base)
	}
	return nil
}

// labels fills empty labels from the name and rest base: "book"/"books"
// gives "Book"/"Books".
func labels(name, base, singular, plural string) (string, string) {
	if singular == "" {
		singular = titleWords(name)
	}
	if plural == "" {
		plural = titleWords(base)
	}
	return singular, plural
}

func titleWords(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// IsPostgres reports whether DatabaseURL selects PostgreSQL.
func (c *Config) IsPostgres() bool {
	return strings.HasPrefix(c.DatabaseURL, "postgres://") || strings.HasPrefix(c.DatabaseURL, "postgresql://")
}

// DatabasePath returns the SQLite database file: DataDir/folio.db unless
// DatabaseURL names another (for a PostgreSQL URL it returns the URL).
func (c *Config) DatabasePath() string {
	if c.DatabaseURL == "" {
		return filepath.Join(c.DataDir, DatabaseFile)
	}
	if c.IsPostgres() {
		return c.DatabaseURL
	}
	p := strings.TrimPrefix(c.DatabaseURL, "sqlite://")
	return strings.TrimPrefix(p, "file:")
}

// Location returns the site's time zone.
func (c *Config) Location() (*time.Location, error) {
	tz := c.Site.Timezone
	if tz == "" {
		tz = DefaultTimezone
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("site.timezone %q: %w", tz, err)
	}
	return loc, nil
}
