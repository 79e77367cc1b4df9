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
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
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

// Limits bounds request sizes.
type Limits struct {
	// MaxBodyBytes bounds JSON and form request bodies.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
	// MaxUploadBytes bounds media uploads.
	MaxUploadBytes int64 `toml:"max_upload_bytes"`
	// UploadMinRate is the slowest average rate, in bytes per second, an
	// upload body may arrive at: on upload routes the server's 60 s read
	// timeout becomes 60 s plus one second per UploadMinRate bytes
	// received, up to 60 s + max_upload_bytes / UploadMinRate; default
	// 32 KiB/s.
	UploadMinRate int64 `toml:"upload_min_rate"`

	// RateLimits turns the API rate limits on or off; unset means on.
	// FOLIO_RATE_LIMITS set to "off", "false" or "0" turns them off
	// whatever the file says.
	RateLimits *bool `toml:"rate_limits"`
	// RatePerNode, on PostgreSQL, keeps the rate-limit buckets in each
	// node's memory (each node then allows the whole budget) instead of
	// in the database, where every node shares them (the default, one
	// small write per API request). SQLite sites always keep them in
	// memory.
	RatePerNode bool `toml:"rate_per_node"`
	// RateMaxKeys bounds how many buckets a node keeps in memory; 0
	// means 100 000.
	RateMaxKeys int `toml:"rate_max_keys"`
	// Anonymous are the budgets of each client address without a
	// signed-in user ([limits.anonymous]); User those of each signed-in
	// user ([limits.user]). Unset budgets take the defaults of
	// DefaultAnonymousRates and DefaultUserRates.
	Anonymous RateBudgets `toml:"anonymous"`
	User      RateBudgets `toml:"user"`
}

// RateBudgets holds the budget of each class of API requests: reads
// (GET, HEAD, OPTIONS), writes (other methods), searches (reads with a
// search argument) and uploads (media files).
type RateBudgets struct {
	Read   Rate `toml:"read"`
	Write  Rate `toml:"write"`
	Search Rate `toml:"search"`
	Upload Rate `toml:"upload"`
}

// Rate is a token bucket: Rate requests a second on average, with bursts
// of up to Burst requests. Zero values take the default.
type Rate struct {
	Rate  float64 `toml:"rate"`
	Burst int     `toml:"burst"`
}

// The default rate-limit budgets: well above what a person reading or
// editing in a browser makes, well below what a script can.
var (
	DefaultAnonymousRates = RateBudgets{
		Read:   Rate{Rate: 20, Burst: 300},
		Write:  Rate{Rate: 2, Burst: 20},
		Search: Rate{Rate: 10, Burst: 50},
		Upload: Rate{Rate: 1, Burst: 10},
	}
	DefaultUserRates = RateBudgets{
		Read:   Rate{Rate: 50, Burst: 1000},
		Write:  Rate{Rate: 10, Burst: 200},
		Search: Rate{Rate: 20, Burst: 100},
		Upload: Rate{Rate: 2, Burst: 50},
	}
)

// RateLimitsOn reports whether the API rate limits are on (see
// Limits.RateLimits).
func (l Limits) RateLimitsOn() bool {
	switch strings.ToLower(os.Getenv(EnvRateLimits)) {
	case "off", "false", "0":
		return false
	}
	return l.RateLimits == nil || *l.RateLimits
}

// normalizeRates fills unset budgets with the defaults and checks them.
func (c *Config) normalizeRates() []error {
	var errs []error
	if c.Limits.RateMaxKeys < 0 {
		errs = append(errs, fmt.Errorf("limits.rate_max_keys %d: must be positive", c.Limits.RateMaxKeys))
	}
	for _, g := range []struct {
		name string
		b    *RateBudgets
		def  RateBudgets
	}{{"anonymous", &c.Limits.Anonymous, DefaultAnonymousRates}, {"user", &c.Limits.User, DefaultUserRates}} {
		for _, r := range []struct {
			name string
			v    *Rate
			def  Rate
		}{{"read", &g.b.Read, g.def.Read}, {"write", &g.b.Write, g.def.Write}, {"search", &g.b.Search, g.def.Search}, {"upload", &g.b.Upload, g.def.Upload}} {
			if r.v.Rate == 0 {
				r.v.Rate = r.def.Rate
			}
			if r.v.Burst == 0 {
				r.v.Burst = r.def.Burst
			}
			if r.v.Rate < 0 || r.v.Burst < 0 {
				errs = append(errs, fmt.Errorf("limits.%s.%s: rate and burst must be positive", g.name, r.name))
			}
		}
	}
	return errs
}

// DefaultUploadMinRate is the default Limits.UploadMinRate.
const DefaultUploadMinRate = 32 << 10

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
