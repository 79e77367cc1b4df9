package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Device cookies: a browser that signed in to an account gets a cookie,
// signed with the site's shared secret and bound to that account, that
// makes it a known browser of the account. Attempts from a known browser
// are counted on that browser alone, so an attacker who slows the account
// or the address down does not slow its owner's own browser (OWASP's
// "device cookie" defence against account lockout).
const (
	// DefaultDeviceCookie is the name of the device cookie.
	DefaultDeviceCookie = "folio_device"
	// DeviceCookiePath is the only path the device cookie is sent to: the
	// sign-in form.
	DeviceCookiePath = "/login"
	// DeviceCookieLifetime is how long a browser stays known after its
	// last sign-in.
	DeviceCookieLifetime = 180 * 24 * time.Hour
	// deviceIDBytes is the size of a device id (128 bits).
	deviceIDBytes = 16
	// deviceSigLen is the length of a device cookie's signature in hex
	// characters (128 bits).
	deviceSigLen = 32
	// deviceLabel separates device signatures from other uses of the
	// secret.
	deviceLabel = "device"
)

// DeviceCookie returns the name of the device cookie.
func (a *SessionAuth) DeviceCookie() string {
	if a.CookieName == "" {
		return DefaultDeviceCookie
	}
	return a.CookieName + "_device"
}

// deviceValue returns the cookie value that makes device id a known
// browser of user uid: the id and its signature.
func (a *SessionAuth) deviceValue(id string, uid int64) string {
	sig := a.Nonces.sign(deviceLabel, strconv.FormatInt(uid, 10), id)
	return id + "." + hex.EncodeToString(sig)[:deviceSigLen]
}

// newDevice returns a new device id.
func newDevice() (string, error) {
	buf := make([]byte, deviceIDBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("device id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// parseDevice splits a device cookie value into its id and signature; ok
// is false when it does not have their shape.
func parseDevice(v string) (id, sig string, ok bool) {
	id, sig, found := strings.Cut(v, ".")
	if !found || len(sig) != deviceSigLen || len(id) != base64.RawURLEncoding.EncodedLen(deviceIDBytes) {
		return "", "", false
	}
	if _, err := base64.RawURLEncoding.DecodeString(id); err != nil {
		return "", "", false
	}
	if _, err := hex.DecodeString(sig); err != nil {
		return "", "", false
	}
	return id, sig, true
}

// knownDevice returns the device id of cookie value v when it makes the
// browser a known browser of user uid.
func (a *SessionAuth) knownDevice(v string, uid int64) (string, bool) {
	if a.Nonces == nil || v == "" {
		return "", false
	}
	id, _, ok := parseDevice(v)
	if !ok {
		return "", false
	}
	if !hmac.Equal([]byte(v), []byte(a.deviceValue(id, uid))) {
		return "", false
	}
	return id, true
}
