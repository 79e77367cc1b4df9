package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	// The zone database is embedded so that site.timezone works on hosts
	// without one.
	_ "time/tzdata"
)

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
	errs = append(errs, c.normalizeSiteDefaults()...)
	if c.Site.URL != "" {
		u, err := url.Parse(c.Site.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("site.url %q: must be an absolute http or https URL", c.Site.URL))
		}
		c.Site.URL = strings.TrimRight(c.Site.URL, "/")
	}
	errs = append(errs, c.normalizeFrontEnd()...)
	if err := c.normalizeDatabase(); err != nil {
		errs = append(errs, err)
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
	if c.Limits.UploadMinRate == 0 {
		c.Limits.UploadMinRate = DefaultUploadMinRate
	}
	if c.Limits.UploadMinRate < 0 {
		errs = append(errs, fmt.Errorf("limits.upload_min_rate %d: must be positive", c.Limits.UploadMinRate))
	}
	if c.Limits.MaxUploadBytes < 0 {
		errs = append(errs, fmt.Errorf("limits.max_upload_bytes %d: must be positive", c.Limits.MaxUploadBytes))
	}
	errs = append(errs, c.normalizeRates()...)
	errs = append(errs, c.normalizeRetention()...)
	errs = append(errs, c.normalizeMedia()...)
	errs = append(errs, c.normalizeCORS()...)
	errs = append(errs, c.normalizeServer()...)
	errs = append(errs, c.normalizeOps()...)
	if c.DB.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("db.max_conns (%s): must be a positive integer", EnvDBMaxConns))
	}
	if c.DB.MinConns < 0 {
		errs = append(errs, fmt.Errorf("db.min_conns (%s): must be a positive integer", EnvDBMinConns))
	}
	if c.DB.MaxConns > 0 && c.DB.MinConns > c.DB.MaxConns {
		errs = append(errs, fmt.Errorf("db.min_conns %d: must not exceed db.max_conns %d", c.DB.MinConns, c.DB.MaxConns))
	}
	if c.DB.MaxConnLifetime < 0 {
		errs = append(errs, fmt.Errorf("db.max_conn_lifetime (%s): must be a positive duration such as 30m", EnvDBMaxConnLifetime))
	}
	if c.DB.ConnectTimeout < 0 {
		errs = append(errs, fmt.Errorf("db.connect_timeout (%s): must be a positive duration such as 5s", EnvDBConnectTimeout))
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

// normalizeFrontEnd fills and checks the front end options.
func (c *Config) normalizeFrontEnd() []error {
	var errs []error
	switch c.Site.FrontEnd {
	case "":
		c.Site.FrontEnd = FrontEndBuiltin
	case FrontEndBuiltin, FrontEndNone:
	default:
		u, err := url.Parse(c.Site.FrontEnd)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("site.front_end %q: must be %q, %q or an absolute http or https URL", c.Site.FrontEnd, FrontEndBuiltin, FrontEndNone))
		}
		c.Site.FrontEnd = strings.TrimRight(c.Site.FrontEnd, "/")
	}
	if c.Site.PostsPerPage == 0 {
		c.Site.PostsPerPage = DefaultPostsPerPage
	}
	if c.Site.PostsPerPage < 0 || c.Site.PostsPerPage > 100 {
		errs = append(errs, fmt.Errorf("site.posts_per_page %d: must be 1 to 100", c.Site.PostsPerPage))
	}
	if c.Site.ThemeDir != "" {
		if st, err := os.Stat(c.Site.ThemeDir); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("site.theme_dir %q: must be an existing directory of templates", c.Site.ThemeDir))
		}
	}
	return errs
}

// DatabaseForms names the values --database (FOLIO_DATABASE_URL,
// database_url) accepts, for error messages.
const DatabaseForms = "a postgres:// or postgresql:// URL, a SQLite file ending in .db, or an existing directory"

// sqliteFileExts are the file name endings taken as a SQLite file.
var sqliteFileExts = []string{".db", ".sqlite", ".sqlite3"}

// schemeLike matches text that starts like a URL scheme ("mysql:").
var schemeLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// CheckDatabaseScheme refuses a database value that looks like a URL
// Folio cannot use: one with "://" or a scheme other than postgres,
// postgresql, sqlite and file, and the typos "postgres//..." and
// "postgres:/...". Paths and PostgreSQL URLs pass.
func CheckDatabaseScheme(v string) error {
	if strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://") {
		return nil
	}
	lower := strings.ToLower(v)
	for _, typo := range []string{"postgres:", "postgresql:", "postgres//", "postgresql//"} {
		if strings.HasPrefix(lower, typo) {
			return fmt.Errorf("database %q: not a valid PostgreSQL URL (write postgres://user:password@host:5432/dbname); --database takes %s", schemeOf(v), DatabaseForms)
		}
	}
	p := strings.TrimPrefix(strings.TrimPrefix(v, "sqlite://"), "file:")
	if strings.Contains(p, "://") || schemeLike.MatchString(p) {
		return fmt.Errorf("database %q: unknown kind of database URL; --database takes %s", schemeOf(v), DatabaseForms)
	}
	return nil
}

// schemeOf returns the start of a database value Folio cannot use, up to
// its scheme ("mysql://…"), so that an error never shows the rest, which
// may hold a password.
func schemeOf(v string) string {
	for _, sep := range []string{"://", "//", ":"} {
		if i := strings.Index(v, sep); i >= 0 && i+len(sep) < len(v) {
			return v[:i+len(sep)] + "…"
		}
	}
	return v
}

