package forwarded

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"
)

// trustedNets is the trusted proxy set of the tests: 10.0.0.0/8 and
// 2001:db8:ffff::/48.
func trustedNets(a netip.Addr) bool {
	return netip.MustParsePrefix("10.0.0.0/8").Contains(a) || netip.MustParsePrefix("2001:db8:ffff::/48").Contains(a)
}

func request(remote string, headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = remote
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	return r
}

func TestForwardingHeadersAreIgnoredFromUntrustedPeers(t *testing.T) {
	t.Parallel()
	res := NewResolver(trustedNets)
	for _, r := range []*http.Request{
		request("203.0.113.9:5555", "X-Forwarded-For", "10.1.1.1", "X-Forwarded-Proto", "https"),
		request("203.0.113.9:5555", "X-Forwarded-For", "198.51.100.1, 10.0.0.1"),
	} {
		c := res.Resolve(r)
		if c.Addr() != "203.0.113.9" || c.Scheme != "http" || c.Proxied {
			t.Errorf("untrusted peer with %v: %+v", r.Header, c)
		}
	}
	// No trusted proxy at all: nobody's headers count.
	c := NewResolver(nil).Resolve(request("10.0.0.1:80", "X-Forwarded-For", "198.51.100.1", "X-Forwarded-Proto", "https"))
	if c.Addr() != "10.0.0.1" || c.Scheme != "http" {
		t.Errorf("without trusted proxies: %+v", c)
	}
}

