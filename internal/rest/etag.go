package rest

import (
	"context"

	"github.com/cespare/xxhash/v2"
	"net/http"
	"strconv"
	"strings"
)

// contentTag returns the entity tag of an anonymous read: a hash of the
// encoded body and of the headers that are part of the representation
// (the totals and Link). It depends on nothing but what the caller
// receives: a write the caller may not see (a draft saved) leaves it
// unchanged, so the tag reveals nothing more than the body does, and every
// node computes the same tag for the same answer. It is weak because an
// extension field may render equivalent content differently.
func contentTag(body []byte, h http.Header, n Names) string {
	d := xxhash.New()
	_, _ = d.Write(body)
	// write sets the totals under the spec's spelling, Link canonically.
	for _, k := range [...]string{n.TotalHeader(), n.TotalPagesHeader(), "Link"} {
		for _, v := range h[k] {
			_, _ = d.WriteString("\x00" + k + ":" + v)
		}
	}
	b := make([]byte, 0, 24)
	b = append(b, `W/"`...)
	b = strconv.AppendUint(b, d.Sum64(), 36)
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
