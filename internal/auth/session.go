package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/store"
)

var _ Authenticator = (*SessionAuth)(nil)

// Defaults of SessionAuth.
const (
	// DefaultSessionCookie is the name of the session cookie.
	DefaultSessionCookie = "folio_session"
	// DefaultSessionLifetime is how long a session lasts.
	DefaultSessionLifetime = 48 * time.Hour
	// RememberSessionLifetime is the lifetime of a "remember me" session.
	RememberSessionLifetime = 14 * 24 * time.Hour
	// sessionTouchInterval is how often at most a session's last use is
	// written.
	sessionTouchInterval = time.Minute
	// nonceBodyPeek bounds how much of a form body is read to find the
	// nonce field before routing.
	nonceBodyPeek = 1 << 20
)

// ErrLoginFailed is returned for a wrong login or password. Its message
// never says whether the login exists.
var ErrLoginFailed = errors.New("the login or password is incorrect")

// SessionAuth handles browser sessions: signing in with the account
// password, the session cookie, and the cookie+nonce rule of the
// interface (reference §4).
//
// As an Authenticator it implements the nonce rule: without a nonce the
// request is anonymous even with a valid session cookie; a nonce valid for
// the session's user (or for nobody, when there is no valid session) signs
// the request in as that user; any other nonce is a 403
// rest_cookie_invalid_nonce *Error. It must come after the Basic
// authenticator in a Chain, so that an Authorization header wins.
type SessionAuth struct {
	Sessions store.SessionStore
	Users    store.UserStore
	Nonces   *Nonces
	// Roles resolves capabilities; nil means DefaultRoles.
	Roles *Roles
	// CookieName is the session cookie; "" means DefaultSessionCookie.
	CookieName string
	// NonceHeader is the request and response header carrying the nonce
	// (rest.Names.NonceHeader); "" accepts no nonce header and sends none.
	NonceHeader string
	// NonceParam is the query or form parameter that can carry the nonce
	// instead of the header (rest.Names.NonceParam); "" accepts none.
	NonceParam string
	// Lifetime is how long a session lasts; 0 means
	// DefaultSessionLifetime.
	Lifetime time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures that do not fail the request.
	Logger *slog.Logger
	// checkPassword checks an account password; nil means
	// CheckPassword. Tests count the checks through it.
	checkPassword func(hash, pw string) bool
	// Throttle slows password guessing; nil means a Throttle over
	// Sessions with the same clock and logger.
	Throttle *Throttle

	throttleOnce sync.Once
}

// throttle returns the Throttle of SignIn.
func (a *SessionAuth) throttle() *Throttle {
	a.throttleOnce.Do(func() {
		if a.Throttle == nil {
			a.Throttle = &Throttle{Counters: a.Sessions, Now: a.Now, Logger: a.Logger}
		}
	})
	return a.Throttle
}

func (a *SessionAuth) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Cookie returns the name of the session cookie.
func (a *SessionAuth) Cookie() string {
	if a.CookieName == "" {
		return DefaultSessionCookie
	}
	return a.CookieName
}

// Header returns the name of the nonce header ("" when there is none).
func (a *SessionAuth) Header() string { return a.NonceHeader }

// HashSessionToken returns the stored form of a session token.
func HashSessionToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// RequestSessionHash returns the token hash of the session named by the
// request's session cookie (DefaultSessionCookie), "" when there is none or
// when the request has an Authorization header, which wins over the
// cookie. It does not check that the session exists.
func RequestSessionHash(r *http.Request) string {
	if r == nil || len(r.Header.Values("Authorization")) > 0 {
		return ""
	}
	token := (&SessionAuth{}).token(r)
	if token == "" {
		return ""
	}
	return HashSessionToken(token)
}

