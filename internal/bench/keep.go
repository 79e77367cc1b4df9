package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// keptFile is the file in a kept site's directory that describes it.
const keptFile = "bench-site.json"

// keptSite describes a site that a run seeded and kept (Options.Keep), so
// that a later run can measure it again without seeding.
type keptSite struct {
	// Backend is SQLite or PostgreSQL.
	Backend string `json:"backend"`
	// Posts is the number of posts seeded (the runs add more).
	Posts int `json:"posts"`
	// Database is the URL of the kept PostgreSQL schema (empty for
	// SQLite: the directory is the site).
	Database string `json:"database,omitempty"`
	// IDs are the seeded posts' ids as [first, last] ranges.
	IDs [][2]int64 `json:"ids"`
}

// readKept returns the site kept in dir, or nil when dir does not exist or
// is empty. A directory that holds anything else is refused: the benchmark
// never seeds into a directory it did not make.
func readKept(dir string) (*keptSite, error) {
	b, err := os.ReadFile(filepath.Join(dir, keptFile))
	if err == nil {
		var k keptSite
		if err := json.Unmarshal(b, &k); err != nil {
			return nil, fmt.Errorf("keep %s: %s: %w", dir, keptFile, err)
		}
		return &k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keep %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keep %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return nil, fmt.Errorf("keep %s: the directory is not empty and holds no site a benchmark kept (%s)", dir, keptFile)
	}
	return nil, nil
}

// writeKept records k in dir, atomically.
func writeKept(dir string, k *keptSite) error {
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, keptFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("keep: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, keptFile)); err != nil {
		return fmt.Errorf("keep: %w", err)
	}
	return nil
}

// idRanges packs ids into [first, last] ranges of consecutive ids.
func idRanges(ids []int64) [][2]int64 {
	var rs [][2]int64
	for _, id := range ids {
		if n := len(rs); n > 0 && rs[n-1][1]+1 == id {
			rs[n-1][1] = id
			continue
		}
		rs = append(rs, [2]int64{id, id})
	}
	return rs
}

// expandRanges is the inverse of idRanges.
func expandRanges(rs [][2]int64) []int64 {
	var ids []int64
	for _, r := range rs {
		for id := r[0]; id <= r[1]; id++ {
			ids = append(ids, id)
		}
	}
	return ids
}
