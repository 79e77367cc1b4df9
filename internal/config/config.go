// Package config holds Folio's run-time configuration: where to listen,
// where the data lives, the site options and the post types and taxonomies
// declared in the optional folio.toml file.
//
// Values come from, in order of precedence: command-line flags, FOLIO_*
// environment variables, the config file and the defaults of Default.
package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"sort"
	"strconv"
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
	EnvMediaURL    = "FOLIO_MEDIA_URL"
	// EnvCORSOrigins is a comma-separated list of allowed CORS origins
	// (see CORS).
	EnvCORSOrigins = "FOLIO_CORS_ORIGINS"
	// Connection pool settings (see DB).
	EnvDBMaxConns        = "FOLIO_DB_MAX_CONNS"
	EnvDBMinConns        = "FOLIO_DB_MIN_CONNS"
	EnvDBMaxConnLifetime = "FOLIO_DB_MAX_CONN_LIFETIME"
	EnvDBConnectTimeout  = "FOLIO_DB_CONNECT_TIMEOUT"
	// EnvRateLimits set to "off" turns the API rate limits off (see
	// Limits.RateLimits).
	EnvRateLimits = "FOLIO_RATE_LIMITS"
)

// Config is the whole run-time configuration of one Folio process.
type Config struct {
	// Addr is the host:port serve listens on.
	Addr string `toml:"addr"`
	// DataDir holds the SQLite database and uploads.
	DataDir string `toml:"data_dir"`
	// DatabaseURL selects the database; empty means SQLite at
	// DataDir/folio.db, a postgres:// (or postgresql://) URL selects
	// PostgreSQL, a path ending in .db (.sqlite, .sqlite3) names a SQLite
	// file (an optional sqlite:// or file: prefix is removed) and an
	// existing directory means its folio.db. Normalize refuses anything
	// else (see DatabaseForms).
	DatabaseURL string `toml:"database_url"`
	// Compat is "" for the spec's names or "wordpress" for WordPress names.
	Compat string `toml:"compat"`
	// ConfigFile is the file the configuration was read from, if any.
	ConfigFile string `toml:"-"`

	Site       Site       `toml:"site"`
	PostTypes  []PostType `toml:"post_types"`
	Taxonomies []Taxonomy `toml:"taxonomies"`
	Limits     Limits     `toml:"limits"`
	// Webhooks are outbound webhooks declared in the file ([[webhooks]]).
	Webhooks []Webhook `toml:"webhooks"`
	// WebhookRetention bounds the webhook events and delivery records
	// kept ([webhook_retention]; the name [webhooks] is the list of
	// declared webhooks).
	WebhookRetention WebhookRetention `toml:"webhook_retention"`
	Media            Media            `toml:"media"`
	DB               DB               `toml:"db"`
	Cache            Cache            `toml:"cache"`
	CORS             CORS             `toml:"cors"`
	Server           Server           `toml:"server"`
	Log              Log              `toml:"log"`
}

