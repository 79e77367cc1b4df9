// Package reqlog holds what the request log and the metrics need to know
// about one request while it runs: its request id, the route pattern that
// served it and who made it. The server's outermost handler puts an Info
// in the request's context (NewContext); the layers below fill it in (the
// REST server its route and user, the site its own fixed labels); the
// outermost handler writes one log line and counts the request when it
// ends.
//
// Handler wraps a slog.Handler so that every line logged with a request's
// context (logger.InfoContext(ctx, ...)) carries that request's id.
package reqlog

import (
	"context"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
)

// Header is the request and response header that carries the request id.
const Header = "X-Request-Id"

// MaxIDLen bounds the length of a request id taken from a client.
const MaxIDLen = 128

// Anonymous is the user of a request made without credentials, in the
// request log.
const Anonymous = "anonymous"

// Info is what the layers of the server learn about a request for its log
// line and its metrics.
type Info struct {
	// ID is the request id (from a sane X-Request-Id header or made up).
	ID string
	// Route is the route pattern that served the request (a REST route's
	// registry pattern, or a fixed label for the site's other paths); ""
	// when nothing matched.
	Route string
	// UserID is the id of the signed-in caller; 0 for anonymous ones.
	UserID int64
	// Quiet marks requests (health probes) logged at DEBUG instead of
	// INFO.
	Quiet bool
}

type ctxKey struct{}

// NewContext returns ctx carrying in.
func NewContext(ctx context.Context, in *Info) context.Context {
	return context.WithValue(ctx, ctxKey{}, in)
}

// FromContext returns the Info of the request ctx belongs to, nil outside
// a request that passed the server's outermost handler.
func FromContext(ctx context.Context) *Info {
	in, _ := ctx.Value(ctxKey{}).(*Info)
	return in
}

// SetRoute records the route pattern of the request of ctx, if any.
func SetRoute(ctx context.Context, route string) {
	if in := FromContext(ctx); in != nil {
		in.Route = route
	}
}

// SetUser records the signed-in caller of the request of ctx, if any.
func SetUser(ctx context.Context, id int64) {
	if in := FromContext(ctx); in != nil {
		in.UserID = id
	}
}

// RequestID returns the id of the request ctx belongs to, "" outside one.
func RequestID(ctx context.Context) string {
	if in := FromContext(ctx); in != nil {
		return in.ID
	}
	return ""
}

// SaneID reports whether a client's X-Request-Id can be kept: 1 to
// MaxIDLen characters of letters, digits and - _ . : + / =, which covers
// UUIDs and the trace ids of common proxies and load balancers, and
// cannot break a log line or a header.
func SaneID(id string) bool {
	if id == "" || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// NewID returns a new request id: 32 hexadecimal digits. Ids need to be
// unique, not secret, so they come from the runtime's fast per-thread
// generator.
func NewID() string {
	var b [16]byte
	a, c := rand.Uint64(), rand.Uint64()
	for i := range 8 {
		b[i] = byte(a >> (8 * i))
		b[8+i] = byte(c >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}

// Handler is a slog.Handler that adds the request id of a record's
// context ("request_id") to the record.
type Handler struct {
	next slog.Handler
}

// NewHandler returns next wrapped in a Handler; a Handler is returned as
// it is.
func NewHandler(next slog.Handler) slog.Handler {
	if _, ok := next.(*Handler); ok {
		return next
	}
	return &Handler{next: next}
}

// Enabled reports whether next handles records at level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds the request id of ctx, when there is one, and passes r on.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a Handler over next.WithAttrs(attrs).
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs)}
}

// WithGroup returns a Handler over next.WithGroup(name).
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name)}
}
