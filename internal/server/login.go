package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// newSessionAuth builds the browser-session authenticator: sessions in the
// store, nonces signed with the site's shared secret (created on first
// start), the nonce header named after the REST header prefix, sign-ins
// slowed by throttle.
func newSessionAuth(ctx context.Context, st store.Store, site *content.Site, names rest.Names, throttle *auth.Throttle, logger *slog.Logger) (*auth.SessionAuth, error) {
	nonces, err := auth.LoadNonces(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("load nonce secret: %w", err)
	}
	return &auth.SessionAuth{
		Sessions:    st,
		Users:       st,
		Nonces:      nonces,
		Roles:       site.Roles(),
		NonceHeader: names.NonceHeader(),
		NonceParam:  names.NonceParam,
		Now:         time.Now,
		Logger:      logger,
		Throttle:    throttle,
	}, nil
}

// defaultAfterLogin is where a successful sign-in goes without redirect_to.
const defaultAfterLogin = "/admin/"

// Messages of the sign-in page. The failure message is the same whether or
// not the login exists.
const (
	msgLoginFailed = "The username or password you entered is incorrect."
	msgLoginError  = "Signing in failed because of a server error. Please try again."
	msgLoggedOut   = "You are now signed out."
)

// throttledMessage is the sign-in page's message for an attempt that must
// wait secs seconds. Like every message of the page, it is the same
// whether or not the login exists.
func throttledMessage(secs int) string {
	wait := fmt.Sprintf("%d seconds", secs)
	switch {
	case secs == 1:
		wait = "a second"
	case secs > 90:
		wait = fmt.Sprintf("%d minutes", (secs+59)/60)
	}
	return "Too many failed sign-in attempts. Please wait " + wait + " and try again."
}

// serveLogin shows the sign-in form (GET) and signs in (POST with log, pwd,
// redirect_to and an optional rememberme).
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		msg := ""
		if r.URL.Query().Get("loggedout") != "" {
			msg = msgLoggedOut
		}
		s.loginPage(w, r, http.StatusOK, r.URL.Query().Get("redirect_to"), "", msg, false)
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			s.loginPage(w, r, http.StatusBadRequest, "", "", "The form could not be read.", true)
			return
		}
		login := r.PostForm.Get("log")
		redirect := r.PostForm.Get("redirect_to")
		remember := r.PostForm.Get("rememberme") != ""
		client := forwarded.FromRequest(r)
		device := ""
		if c, err := r.Cookie(s.sessions.DeviceCookie()); err == nil {
			device = c.Value
		}
		in, err := s.sessions.SignIn(r.Context(), auth.Attempt{
			Login:     login,
			Password:  r.PostForm.Get("pwd"),
			IP:        client.Addr(),
			UserAgent: forwarded.UserAgent(r),
			Remember:  remember,
			Device:    device,
		})
		var throttled *auth.ThrottledError
		switch {
		case errors.Is(err, auth.ErrLoginFailed):
			s.loginPage(w, r, http.StatusUnauthorized, redirect, login, msgLoginFailed, true)
			return
		case errors.As(err, &throttled):
			secs := throttled.RetryAfterSeconds()
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			s.loginPage(w, r, http.StatusTooManyRequests, redirect, login, throttledMessage(secs), true)
			return
		case err != nil:
			s.logger.ErrorContext(r.Context(), "sign in", "err", err)
			s.loginPage(w, r, http.StatusInternalServerError, redirect, login, msgLoginError, true)
			return
		}
		secure := client.Scheme == "https"
		cookie := &http.Cookie{
			Name:     s.sessions.Cookie(),
			Value:    in.Token,
			Path:     "/",
			HttpOnly: true,
			Secure:   secure,
			SameSite: http.SameSiteLaxMode,
		}
		if remember {
			cookie.Expires = in.Session.Expires
		}
		if in.Device != "" {
			http.SetCookie(w, &http.Cookie{
				Name:     s.sessions.DeviceCookie(),
				Value:    in.Device,
				Path:     auth.DeviceCookiePath,
				MaxAge:   int(auth.DeviceCookieLifetime / time.Second),
				HttpOnly: true,
				Secure:   secure,
				SameSite: http.SameSiteStrictMode,
			})
		}
		http.SetCookie(w, cookie)
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, safeRedirect(redirect), http.StatusFound)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
	}
}

