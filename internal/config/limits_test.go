package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUploadAndImageLimitsDefaultsAndFile(t *testing.T) {
	c := Default()
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	if c.Limits.UploadMinRate != DefaultUploadMinRate || c.Media.ImageMemoryBytes != DefaultImageMemoryBytes || c.Media.ImageQueueLen() != DefaultImageQueue {
		t.Fatalf("defaults: rate %d, budget %d, queue %d", c.Limits.UploadMinRate, c.Media.ImageMemoryBytes, c.Media.ImageQueueLen())
	}
	path := filepath.Join(t.TempDir(), "folio.toml")
	body := "[limits]\nupload_min_rate = 1024\n[media]\nimage_memory_bytes = 1000000\nimage_queue = 0\nimage_workers = 3\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.UploadMinRate != 1024 || c.Media.ImageMemoryBytes != 1000000 || c.Media.ImageQueueLen() != 0 || c.Media.ImageWorkers != 3 {
		t.Fatalf("from the file: %+v %+v", c.Limits, c.Media)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Limits.UploadMinRate = -1 },
		func(c *Config) { c.Media.ImageMemoryBytes = -1 },
		func(c *Config) { n := -1; c.Media.ImageQueue = &n },
	} {
		c := Default()
		bad(c)
		if err := c.Normalize(); err == nil {
			t.Errorf("Normalize accepted %+v %+v", c.Limits, c.Media)
		}
	}
}

// TestRateLimitAndRetentionSettings checks the [limits] rate budgets and
// [webhook_retention]: defaults, values from the file, refusals, and
// FOLIO_RATE_LIMITS=off.
func TestRateLimitAndRetentionSettings(t *testing.T) {
	c := Default()
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	if c.Limits.Anonymous != DefaultAnonymousRates || c.Limits.User != DefaultUserRates || !c.Limits.RateLimitsOn() {
		t.Fatalf("default rates: %+v %+v", c.Limits.Anonymous, c.Limits.User)
	}
	if c.Limits.Anonymous.Search != (Rate{Rate: 10, Burst: 50}) {
		t.Fatalf("anonymous search default %+v", c.Limits.Anonymous.Search)
	}
	if c.WebhookRetention.Days != 30 || c.WebhookRetention.MaxEvents != DefaultWebhookMaxEvents {
		t.Fatalf("default retention %+v", c.WebhookRetention)
	}
	path := filepath.Join(t.TempDir(), "folio.toml")
	body := "[limits]\nrate_limits = false\nrate_per_node = true\n[limits.anonymous]\nsearch = { rate = 2 }\n[limits.user]\nwrite = { rate = 5, burst = 7 }\n" +
		"[webhook_retention]\ndays = 7\nmax_events = 1000\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.RateLimitsOn() || !c.Limits.RatePerNode {
		t.Fatalf("rate_limits/rate_per_node from the file: %+v", c.Limits)
	}
	if c.Limits.Anonymous.Search != (Rate{Rate: 2, Burst: 50}) || c.Limits.User.Write != (Rate{Rate: 5, Burst: 7}) || c.Limits.Anonymous.Read != DefaultAnonymousRates.Read {
		t.Fatalf("budgets from the file: %+v %+v", c.Limits.Anonymous, c.Limits.User)
	}
	if c.WebhookRetention != (WebhookRetention{Days: 7, MaxEvents: 1000}) {
		t.Fatalf("retention from the file: %+v", c.WebhookRetention)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Limits.Anonymous.Read.Rate = -1 },
		func(c *Config) { c.Limits.User.Upload.Burst = -1 },
		func(c *Config) { c.Limits.RateMaxKeys = -1 },
		func(c *Config) { c.WebhookRetention.Days = -1 },
		func(c *Config) { c.WebhookRetention.MaxEvents = -1 },
	} {
		c := Default()
		bad(c)
		if err := c.Normalize(); err == nil {
			t.Errorf("Normalize accepted %+v %+v", c.Limits, c.WebhookRetention)
		}
	}
	t.Setenv(EnvRateLimits, "off")
	if Default().Limits.RateLimitsOn() {
		t.Fatal("FOLIO_RATE_LIMITS=off left the limits on")
	}
}
