package auth

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseBasic checks that any Authorization value is parsed without
// panicking, that what parses has a login without a colon and a password,
// and that a parsed value survives encoding again.
func FuzzParseBasic(f *testing.F) {
	for _, v := range []string{
		basicHeader("ed", "abcd efgh ijkl mnop qrst uvwx"),
		basicHeader("ed@example.com", "p:w"),
		"basic " + base64.StdEncoding.EncodeToString([]byte("a:b")),
		"Basic   " + base64.StdEncoding.EncodeToString([]byte("a:b")) + "  ",
		"Basic " + base64.StdEncoding.EncodeToString([]byte(":b")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("a:")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("a\x00:b\xff")),
		"Basic !!!",
		"Basic",
		"Bearer x",
		"",
	} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		login, pw, ok := parseBasic(v)
		if !ok {
			if login != "" || pw != "" {
				t.Fatalf("parseBasic(%q) failed but returned %q, %q", v, login, pw)
			}
			return
		}
		if login == "" || pw == "" || strings.Contains(login, ":") {
			t.Fatalf("parseBasic(%q) = %q, %q", v, login, pw)
		}
		l2, p2, ok2 := parseBasic(basicHeader(login, pw))
		if !ok2 || l2 != login || p2 != pw {
			t.Fatalf("re-encoded %q:%q parses as %q:%q %v", login, pw, l2, p2, ok2)
		}
	})
}

// FuzzNonceVerify checks that Verify accepts exactly the nonces Create
// makes for the same user, session and action in this tick or the one
// before, and never panics.
func FuzzNonceVerify(f *testing.F) {
	n := NewNonces(testSecret)
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	n.Now = func() time.Time { return now }
	f.Add(n.Create(7, "tok", RESTNonceAction), int64(7), "tok", RESTNonceAction)
	f.Add("0123456789", int64(0), "", RESTNonceAction)
	f.Add("", int64(-1), "x", "")
	f.Add("zzzzzzzzzz", int64(1)<<62, "\x00", "wp_rest\x00")
	f.Add(strings.Repeat("a", 1000), int64(3), "t", "a")
	f.Fuzz(func(t *testing.T, nonce string, uid int64, token, action string) {
		got := n.Verify(nonce, uid, token, action)
		switch got {
		case 0:
		case 1:
			if nonce != n.Create(uid, token, action) {
				t.Fatalf("Verify(%q) = 1 for a nonce Create did not make", nonce)
			}
		case 2:
			prev := n.make(tick(now)-1, uid, token, action)
			if nonce != prev {
				t.Fatalf("Verify(%q) = 2 for a nonce of no previous tick", nonce)
			}
		default:
			t.Fatalf("Verify = %d", got)
		}
		made := n.Create(uid, token, action)
		if n.Verify(made, uid, token, action) != 1 {
			t.Fatalf("a fresh nonce %q does not verify", made)
		}
		if n.Verify(made, uid, token+"x", action) != 0 || n.Verify(made, uid^1, token, action) != 0 {
			t.Fatalf("nonce %q verifies for another session or user", made)
		}
	})
}

// FuzzSessionCookie checks the parsing of the session and device cookies
// from any Cookie header: no panic, a bounded token, the session hash only
// for a token, and a device cookie known only when it is exactly the one
// the site signs.
func FuzzSessionCookie(f *testing.F) {
	a := &SessionAuth{Nonces: NewNonces(testSecret)}
	good := a.deviceValue("AAAAAAAAAAAAAAAAAAAAAA", 1)
	f.Add("folio_session=abc; folio_device=" + good)
	f.Add("folio_session=" + strings.Repeat("x", 200))
	f.Add("folio_session=; folio_session=second")
	f.Add("folio_device=" + good[:len(good)-1] + "0")
	f.Add(`folio_session="quoted"; folio_device=.`)
	f.Add("\x00=\xff; ;;=")
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Cookie", header)
		token := a.token(r)
		if len(token) > 128 {
			t.Fatalf("token of %d bytes accepted", len(token))
		}
		if h := RequestSessionHash(r); (h == "") != (token == "") || (h != "" && h != HashSessionToken(token)) {
			t.Fatalf("RequestSessionHash = %q for token %q", h, token)
		}
		c, err := r.Cookie(a.DeviceCookie())
		if err != nil {
			return
		}
		id, ok := a.knownDevice(c.Value, 1)
		if ok && (c.Value != a.deviceValue(id, 1) || !utf8.ValidString(id)) {
			t.Fatalf("device cookie %q known with id %q", c.Value, id)
		}
		if pid, sig, ok := parseDevice(c.Value); ok && pid+"."+sig != c.Value {
			t.Fatalf("parseDevice(%q) = %q, %q", c.Value, pid, sig)
		}
	})
}