// normalizeDatabase checks DatabaseURL (see DatabaseForms) and turns an
// existing directory into the path of its folio.db.
func (c *Config) normalizeDatabase() error {
	v := c.DatabaseURL
	if v == "" {
		return nil
	}
	if err := CheckDatabaseScheme(v); err != nil {
		return err
	}
	if c.IsPostgres() {
		if _, err := url.Parse(v); err != nil {
			return fmt.Errorf("database %s: not a valid URL; --database takes %s", RedactURL(v), DatabaseForms)
		}
		return nil
	}
	p := strings.TrimPrefix(strings.TrimPrefix(v, "sqlite://"), "file:")
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		c.DatabaseURL = filepath.Join(p, DatabaseFile)
		return nil
	}
	for _, ext := range sqliteFileExts {
		if strings.HasSuffix(strings.ToLower(p), ext) && len(p) > len(ext) {
			return nil
		}
	}
	return fmt.Errorf("database %q: not a postgres:// URL, a .db file or an existing directory; --database takes %s", v, DatabaseForms)
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

// normalizeSiteDefaults fills and checks the [site] options of new posts.
func (c *Config) normalizeSiteDefaults() []error {
	var errs []error
	if c.Site.DefaultCategory == 0 {
		c.Site.DefaultCategory = 1
	}
	if c.Site.DefaultCategory < 0 {
		errs = append(errs, fmt.Errorf("site.default_category %d: must be a category id", c.Site.DefaultCategory))
	}
	if c.Site.CommentMaxLinks < 0 {
		errs = append(errs, fmt.Errorf("site.comment_max_links %d: must be 0 (no limit) or more", c.Site.CommentMaxLinks))
	}
	for _, o := range []struct {
		name string
		v    *string
	}{{"default_comment_status", &c.Site.DefaultCommentStatus}, {"default_ping_status", &c.Site.DefaultPingStatus}} {
		switch *o.v {
		case "":
			*o.v = "open"
		case "open", "closed":
		default:
			errs = append(errs, fmt.Errorf("site.%s %q: must be \"open\" or \"closed\"", o.name, *o.v))
		}
	}
	return errs
}

// normalizeMedia fills the media defaults and checks the storage URL.
func (c *Config) normalizeMedia() []error {
	var errs []error
	if c.Media.MaxImagePixels == 0 {
		c.Media.MaxImagePixels = DefaultMaxImagePixels
	}
	if c.Media.ImageWorkers == 0 {
		c.Media.ImageWorkers = DefaultImageWorkers
	}
	if c.Media.MaxImagePixels < 0 {
		errs = append(errs, fmt.Errorf("media.max_image_pixels %d: must be positive", c.Media.MaxImagePixels))
	}
	if c.Media.ImageWorkers < 0 {
		errs = append(errs, fmt.Errorf("media.image_workers %d: must be positive", c.Media.ImageWorkers))
	}
	if c.Media.ImageMemoryBytes == 0 {
		c.Media.ImageMemoryBytes = DefaultImageMemoryBytes
	}
	if c.Media.ImageMemoryBytes < 0 {
		errs = append(errs, fmt.Errorf("media.image_memory_bytes %d: must be positive", c.Media.ImageMemoryBytes))
	}
	if c.Media.ImageQueueLen() < 0 {
		errs = append(errs, fmt.Errorf("media.image_queue %d: must be 0 or more", c.Media.ImageQueueLen()))
	}
	if c.Media.URL != "" {
		u, err := url.Parse(c.Media.URL)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("media.url (%s): %w", EnvMediaURL, err))
		case u.Scheme == "s3" && u.Host == "":
			errs = append(errs, fmt.Errorf("media.url %q (%s): an s3 URL needs a bucket: s3://bucket?endpoint=host:port", u.Redacted(), EnvMediaURL))
		case u.Scheme != "s3" && u.Scheme != "file":
			errs = append(errs, fmt.Errorf("media.url %q (%s): must be s3://bucket?endpoint=... or file:///dir", u.Redacted(), EnvMediaURL))
		}
	}
	if c.Media.PublicURL != "" {
		u, err := url.Parse(c.Media.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("media.public_url %q: must be an absolute http or https URL", c.Media.PublicURL))
		}
		c.Media.PublicURL = strings.TrimRight(c.Media.PublicURL, "/")
	}
	return errs
}

// UploadsDir returns the directory uploads are kept in when they are kept
// on disk: the path of a file:// media URL, else DataDir/uploads.
func (c *Config) UploadsDir() string {
	if strings.HasPrefix(c.Media.URL, "file://") {
		if u, err := url.Parse(c.Media.URL); err == nil && u.Path != "" {
			return u.Path
		}
	}
	return filepath.Join(c.DataDir, "uploads")
}

// normalizeCORS checks the allowed origins and writes them the way
// browsers send the Origin header (lower-case, no trailing slash).
func (c *Config) normalizeCORS() []error {
	var errs []error
	if c.CORS.MaxAgeSeconds < 0 {
		errs = append(errs, fmt.Errorf("cors.max_age_seconds %d: must be positive", c.CORS.MaxAgeSeconds))
	}
	for i, o := range c.CORS.AllowedOrigins {
		o = strings.TrimSpace(o)
		if o == "*" {
			c.CORS.AllowedOrigins[i] = o
			continue
		}
		u, err := url.Parse(strings.TrimRight(o, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			errs = append(errs, fmt.Errorf("cors.allowed_origins %q (%s): must be \"*\" or an origin such as https://app.example.com", o, EnvCORSOrigins))
			continue
		}
		c.CORS.AllowedOrigins[i] = strings.ToLower(u.Scheme + "://" + u.Host)
	}
	return errs
}