func TestXForwardedForFromTrustedProxiesIsWalkedFromTheRight(t *testing.T) {
	t.Parallel()
	res := NewResolver(trustedNets)
	for _, tc := range []struct {
		name   string
		remote string
		xff    []string
		want   string
	}{
		{"one proxy", "10.0.0.1:80", []string{"198.51.100.7"}, "198.51.100.7"},
		{"spoofed left part is skipped", "10.0.0.1:80", []string{"1.2.3.4, 198.51.100.7"}, "198.51.100.7"},
		{"trusted hops are skipped", "10.0.0.1:80", []string{"1.2.3.4, 198.51.100.7, 10.9.9.9, 10.0.0.2"}, "198.51.100.7"},
		{"several header lines", "10.0.0.1:80", []string{"1.2.3.4, 198.51.100.7", "10.0.0.3"}, "198.51.100.7"},
		{"all trusted: the leftmost", "10.0.0.1:80", []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5"},
		{"no header: the proxy", "10.0.0.1:80", nil, "10.0.0.1"},
		{"garbage stops at the trusted hop", "10.0.0.1:80", []string{"198.51.100.7, garbage, 10.0.0.4"}, "10.0.0.4"},
		{"garbage left of the client is ignored", "10.0.0.1:80", []string{"garbage, 198.51.100.7"}, "198.51.100.7"},
		{"empty entry stops", "10.0.0.1:80", []string{"198.51.100.7,,"}, "10.0.0.1"},
		{"ports", "10.0.0.1:80", []string{"1.2.3.4, 198.51.100.7:4711"}, "198.51.100.7"},
		{"IPv6 client", "10.0.0.1:80", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"IPv6 in brackets", "10.0.0.1:80", []string{"[2001:db8::2]"}, "2001:db8::2"},
		{"IPv6 proxy", "[2001:db8:ffff::1]:80", []string{"198.51.100.7, 2001:db8:ffff::2"}, "198.51.100.7"},
		{"mapped addresses unmapped", "[::ffff:10.0.0.1]:80", []string{"::ffff:198.51.100.7"}, "198.51.100.7"},
		{"zones dropped", "10.0.0.1:80", []string{"fe80::1%eth0"}, "fe80::1"},
	} {
		r := request(tc.remote)
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := res.Resolve(r).Addr(); got != tc.want {
			t.Errorf("%s: client %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestXForwardedProtoCountsFromTrustedProxiesOnly(t *testing.T) {
	t.Parallel()
	res := NewResolver(trustedNets)
	for _, tc := range []struct {
		name  string
		r     *http.Request
		want  string
		proxy bool
	}{
		{"trusted https", request("10.0.0.1:80", "X-Forwarded-Proto", "https"), "https", true},
		{"trusted HTTPS", request("10.0.0.1:80", "X-Forwarded-Proto", " HTTPS "), "https", true},
		{"trusted list: the last", request("10.0.0.1:80", "X-Forwarded-Proto", "https, http"), "http", true},
		{"trusted nonsense", request("10.0.0.1:80", "X-Forwarded-Proto", "gopher"), "http", false},
		{"untrusted https", request("192.0.2.1:80", "X-Forwarded-Proto", "https"), "http", false},
	} {
		c := res.Resolve(tc.r)
		if c.Scheme != tc.want || c.Proxied != tc.proxy {
			t.Errorf("%s: %+v, want scheme %s", tc.name, c, tc.want)
		}
	}
	// A TLS connection is https unless a trusted proxy says otherwise.
	r := request("192.0.2.1:443", "X-Forwarded-Proto", "http")
	r.TLS = &tls.ConnectionState{}
	if got := res.Resolve(r).Scheme; got != "https" {
		t.Errorf("TLS from an untrusted peer: %s", got)
	}
}

func TestHandlerResolvesOnceIntoTheContext(t *testing.T) {
	t.Parallel()
	var got Client
	var ip, scheme string
	h := NewResolver(trustedNets).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Later layers see the stored answer even if they rewrite the
		// headers.
		r.Header.Set("X-Forwarded-For", "6.6.6.6")
		got, ip, scheme = FromRequest(r), ClientIP(r), Scheme(r)
	}))
	h.ServeHTTP(httptest.NewRecorder(), request("10.0.0.1:80", "X-Forwarded-For", "198.51.100.7", "X-Forwarded-Proto", "https"))
	if ip != "198.51.100.7" || scheme != "https" || !got.Proxied {
		t.Fatalf("in the handler: %q %q %+v", ip, scheme, got)
	}
}

func TestWithoutTheHandlerTheConnectionCounts(t *testing.T) {
	t.Parallel()
	r := request("10.0.0.1:80", "X-Forwarded-For", "198.51.100.7", "X-Forwarded-Proto", "https")
	if ClientIP(r) != "10.0.0.1" || Scheme(r) != "http" {
		t.Fatalf("without the handler: %s %s", ClientIP(r), Scheme(r))
	}
	// An address that is not an IP is kept as it is.
	for remote, want := range map[string]string{"pipe": "pipe", "@": "@", "host:1": "host", "": ""} {
		if got := ClientIP(request(remote)); got != want {
			t.Errorf("ClientIP with RemoteAddr %q = %q, want %q", remote, got, want)
		}
	}
}

// FuzzResolve checks that any X-Forwarded-For, X-Forwarded-Proto and peer
// address resolve without panicking to the peer or to an address the
// header holds, that an untrusted peer's headers never count, and that
// the scheme is http or https.
func FuzzResolve(f *testing.F) {
	f.Add("10.0.0.1:80", "198.51.100.7, 10.0.0.2", "https")
	f.Add("203.0.113.1:80", "10.0.0.1", "https")
	f.Add("[2001:db8:ffff::1]:80", "[2001:db8::1]:443,fe80::1%eth0", "http, https")
	f.Add("10.0.0.1:80", ",,,", "")
	f.Add("pipe", "1.2.3.4", "HTTPS")
	f.Add("10.0.0.1:80", strings.Repeat("10.0.0.9,", 100)+"x", "https,")
	res := NewResolver(trustedNets)
	f.Fuzz(func(t *testing.T, remote, xff, proto string) {
		r := request(remote)
		r.Header["X-Forwarded-For"] = []string{xff}
		r.Header["X-Forwarded-Proto"] = []string{proto}
		c := res.Resolve(r)
		if c.Scheme != "http" && c.Scheme != "https" {
			t.Fatalf("scheme %q", c.Scheme)
		}
		peer := (*Resolver)(nil).Resolve(request(remote))
		if !peer.IP.IsValid() || !trustedNets(peer.IP) {
			if c != peer {
				t.Fatalf("untrusted peer %q: %+v, want %+v", remote, c, peer)
			}
			return
		}
		if c.IP != peer.IP {
			found := false
			for _, e := range strings.Split(xff, ",") {
				if parseEntry(e) == c.IP {
					found = true
				}
			}
			if !found {
				t.Fatalf("client %s is neither the peer nor in %q", c.IP, xff)
			}
		}
	})
}

func TestUserAgentIsStorableText(t *testing.T) {
	for in, want := range map[string]string{
		"Mozilla/5.0":            "Mozilla/5.0",
		"a\x00b":                 "ab",
		"bad \xff\xfe ua":        "bad \uFFFD ua",
		strings.Repeat("é", 200): strings.Repeat("é", 127),
	} {
		r := request("192.0.2.1:1", "User-Agent", in)
		got := UserAgent(r)
		if got != want || !utf8.ValidString(got) || len(got) > 255 {
			t.Errorf("UserAgent(%q) = %q, want %q", in, got, want)
		}
	}
}