// serveLogout ends the browser session (POST only, so that a link or an
// image on another site cannot sign the visitor out) and goes back to the
// sign-in page.
func (s *Server) serveLogout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := s.sessions.SignOut(r); err != nil {
		s.fail(w, r, "sign out", err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     s.sessions.Cookie(),
		Value:    "",
		Path:     "/",
		MaxAge:   -1,
		HttpOnly: true,
		Secure:   forwarded.Scheme(r) == "https",
		SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/login?loggedout=true", http.StatusFound)
}

// safeRedirect returns target when it is a path on this site, else the
// default page, so that the form cannot be used as an open redirect.
func safeRedirect(target string) string {
	if target == "" {
		return defaultAfterLogin
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(target, "//") || strings.ContainsAny(target, "\\\r\n") {
		return defaultAfterLogin
	}
	return u.String()
}

// lostPasswordHelp tells how to replace a lost password: Folio sends no
// email, so it is done on the server's command line.
const lostPasswordHelp = "<details class=\"lost-password\"><summary>Lost your password?</summary>\n" +
	"<p>Folio sends no email, so a password is replaced on the server: someone who can run Folio's command line there sets a new one with</p>\n" +
	"<p><code>folio user set-password --login YOUR-LOGIN</code></p>\n" +
	"<p>(add the <code>--data</code> or <code>--database</code> the site runs with; it asks for the new password).</p>\n</details>\n"

// loginPage writes the sign-in form, styled by /assets/login.css (no
// inline script or style).
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, status int, redirect, login, msg string, isError bool) {
	title := html.EscapeString(s.pageSettings(r).Title)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"robots\" content=\"noindex\">\n<title>Sign in &lsaquo; ")
	b.WriteString(title)
	b.WriteString("</title>\n<link rel=\"stylesheet\" href=\"" + html.EscapeString(assetURL("login.css")) + "\">\n</head>\n<body>\n<main class=\"login\">\n<h1><a href=\"/\">")
	b.WriteString(title)
	b.WriteString("</a></h1>\n")
	if msg != "" {
		class := "message"
		if isError {
			class = "error"
		}
		b.WriteString("<p class=\"" + class + "\" role=\"alert\">" + html.EscapeString(msg) + "</p>\n")
	}
	b.WriteString("<form name=\"loginform\" id=\"loginform\" action=\"/login\" method=\"post\">\n")
	b.WriteString("<p><label for=\"user_login\">Username or email address</label>\n<input type=\"text\" name=\"log\" id=\"user_login\" autocomplete=\"username\" autocapitalize=\"off\" spellcheck=\"false\" required value=\"" + html.EscapeString(login) + "\"></p>\n")
	b.WriteString("<p><label for=\"user_pass\">Password</label>\n<input type=\"password\" name=\"pwd\" id=\"user_pass\" autocomplete=\"current-password\" required></p>\n")
	b.WriteString("<p class=\"remember\"><label><input type=\"checkbox\" name=\"rememberme\" value=\"forever\"> Remember me</label></p>\n")
	b.WriteString("<input type=\"hidden\" name=\"redirect_to\" value=\"" + html.EscapeString(safeRedirect(redirect)) + "\">\n")
	b.WriteString("<p class=\"submit\"><button type=\"submit\">Sign in</button></p>\n</form>\n")
	b.WriteString(lostPasswordHelp)
	b.WriteString("<p class=\"back\"><a href=\"/\">&larr; Go to " + title + "</a></p>\n</main>\n</body>\n</html>\n")
	page := b.String()
	h := w.Header()
	setPageHeaders(h, "")
	h.Set("Content-Length", fmt.Sprint(len(page)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(page))
	}
}

// apiSettings is the settings object handed to pages of signed-in users.
type apiSettings struct {
	Root          string `json:"root"`
	Nonce         string `json:"nonce"`
	VersionString string `json:"versionString"`
	// NonceEndpoint is the URL that answers a fresh nonce (see
	// serveNonce), as WordPress hands apiFetch.nonceEndpoint.
	NonceEndpoint string `json:"nonceEndpoint"`
}

// settingsObject returns the JavaScript statements that give a page served
// to a signed-in browser the API settings {root, nonce, versionString,
// nonceEndpoint} (cli.md) as window[Names.SettingsObject], and under
// Names.SettingsAlias too when the mode has one (window.wpApiSettings in
// WordPress-compatibility mode). The page puts them in its one inline
// script, which its CSP nonce allows. It is empty for visitors who are not
// signed in.
func (s *Server) settingsObject(r *http.Request) string {
	u, token, err := s.sessions.Session(r)
	if err != nil {
		s.logger.WarnContext(r.Context(), "page session", "err", err)
		return ""
	}
	if u == nil {
		return ""
	}
	js, err := json.Marshal(apiSettings{
		Root:          s.APIRoot(r),
		Nonce:         s.sessions.Nonce(u, token),
		VersionString: s.names.Namespace + "/",
		NonceEndpoint: s.siteBase(r) + s.names.NonceEndpoint,
	})
	if err != nil {
		return ""
	}
	// json.Marshal escapes <, > and &, so the object cannot close the
	// script element; the global names are identifiers of ours.
	out := "window." + s.names.SettingsObject + " = " + string(js) + ";"
	if s.names.SettingsAlias != "" {
		out += " window." + s.names.SettingsAlias + " = window." + s.names.SettingsObject + ";"
	}
	return out
}

// nonceText is the body of the nonce endpoint for a request it cannot
// answer with a nonce, as WordPress's admin-ajax.php answers.
const nonceText = "0"

// serveNonce answers the nonce endpoint: a fresh nonce as plain text (200)
// for a browser with a valid session cookie, "0" with 400 for anyone else
// or when the endpoint's query parameters (action=rest-nonce in
// WordPress-compatibility mode) are missing. @wordpress/api-fetch calls it
// to refresh an expired nonce; the admin client does the same.
func (s *Server) serveNonce(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Robots-Tag", "noindex")
	answer := func(status int, body string) {
		h.Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, body)
		}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		h.Set("Allow", "GET, HEAD, POST")
		answer(http.StatusMethodNotAllowed, nonceText)
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	}
	if err := r.ParseForm(); err != nil {
		answer(http.StatusBadRequest, nonceText)
		return
	}
	for k, vs := range s.nonceQuery {
		if len(vs) > 0 && r.Form.Get(k) != vs[0] {
			answer(http.StatusBadRequest, nonceText)
			return
		}
	}
	u, token, err := s.sessions.Session(r)
	if err != nil {
		s.logger.ErrorContext(r.Context(), "nonce endpoint session", "err", err)
		answer(http.StatusInternalServerError, nonceText)
		return
	}
	if u == nil {
		answer(http.StatusBadRequest, nonceText)
		return
	}
	answer(http.StatusOK, s.sessions.Nonce(u, token))
}