// RedactURL returns a database URL fit for messages and logs: a password
// in the user information or in a password parameter is replaced by
// "xxxxx". Text that does not parse as a URL is not shown at all.
func RedactURL(s string) string {
	if !strings.Contains(s, "://") {
		return s // a file path
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable database URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Server holds settings about the network around the process ([server] in
// the file).
type Server struct {
	// TrustedProxies lists the addresses (IPs or CIDR prefixes) of reverse
	// proxies whose X-Forwarded-For and X-Forwarded-Proto headers are
	// believed. A request from any other address is taken at its socket
	// address and scheme. Empty (the default) trusts no proxy.
	TrustedProxies []string `toml:"trusted_proxies"`
	// WebhookPrivateTargets lets webhooks deliver to loopback, private,
	// link-local, unique-local and cloud metadata addresses. Off by
	// default, so that a webhook cannot reach inside the network.
	WebhookPrivateTargets bool `toml:"webhook_private_targets"`
	// MetricsAddr is the host:port of the separate listener that serves
	// the Prometheus metrics at /metrics; empty (the default) serves
	// none. Metrics are never served on the public address.
	MetricsAddr string `toml:"metrics_addr"`

	trusted []netip.Prefix
}

// TrustedProxy reports whether addr, a socket address's IP, belongs to a
// configured trusted proxy.
func (s Server) TrustedProxy(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range s.trusted {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// normalizeServer parses the trusted proxy list.
func (c *Config) normalizeServer() []error {
	var errs []error
	c.Server.trusted = c.Server.trusted[:0]
	for _, v := range c.Server.TrustedProxies {
		v = strings.TrimSpace(v)
		var p netip.Prefix
		var err error
		if strings.Contains(v, "/") {
			p, err = netip.ParsePrefix(v)
		} else {
			var a netip.Addr
			a, err = netip.ParseAddr(v)
			if err == nil {
				a = a.Unmap()
				p = netip.PrefixFrom(a, a.BitLen())
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("server.trusted_proxies %q: must be an IP address or a CIDR prefix such as 10.0.0.0/8", v))
			continue
		}
		c.Server.trusted = append(c.Server.trusted, p.Masked())
	}
	return errs
}

// CORS says which web pages on other origins may call the API from a
// browser ([cors] in the file).
type CORS struct {
	// AllowedOrigins lists origins ("https://app.example": scheme, host and
	// an optional port) whose pages may read API responses with
	// credentials; "*" allows every origin, never with credentials. Empty
	// (the default) allows none.
	AllowedOrigins []string `toml:"allowed_origins"`
	// MaxAgeSeconds is how long browsers may keep a preflight answer; 0
	// means one hour.
	MaxAgeSeconds int `toml:"max_age_seconds"`
}

// Cache tunes the in-memory cache of anonymous GET responses. Entries are
// keyed by the store's write version, so a write on any node retires them
// at once; MaxAgeSeconds bounds how long one is served in any case.
type Cache struct {
	// Responses turns the response cache on or off; unset means on.
	Responses *bool `toml:"responses"`
	// MaxBytes bounds its memory; 0 means 16 MiB.
	MaxBytes int `toml:"max_bytes"`
	// MaxAgeSeconds bounds an entry's life; 0 means 60.
	MaxAgeSeconds int `toml:"max_age_seconds"`
}

// ResponsesOn reports whether the response cache is on. FOLIO_RESPONSE_CACHE
// set to "off", "false" or "0" turns it off whatever the file says.
func (c Cache) ResponsesOn() bool {
	switch strings.ToLower(os.Getenv("FOLIO_RESPONSE_CACHE")) {
	case "off", "false", "0":
		return false
	}
	return c.Responses == nil || *c.Responses
}

// DB tunes the database connection pool. Zero values mean the store's
// defaults: for PostgreSQL four connections per CPU (at least 8) per node,
// no idle minimum, connections recycled after an hour and a 5 second
// connection timeout, so that requests fail fast (503) while the server is
// down. For SQLite only MaxConns applies, to the reader pool.
type DB struct {
	MaxConns        int           `toml:"max_conns"`
	MinConns        int           `toml:"min_conns"`
	MaxConnLifetime time.Duration `toml:"max_conn_lifetime"`
	ConnectTimeout  time.Duration `toml:"connect_timeout"`
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
	// AllowAnonymousComments lets callers who are not signed in comment
	// (the default); when false they get rest_comment_login_required.
	AllowAnonymousComments bool `toml:"allow_anonymous_comments"`
	// CommentModeration holds every new comment for moderation.
	CommentModeration bool `toml:"comment_moderation"`
	// CommentPreviouslyApproved approves a comment only when its author
	// name and email already have an approved comment (the default);
	// otherwise it is held.
	CommentPreviouslyApproved bool `toml:"comment_previously_approved"`
	// CommentMaxLinks holds a comment with this many links or more; 0
	// turns the check off. The default is 2.
	CommentMaxLinks int `toml:"comment_max_links"`
	// DefaultCategory is the category a new post without categories gets
	// (and the one that cannot be deleted); the default is 1, the
	// "Uncategorized" category every site starts with.
	DefaultCategory int64 `toml:"default_category"`
	// DefaultCommentStatus and DefaultPingStatus ("open" or "closed", the
	// default "open") are the comment and ping status of new posts of
	// types that support comments, pages excepted (always "closed").
	DefaultCommentStatus string `toml:"default_comment_status"`
	DefaultPingStatus    string `toml:"default_ping_status"`
	// FrontEnd says who shows the site to readers: "builtin" (the
	// default) serves Folio's own server-rendered pages at the
	// permalinks; "none" serves no public pages; an absolute http or
	// https URL names an external front end, and every link (a post's
	// link, term and author archives) points there.
	FrontEnd string `toml:"front_end"`
	// ThemeDir is a directory of Go html/template files that replace the
	// built-in front end's templates of the same names (see
	// docs/front-end.md); empty uses the built-in ones.
	ThemeDir string `toml:"theme_dir"`
	// PostsPerPage is how many posts a page of the built-in front end
	// lists; the default is 10.
	PostsPerPage int `toml:"posts_per_page"`
}

// These [site] options are defaults: the settings route of the API (and
// the admin's settings screen) stores values that win over them; see
// content.Settings.

// Front end values of Site.FrontEnd.
const (
	FrontEndBuiltin = "builtin"
	FrontEndNone    = "none"
	// DefaultPostsPerPage is Site.PostsPerPage when unset.
	DefaultPostsPerPage = 10
)

// BuiltinFrontEnd reports whether Folio serves its own pages at the
// permalinks.
func (s Site) BuiltinFrontEnd() bool {
	return s.FrontEnd == "" || s.FrontEnd == FrontEndBuiltin
}

// ExternalFrontEnd returns the URL of the external front end links point
// to, without a trailing slash; "" when there is none.
func (s Site) ExternalFrontEnd() string {
	if s.BuiltinFrontEnd() || s.FrontEnd == FrontEndNone {
		return ""
	}
	return s.FrontEnd
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

// Media configures uploads: where files are kept, how they are served and
// which file types are accepted.
type Media struct {
	// URL selects the blob storage: empty for the directory DataDir/uploads,
	// file:///some/dir for another directory, or
	// s3://bucket/prefix?endpoint=host:port&region=r&secure=true for an
	// S3-compatible bucket (credentials from access_key/secret_key or the
	// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY environment variables).
	URL string `toml:"url"`
	// AccessKey and SecretKey are the S3 credentials.
	AccessKey string `toml:"access_key"`
	SecretKey string `toml:"secret_key"`
	// PublicURL, when set, is the base URL files are linked from (a CDN or
	// the bucket itself), without a trailing slash; files are then not
	// served by Folio, so media of private posts are not protected there.
	// Empty means Folio serves them under SITE/uploads/.
	PublicURL string `toml:"public_url"`
	// AllowedTypes replaces the default extension allowlist: each entry
	// is "ext" (MIME type from the built-in table) or "ext=mime/type".
	AllowedTypes []string `toml:"allowed_types"`
	// MaxImagePixels refuses images with more pixels than this
	// (decompression bombs); default 50 million.
	MaxImagePixels int64 `toml:"max_image_pixels"`
	// ImageWorkers bounds how many images are decoded and resized at once;
	// default 2.
	ImageWorkers int `toml:"image_workers"`
	// ImageMemoryBytes is the memory budget of image processing: the
	// estimated decoding memory (bytes per pixel × pixels, from the
	// header) of the images worked on at once stays within it, and an
	// image needing more than all of it is refused; default 192 MiB.
	ImageMemoryBytes int64 `toml:"image_memory_bytes"`
	// ImageQueue is how many image uploads may wait for a worker; one more
	// is answered 503 rest_upload_queue_full with Retry-After; default 8.
	ImageQueue *int `toml:"image_queue"`
}

// DefaultMaxImagePixels, DefaultImageWorkers, DefaultImageMemoryBytes and
// DefaultImageQueue are the Media defaults.
const (
	DefaultMaxImagePixels   = 50_000_000
	DefaultImageWorkers     = 2
	DefaultImageMemoryBytes = 192 << 20
	DefaultImageQueue       = 8
)

// ImageQueueLen returns the image queue length: the setting, or
// DefaultImageQueue when unset.
func (m Media) ImageQueueLen() int {
	if m.ImageQueue == nil {
		return DefaultImageQueue
	}
	return *m.ImageQueue
}

// Default returns the configuration used when nothing is set.
func Default() *Config {
	return &Config{
		Addr:    DefaultAddr,
		DataDir: DefaultDataDir,
		Site: Site{
			Title:       DefaultTitle,
			ShowAvatars: true,
			Timezone:    DefaultTimezone,

			AllowAnonymousComments:    true,
			CommentPreviouslyApproved: true,
			CommentMaxLinks:           2,
			DefaultCategory:           1,
			DefaultCommentStatus:      "open",
			DefaultPingStatus:         "open",
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
	MediaURL    string
	// CORSOrigins is a comma-separated list that replaces
	// cors.allowed_origins.
	CORSOrigins string
	// DB pool settings; zero means "not given", -1 a value that did not
	// parse (Normalize reports it).
	DBMaxConns        int
	DBMinConns        int
	DBMaxConnLifetime time.Duration
	DBConnectTimeout  time.Duration
	// MetricsAddr, LogFormat and LogLevel replace server.metrics_addr,
	// log.format and log.level.
	MetricsAddr string
	LogFormat   string
	LogLevel    string
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
		MediaURL:    getenv(EnvMediaURL),
		CORSOrigins: getenv(EnvCORSOrigins),
		MetricsAddr: getenv(EnvMetricsAddr),
		LogFormat:   getenv(EnvLogFormat),
		LogLevel:    getenv(EnvLogLevel),

		DBMaxConns:        envInt(getenv(EnvDBMaxConns)),
		DBMinConns:        envInt(getenv(EnvDBMinConns)),
		DBMaxConnLifetime: envDuration(getenv(EnvDBMaxConnLifetime)),
		DBConnectTimeout:  envDuration(getenv(EnvDBConnectTimeout)),
	})
}

// envInt parses an integer variable: 0 when empty, -1 when malformed.
func envInt(v string) int {
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// envDuration parses a duration variable ("30s"): 0 when empty, -1 when
// malformed.
func envDuration(v string) time.Duration {
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return -1
	}
	return d
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
	if o.MediaURL != "" {
		c.Media.URL = o.MediaURL
	}
	if o.CORSOrigins != "" {
		c.CORS.AllowedOrigins = nil
		for _, v := range strings.Split(o.CORSOrigins, ",") {
			if v = strings.TrimSpace(v); v != "" {
				c.CORS.AllowedOrigins = append(c.CORS.AllowedOrigins, v)
			}
		}
	}
	if o.MetricsAddr != "" {
		c.Server.MetricsAddr = o.MetricsAddr
	}
	if o.LogFormat != "" {
		c.Log.Format = o.LogFormat
	}
	if o.LogLevel != "" {
		c.Log.Level = o.LogLevel
	}
	if o.DBMaxConns != 0 {
		c.DB.MaxConns = o.DBMaxConns
	}
	if o.DBMinConns != 0 {
		c.DB.MinConns = o.DBMinConns
	}
	if o.DBMaxConnLifetime != 0 {
		c.DB.MaxConnLifetime = o.DBMaxConnLifetime
	}
	if o.DBConnectTimeout != 0 {
		c.DB.ConnectTimeout = o.DBConnectTimeout
	}
}
