package server

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
)

// pageCSP is the Content-Security-Policy of the site's own HTML pages
// (sign-in, admin, landing): scripts only from the site itself (plus the
// one inline settings script that carries the response's nonce), no
// plug-ins, no framing, forms posting only to the site. Styles may be
// inline (editors set style attributes); images and media may come from
// anywhere, as post content links them.
const pageCSP = "default-src 'self'; script-src 'self'%s; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob: http: https:; media-src 'self' blob: http: https:; connect-src 'self'; " +
	"font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// setPageHeaders sets the security headers of an HTML page: never stored by
// caches (it may carry a nonce or a signed-in user's data), never framed,
// never sniffed, and the page CSP, allowing the inline script whose nonce
// attribute is scriptNonce when it is not empty.
func setPageHeaders(h http.Header, scriptNonce string) {
	extra := ""
	if scriptNonce != "" {
		extra = " 'nonce-" + scriptNonce + "'"
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", fmt.Sprintf(pageCSP, extra))
}

// newScriptNonce returns a fresh CSP nonce (128 random bits).
func newScriptNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawStdEncoding.EncodeToString(b[:])
}