// newSessionToken returns a random session token (256 bits, URL-safe).
func newSessionToken() (string, error) {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("session token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// dummyHash is compared against when the login does not exist, so that a
// failed sign-in takes as long whether or not the account exists.
var dummyHash, _ = HashPassword("folio-dummy-password")

// Attempt is one sign-in with the account password.
type Attempt struct {
	// Login is the login or the email address as typed.
	Login    string
	Password string
	// IP is the client's address (forwarded.ClientIP).
	IP        string
	UserAgent string
	// Remember asks for a long session.
	Remember bool
	// Device is the value of the browser's device cookie ("" for none).
	Device string
}

// SignedIn is the result of a successful sign-in.
type SignedIn struct {
	// Token is the session token, for the session cookie.
	Token   string
	Session *store.Session
	// Device is the device cookie value that makes the browser a known
	// browser of the account (renewed on every sign-in).
	Device string
}

// SignIn checks the login (or email) and the account password of at and
// starts a session.
//
// The attempt is throttled (docs/security-throttling.md): it is counted
// before the password is checked, on the counters of the pair (account,
// client address), the account and the address, or, from a known browser
// of the account (a valid device cookie), on that browser's counter only.
// An attempt that must wait gets a *ThrottledError (errors.Is
// ErrLoginThrottled) without its password being checked; a wrong login or
// password gets ErrLoginFailed. Both behave alike for logins that do not
// exist. Other errors are storage failures.
func (a *SessionAuth) SignIn(ctx context.Context, at Attempt) (*SignedIn, error) {
	u, err := a.lookup(ctx, strings.TrimSpace(at.Login))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	keys := untrustedKeys(at.Login, at.IP)
	device := ""
	if u != nil {
		if id, ok := a.knownDevice(at.Device, u.ID); ok {
			device = id
			keys = deviceKeys(u.ID, id)
		}
	}
	th := a.throttle()
	if err := th.Reserve(ctx, keys); err != nil {
		if errors.Is(err, ErrLoginThrottled) {
			return nil, err
		}
		return nil, fmt.Errorf("sign in: %w", err)
	}
	check := a.checkPassword
	if check == nil {
		check = CheckPassword
	}
	ok := false
	if u != nil {
		ok = check(u.PassHash, at.Password)
	} else {
		check(dummyHash, at.Password)
	}
	if !ok || at.Password == "" {
		// The reservation stays counted as the failure.
		return nil, ErrLoginFailed
	}
	if err := th.Succeeded(ctx, keys); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	now := a.now().UTC()
	life := a.Lifetime
	if life <= 0 {
		life = DefaultSessionLifetime
	}
	if at.Remember {
		life = max(life, RememberSessionLifetime)
	}
	token, err := newSessionToken()
	if err != nil {
		return nil, err
	}
	s := &store.Session{
		TokenHash: HashSessionToken(token),
		UserID:    u.ID,
		Created:   now.Truncate(time.Second),
		Expires:   now.Add(life).Truncate(time.Second),
		LastSeen:  now.Truncate(time.Second),
		IP:        at.IP,
		UserAgent: truncate(at.UserAgent, 255),
	}
	if err := a.Sessions.CreateSession(ctx, s); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	// Sign-ins are rare enough to carry the clean-up of ended sessions.
	if _, err := a.Sessions.DeleteExpiredSessions(ctx, now); err != nil && a.Logger != nil {
		a.Logger.Warn("remove expired sessions", "err", err)
	}
	out := &SignedIn{Token: token, Session: s}
	if a.Nonces != nil {
		if device == "" {
			if device, err = newDevice(); err != nil {
				return nil, err
			}
		}
		out.Device = a.deviceValue(device, u.ID)
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// lookup finds the user by login, or by email when login looks like one.
func (a *SessionAuth) lookup(ctx context.Context, login string) (*store.User, error) {
	if !plausibleLogin(login) {
		return nil, store.ErrNotFound
	}
	u, err := a.Users.GetUserByLogin(ctx, login)
	if errors.Is(err, store.ErrNotFound) && strings.Contains(login, "@") {
		u, err = a.Users.GetUserByEmail(ctx, login)
	}
	if err == nil && u == nil {
		err = store.ErrNotFound
	}
	return u, err
}

// SignOut ends the session whose token the request's cookie carries. A
// request without a valid session is not an error.
func (a *SessionAuth) SignOut(r *http.Request) error {
	token := a.token(r)
	if token == "" {
		return nil
	}
	err := a.Sessions.DeleteSession(r.Context(), HashSessionToken(token))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// token returns the session token of the request's cookie, "" when none.
func (a *SessionAuth) token(r *http.Request) string {
	c, err := r.Cookie(a.Cookie())
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return ""
	}
	return c.Value
}

// Session returns the user signed in by the request's session cookie and
// the session token, without the nonce rule: pages (not API requests) use
// it. It returns (nil, "", nil) when the cookie is absent, unknown or
// expired.
func (a *SessionAuth) Session(r *http.Request) (*User, string, error) {
	token := a.token(r)
	if token == "" {
		return nil, "", nil
	}
	ctx := r.Context()
	s, err := a.Sessions.GetSession(ctx, HashSessionToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("session: %w", err)
	}
	now := a.now().UTC()
	if !now.Before(s.Expires) {
		return nil, "", nil
	}
	rec, err := a.Users.GetUser(ctx, s.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("session user: %w", err)
	}
	if now.Sub(s.LastSeen) >= sessionTouchInterval {
		if err := a.Sessions.TouchSession(ctx, s.TokenHash, now.Truncate(time.Second), forwarded.ClientIP(r)); err != nil && a.Logger != nil {
			a.Logger.WarnContext(ctx, "record session use", "user_id", s.UserID, "err", err)
		}
	}
	return NewUser(rec, a.Roles), token, nil
}

// Nonce returns a fresh interface nonce for user u in the session with
// token (both empty for nobody).
func (a *SessionAuth) Nonce(u *User, token string) string {
	return a.Nonces.Create(u.ID(), token, RESTNonceAction)
}

// errInvalidNonce is the error of a nonce that does not check out.
func errInvalidNonce() *Error {
	return &Error{Code: "rest_cookie_invalid_nonce", Message: "Cookie nonce is invalid", Status: http.StatusForbidden}
}

// Authenticate implements Authenticator with the nonce rule of reference
// §4. Requests with an Authorization header are left to other
// authenticators.
func (a *SessionAuth) Authenticate(r *http.Request) (*User, error) {
	if len(r.Header.Values("Authorization")) > 0 {
		return nil, nil
	}
	nonce, present := a.requestNonce(r)
	if !present {
		return nil, nil
	}
	u, token, err := a.Session(r)
	if err != nil {
		return nil, err
	}
	if a.Nonces.Verify(nonce, u.ID(), token, RESTNonceAction) == 0 {
		return nil, errInvalidNonce()
	}
	return u, nil
}

// ResponseHeaders returns the headers that hand a cookie-authenticated
// caller a fresh nonce (nil for other callers).
func (a *SessionAuth) ResponseHeaders(r *http.Request, u *User) http.Header {
	if u == nil || len(r.Header.Values("Authorization")) > 0 {
		return nil
	}
	token := a.token(r)
	if token == "" || a.NonceHeader == "" {
		return nil
	}
	return http.Header{http.CanonicalHeaderKey(a.NonceHeader): {a.Nonce(u, token)}}
}

// requestNonce reads the nonce: the nonce parameter of the query or of a
// form body first, else the nonce header. present is true when one of them
// was sent, even empty.
func (a *SessionAuth) requestNonce(r *http.Request) (string, bool) {
	if a.NonceParam != "" {
		if vs, ok := r.URL.Query()[a.NonceParam]; ok && len(vs) > 0 {
			return vs[0], true
		}
		if v, ok := formNonce(r, a.NonceParam); ok {
			return v, true
		}
	}
	if a.NonceHeader != "" {
		if vs := r.Header.Values(a.NonceHeader); len(vs) > 0 {
			return vs[0], true
		}
	}
	return "", false
}

// formNonce looks for the field param in a form body (urlencoded or
// multipart) of a POST, PUT or PATCH, reading at most nonceBodyPeek bytes
// and putting them back so the body can still be read in full.
func formNonce(r *http.Request, param string) (string, bool) {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return "", false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return "", false
	}
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	if ct != "" && mt != "application/x-www-form-urlencoded" && mt != "multipart/form-data" {
		return "", false
	}
	prefix, err := io.ReadAll(io.LimitReader(r.Body, nonceBodyPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(prefix), r.Body), r.Body}
	if err != nil {
		return "", false
	}
	if mt == "multipart/form-data" {
		if params["boundary"] == "" {
			return "", false
		}
		mr := multipart.NewReader(bytes.NewReader(prefix), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return "", false
			}
			if p.FormName() == param && p.FileName() == "" {
				v, err := io.ReadAll(io.LimitReader(p, 256))
				if err != nil {
					return "", false
				}
				return string(v), true
			}
		}
	}
	// A malformed pair (or one cut at the peek limit) does not hide the
	// others: ParseQuery keeps every pair it could read.
	vals, _ := url.ParseQuery(string(prefix))
	if vs, ok := vals[param]; ok && len(vs) > 0 {
		return vs[0], true
	}
	return "", false
}
