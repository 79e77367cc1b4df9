package rest

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// CacheConfig turns on the response cache for anonymous reads.
//
// A cached response is keyed by the request's base URL, path and query and
// by the store's write version: any committed write, on any node, moves the
// version on and so retires every entry at once. Version is read on every
// cacheable request, which is what keeps several nodes correct. Entries
// also expire after MaxAge, which bounds the staleness of anything a
// response depends on besides the database (an extension field reading an
// outside source, say).
type CacheConfig struct {
	// Version returns the store's current write version.
	Version func(ctx context.Context) (int64, error)
	// MaxBytes bounds the memory the cache holds; 0 means 16 MiB.
	MaxBytes int
	// MaxAge bounds how long an entry is served; 0 means one minute.
	MaxAge time.Duration
}

// maxCachedBody is the largest body the cache keeps.
const maxCachedBody = 1 << 20

type cachedResponse struct {
	version int64
	expires time.Time
	status  int
	header  http.Header // complete response headers written by the route
	body    []byte
	etag    string // the entity tag of a 200 answer
	route   string // the route label (reqlog) of the request that made it
}

func (c *cachedResponse) size() int { return len(c.body) + 512 }

// responseCache holds encoded responses of anonymous GET requests.
type responseCache struct {
	cfg   CacheConfig
	now   func() time.Time
	mu    sync.RWMutex
	m     map[string]*cachedResponse
	bytes int
	// newest is the newest version put; every entry held is of it.
	newest int64
	// hits and misses count lookups, for CacheStats.
	hits, misses atomic.Uint64
}

// CacheStats describes the response cache at a moment, for the metrics.
type CacheStats struct {
	// Hits and Misses count the lookups of cacheable requests since the
	// server started.
	Hits, Misses uint64
	// Bytes is the memory the entries take by the cache's estimate,
	// Entries their number.
	Bytes, Entries int
}

// CacheStats returns the response cache's statistics; ok is false when
// the cache is off.
func (s *Server) CacheStats() (st CacheStats, ok bool) {
	c := s.cache
	if c == nil {
		return CacheStats{}, false
	}
	c.mu.RLock()
	st.Bytes, st.Entries = c.bytes, len(c.m)
	c.mu.RUnlock()
	st.Hits, st.Misses = c.hits.Load(), c.misses.Load()
	return st, true
}

func newResponseCache(cfg CacheConfig) *responseCache {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 16 << 20
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = time.Minute
	}
	return &responseCache{cfg: cfg, now: time.Now, m: map[string]*cachedResponse{}}
}

func (c *responseCache) get(key string, version int64) *cachedResponse {
	c.mu.RLock()
	e := c.m[key]
	c.mu.RUnlock()
	if e == nil || e.version != version || c.now().After(e.expires) {
		c.misses.Add(1)
		return nil
	}
	c.hits.Add(1)
	return e
}

func (c *responseCache) put(key string, e *cachedResponse) {
	if len(e.body) > maxCachedBody {
		return
	}
	e.expires = c.now().Add(c.cfg.MaxAge)
	c.mu.Lock()
	defer c.mu.Unlock()
	// Versions only move on, and get serves an entry only at the version
	// it was made at: an entry older than the newest put is dead on
	// arrival, and a newer one retires every entry held. So the cache
	// only ever holds the newest version's entries, and a put when it is
	// full evicts a few of them, never scans them all.
	switch {
	case e.version < c.newest:
		return
	case e.version > c.newest:
		clear(c.m)
		c.bytes = 0
		c.newest = e.version
	}
	if old, ok := c.m[key]; ok {
		c.bytes -= old.size()
		delete(c.m, key)
	}
	for k, old := range c.m {
		if c.bytes+e.size() <= c.cfg.MaxBytes {
			break
		}
		c.bytes -= old.size()
		delete(c.m, k)
	}
	c.m[key] = e
	c.bytes += e.size()
}

// cacheKey returns the key of a cacheable request, or "" when the request
// must not be served from (or stored in) the cache nor get an ETag: only
// anonymous GET and HEAD requests without a body are, when the server
// knows the store's version.
func (s *Server) cacheKey(r *http.Request, req *Request) string {
	if s.cfg.Version == nil || req.User != nil || (req.Method != http.MethodGet && req.Method != http.MethodHead) {
		return ""
	}
	if r.ContentLength > 0 || r.Header.Get("Transfer-Encoding") != "" {
		return ""
	}
	return req.base + "\x00" + req.Path + "\x00" + r.URL.RawQuery
}

// recorder captures what write sends, so that it can be cached.
type recorder struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (rec *recorder) WriteHeader(status int) {
	rec.status = status
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.body = append(rec.body, b...)
	return rec.ResponseWriter.Write(b)
}

// serveCached writes a cached response.
func serveCached(w http.ResponseWriter, r *http.Request, e *cachedResponse) {
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.body)
	}
}
