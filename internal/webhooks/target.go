package webhooks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBlockedTarget is returned for a webhook target that is (or resolves
// to, or dials) a loopback, private, link-local, unique-local, shared
// (CGNAT), multicast, unspecified or cloud metadata address while private
// targets are not allowed.
var ErrBlockedTarget = errors.New("webhooks: target address not allowed")

// blockedPrefixes are the non-public address ranges a webhook may not
// reach unless private targets are allowed, beside what netip's
// IsLoopback, IsPrivate, IsLinkLocalUnicast, IsMulticast and IsUnspecified
// already say (127/8, ::1, 10/8, 172.16/12, 192.168/16, fc00::/7 (with
// fd00:ec2::254), 169.254/16 (with 169.254.169.254), fe80::/10, 224/4,
// ff00::/8, 0.0.0.0, ::).
var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"100.64.0.0/10",   // shared address space (CGNAT)
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"240.0.0.0/4",     // reserved, and 255.255.255.255
		"::/96",           // IPv4-compatible (deprecated)
		"100::/64",        // discard
		"2001::/32",       // Teredo
		"2001:db8::/32",   // documentation
		"fec0::/10",       // site-local (deprecated)
		"64:ff9b:1::/48",  // local-use NAT64
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// nat64 and sixToFour embed an IPv4 address that is checked in turn.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// BlockedAddr reports whether a is an address a webhook may not reach
// unless private targets are allowed. IPv4-mapped IPv6 addresses are
// judged as the IPv4 address, and so are the IPv4 addresses embedded in
// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses.
func BlockedAddr(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !a.IsValid() {
		return true
	}
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return BlockedAddr(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if a.Is6() && sixToFour.Contains(a) {
		b := a.As16()
		return BlockedAddr(netip.AddrFrom4([4]byte(b[2:6])))
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// blockedNames are host names of the local machine and of cloud metadata
// services; blockedSuffixes are domains that only exist inside a network.
var (
	blockedNames    = map[string]bool{"localhost": true, "metadata": true, "metadata.google.internal": true, "metadata.goog": true, "instance-data": true}
	blockedSuffixes = []string{".localhost", ".internal", ".local", ".home.arpa", ".localdomain"}
)

// parseLegacyIPv4 reads host as inet_aton does: one to four parts,
// each decimal, octal (leading 0) or hexadecimal (0x), the last part
// filling the remaining bytes ("0x7f000001", "2130706433", "127.1",
// "0177.0.0.1"). Some resolvers turn such names into addresses; ok is
// false when host is not of that form.
func parseLegacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" && base != 16 {
			return netip.Addr{}, false
		}
		if p == "" {
			p = "0"
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// Resolver looks host names up; net.DefaultResolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard decides which targets webhooks may reach. Its zero value refuses
// every non-public target and resolves with net.DefaultResolver.
type Guard struct {
	// AllowPrivate lets webhooks reach loopback, private, link-local and
	// metadata addresses ([server] webhook_private_targets).
	AllowPrivate bool
	// Resolver resolves host names when a webhook is saved and when it
	// delivers (nil: net.DefaultResolver).
	Resolver Resolver
}

// checkHost applies the rules that need no lookup to a URL's host name:
// local and metadata names, and IP addresses in any notation.
func (g Guard) checkHost(host string) error {
	if g.AllowPrivate {
		return nil
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "" {
		return ErrBlockedTarget
	}
	if blockedNames[h] {
		return ErrBlockedTarget
	}
	for _, s := range blockedSuffixes {
		if strings.HasSuffix(h, s) {
			return ErrBlockedTarget
		}
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if BlockedAddr(a) {
			return ErrBlockedTarget
		}
		return nil
	}
	if a, ok := parseLegacyIPv4(h); ok {
		if BlockedAddr(a) {
			return ErrBlockedTarget
		}
	}
	return nil
}

// CheckURL checks a webhook URL when it is saved: an absolute http or
// https URL whose host is not a blocked name or address and, when it is a
// name that resolves now, resolves to no blocked address. A name that does
// not resolve is accepted: every delivery checks the address it dials.
// Errors are *Error values for the url parameter.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Code: "rest_invalid_param", Message: "url must be an absolute http or https URL.", Param: "url"}
	}
	host := u.Hostname()
	if _, legacy := parseLegacyIPv4(strings.ToLower(host)); legacy {
		if _, err := netip.ParseAddr(host); err != nil {
			// 0x7f000001, 2130706433, 127.1: resolvers disagree on these.
			return &Error{Code: "rest_invalid_param", Message: "url host must be a host name or an IP address in standard notation.", Param: "url"}
		}
	}
	blocked := &Error{Code: "rest_invalid_param", Param: "url",
		Message: "url must not point to a loopback, private, link-local, shared or cloud metadata address; set [server] webhook_private_targets = true to allow local targets."}
	if err := g.checkHost(host); err != nil {
		return blocked
	}
	if g.AllowPrivate {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	res := g.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := res.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if BlockedAddr(a) {
			return blocked
		}
	}
	return nil
}

// control refuses to connect to a blocked address. It runs for every
// address the dialer connects to, after resolution, whatever notation the
// address came in (IPv4-mapped IPv6 included).
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || BlockedAddr(ap.Addr()) {
		return ErrBlockedTarget
	}
	return nil
}

// dialer returns the DialContext of deliveries: it resolves the host with
// the guard's resolver, refuses the connection when any address it
// resolves to is blocked (so a name that resolves to a private address at
// delivery time, DNS rebinding included, is caught whatever it resolved to
// when the webhook was saved), then dials the addresses in turn, each dial
// checked again by control.
func (g Guard) dialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: g.control}
	res := g.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var ips []netip.Addr
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = []netip.Addr{ip}
		} else {
			if ips, err = res.LookupNetIP(ctx, "ip", host); err != nil {
				return nil, err
			}
		}
		if !g.AllowPrivate {
			for _, ip := range ips {
				if BlockedAddr(ip) {
					return nil, &net.OpError{Op: "dial", Net: network, Err: ErrBlockedTarget}
				}
			}
		}
		var first error
		for _, ip := range ips {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		if first == nil {
			first = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
		return nil, first
	}
}

// Client returns the HTTP client deliveries are sent with: no proxy (the
// target itself is dialled and checked), the guard's checks on every
// address resolved and dialled, no redirects followed (a 3xx is the
// receiver's answer), and timeout for the whole exchange.
func (g Guard) Client(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           g.dialer(timeout),
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ErrorClass names the kind of a delivery failure for the delivery log,
// never with the receiver's or the network's own words: blocked_target,
// dns, timeout, refused, reset, unreachable, tls or connection.
func ErrorClass(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.Is(err, ErrBlockedTarget):
		return "blocked_target"
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) || (errors.As(err, &netErr) && netErr.Timeout()):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	case errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH):
		return "unreachable"
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alert),
		errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
		return "tls"
	case err != nil && strings.Contains(err.Error(), "tls:"):
		return "tls"
	}
	return "connection"
}

// httpClass is the delivery log's class of an HTTP answer outside 2xx.
func httpClass(status int) string { return fmt.Sprintf("http_%d", status) }
