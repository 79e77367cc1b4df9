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
// outside source, say). Concurrent GET requests that miss the same entry
// are answered once: the first makes the answer, the others wait for it
// and read it from the cache.
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
	// flights are the answers being made, for requests that miss.
	flights flights
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

// get returns the entry of key at version, nil when there is none; a
// request that misses while another one makes the same answer waits for
// it (waitFlight) instead.
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

// flights are the cacheable answers being made. After a write retires
// the cache, every reader of a popular page misses it at once; without
// flights each would make the page (a thundering herd of the same
// queries). The first request to miss an answer makes it and the others
// that miss it meanwhile wait, then read what it kept.
type flights struct {
	mu sync.Mutex
	m  map[flightKey]chan struct{}
}

type flightKey struct {
	key     string
	version int64
}

// join returns the channel that closes when the answer of key at version
// is made, and whether the caller is the one to make it, and then to call
// land.
func (f *flights) join(key string, version int64) (done chan struct{}, lead bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := flightKey{key, version}
	if done, ok := f.m[k]; ok {
		return done, false
	}
	if f.m == nil {
		f.m = map[flightKey]chan struct{}{}
	}
	done = make(chan struct{})
	f.m[k] = done
	return done, true
}

// land ends the flight of key at version: its answer is kept, or will not
// be (an error, a 304 answer, a body too large).
func (f *flights) land(key string, version int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := flightKey{key, version}
	close(f.m[k])
	delete(f.m, k)
}

// waitFlight is get for a request that missed: when another request is
// making the answer, it waits for it and returns what that one kept,
// counted as a hit. It returns nil and land, to call once the answer is
// kept, when this request is to make it; nil and a nil land when the
// other's answer was not kept (this request makes its own); ctx's error
// when ctx ended while it waited.
func (c *responseCache) waitFlight(ctx context.Context, key string, version int64) (e *cachedResponse, land func(), err error) {
	done, lead := c.flights.join(key, version)
	if lead {
		return nil, func() { c.flights.land(key, version) }, nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	c.mu.RLock()
	e = c.m[key]
	c.mu.RUnlock()
	if e == nil || e.version != version || c.now().After(e.expires) {
		return nil, nil, nil
	}
	c.misses.Add(^uint64(0)) // the miss counted by get was a hit after all
	c.hits.Add(1)
	return e, nil, nil
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
