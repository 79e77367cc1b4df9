package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	// The zone database is embedded so that site.timezone works on hosts
	// without one.
	_ "time/tzdata"
)

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
