// Package forwarded says where a request came from: the client's address
// and the scheme it used. Behind a reverse proxy the connection comes from
// the proxy, so the proxy's X-Forwarded-For and X-Forwarded-Proto headers
// are believed, but only when the connection comes from a configured
// trusted proxy ([server] trusted_proxies); anyone else could write them.
//
// The server's outermost handler works the answer out once per request
// (Resolver.Handler) and keeps it in the request's context; every later
// layer reads it with ClientIP, Scheme or FromRequest.
package forwarded

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"unicode/utf8"
)

// Client is where one request came from.
type Client struct {
	// IP is the client's address (IPv4-mapped addresses unmapped, zones
	// dropped). It is the zero Addr when the connection's address is not
	// an IP address (a Unix socket, a test's made-up address).
	IP netip.Addr
	// Raw is the connection's address as the server saw it, used when IP
	// is not valid.
	Raw string
	// Scheme is "https" or "http".
	Scheme string
	// Proxied reports whether IP and Scheme came from a trusted proxy's
	// headers rather than from the connection.
	Proxied bool
}

// Addr returns the client's address as text: the IP, else the host part
// of the connection's address as it was.
func (c Client) Addr() string {
	if c.IP.IsValid() {
		return c.IP.String()
	}
	return c.Raw
}

// Resolver works out the Client of requests, believing forwarding headers
// from trusted proxies only.
type Resolver struct {
	trusted func(netip.Addr) bool
}

// NewResolver returns a resolver that believes the forwarding headers of
// connections from addresses for which trusted reports true (nil trusts
// no one). config.Server.TrustedProxy is such a function.
func NewResolver(trusted func(netip.Addr) bool) *Resolver {
	return &Resolver{trusted: trusted}
}

func (res *Resolver) trust(a netip.Addr) bool {
	return res != nil && res.trusted != nil && a.IsValid() && res.trusted(a)
}

// Resolve works out where r came from. From an untrusted connection it is
// the connection's address and scheme. From a trusted proxy it walks
// X-Forwarded-For from the right, skipping the addresses of trusted
// proxies, and takes the first address that is not one (or the leftmost
// one when all are trusted); an entry that is not an IP address stops the
// walk at the trusted hop that passed it. The scheme is then the last
// X-Forwarded-Proto value when it is "http" or "https".
func (res *Resolver) Resolve(r *http.Request) Client {
	c := Client{Raw: r.RemoteAddr, Scheme: "http"}
	if r.TLS != nil {
		c.Scheme = "https"
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err == nil {
		c.Raw = host
	}
	c.IP = parseIP(c.Raw)
	if !res.trust(c.IP) {
		return c
	}
	ip := c.IP
	vals := r.Header.Values("X-Forwarded-For")
walk:
	for i := len(vals) - 1; i >= 0; i-- {
		list := vals[i]
		for list != "" {
			entry := list
			if j := strings.LastIndexByte(list, ','); j >= 0 {
				entry, list = list[j+1:], list[:j]
			} else {
				list = ""
			}
			a := parseEntry(entry)
			if !a.IsValid() {
				break walk
			}
			ip = a
			if !res.trust(a) {
				break walk
			}
		}
	}
	if ip != c.IP {
		c.IP, c.Raw, c.Proxied = ip, ip.String(), true
	}
	if p := lastProto(r.Header.Values("X-Forwarded-Proto")); p != "" {
		c.Scheme, c.Proxied = p, true
	}
	return c
}

// parseIP parses an IP address, unmapping IPv4-in-IPv6 and dropping a
// zone; the zero Addr when s is not one.
func parseIP(s string) netip.Addr {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// parseEntry parses one X-Forwarded-For entry: an IP address, optionally
// with a port ("192.0.2.1:443", "[2001:db8::1]:443") or in brackets.
func parseEntry(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if a := parseIP(s); a.IsValid() {
		return a
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return parseIP(s[1 : len(s)-1])
	}
	return netip.Addr{}
}

// lastProto returns the last value of X-Forwarded-Proto, lower-cased,
// when it is "http" or "https"; "" otherwise.
func lastProto(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	v := vals[len(vals)-1]
	if j := strings.LastIndexByte(v, ','); j >= 0 {
		v = v[j+1:]
	}
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "http" || v == "https" {
		return v
	}
	return ""
}

type ctxKey struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// Handler returns next behind a handler that resolves each request's
// Client once and stores it in the request's context.
func (res *Resolver) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), res.Resolve(r))))
	})
}

// FromRequest returns the Client stored in r's context; without one (a
// request that did not pass Resolver.Handler) it is the connection's
// address and scheme, believing no forwarding header.
func FromRequest(r *http.Request) Client {
	if c, ok := r.Context().Value(ctxKey{}).(Client); ok {
		return c
	}
	return (*Resolver)(nil).Resolve(r)
}

// ClientIP returns the address of the client that sent r, as text: the
// one function every layer uses to take a client's address.
func ClientIP(r *http.Request) string {
	return FromRequest(r).Addr()
}

// Scheme returns the scheme the client used for r: "https" or "http".
func Scheme(r *http.Request) string {
	return FromRequest(r).Scheme
}

// maxUserAgent bounds the user agent kept with a session or a comment.
const maxUserAgent = 255

// UserAgent returns the client's User-Agent header as text fit to store:
// valid UTF-8 without NUL characters (a store may refuse either), at most
// 255 bytes, cut between characters.
func UserAgent(r *http.Request) string {
	s := strings.ToValidUTF8(strings.ReplaceAll(r.UserAgent(), "\x00", ""), "\uFFFD")
	if len(s) <= maxUserAgent {
		return s
	}
	cut := maxUserAgent
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
