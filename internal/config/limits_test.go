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
