package rest

import (
	"context"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
)

// etag returns the entity tag of an anonymous read: the store's write
// version and a hash of the cache key (base URL, path and query). Every
// committed write moves the version on, so a tag names one state of the
// site; it is weak because an extension field may depend on more than the
// database.
func etag(key string, version int64) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	b := make([]byte, 0, 48)
	b = append(b, `W/"`...)
	b = strconv.AppendInt(b, version, 36)
	b = append(b, '-')
	b = strconv.AppendUint(b, h.Sum64(), 36)
	b = append(b, '"')
	return string(b)
}

// etagMatches reports whether the If-None-Match header value inm names
// tag, comparing weakly (RFC 9110 §13.1.2). "*" is not taken as a match:
// whether the resource exists is known only by running the route.
func etagMatches(inm, tag string) bool {
	want := strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimSpace(t)
		if strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// version reads the store's write version for conditional requests and
// the response cache.
func (s *Server) version(ctx context.Context) (int64, error) {
	return s.cfg.Version(ctx)
}

// notModified answers a conditional GET or HEAD whose tag is current.
func notModified(w http.ResponseWriter, tag string) {
	h := w.Header()
	delete(h, "Content-Type")
	h.Set("ETag", tag)
	w.WriteHeader(http.StatusNotModified)
}
