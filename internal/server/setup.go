package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/store"
)

// setupPath is the page that creates the site's first administrator in the
// browser. It works only with the one-time token `serve` prints, and only
// while the site has no administrator.
const setupPath = "/admin/setup"

// Options that hold the setup link's state, shared by every node through
// the database: the current token ("" when there is none), and one
// "used" marker per token, whose insert-if-absent makes sure one token
// creates one administrator however many requests race.
const (
	setupTokenOption = "folio_setup_token"
	setupUsedPrefix  = "folio_setup_used:"
)

// newSetupToken returns a random setup token (192 bits, URL-safe).
func newSetupToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// setupUsedOption is the name of the marker option of token.
func setupUsedOption(token string) string {
	sum := sha256.Sum256([]byte(token))
	return setupUsedPrefix + hex.EncodeToString(sum[:16])
}

// initSetup runs at start: on a site without administrator it makes sure
// a usable setup token exists (the one another node made, or a new one)
// and keeps it for Greeting; on a site with one it clears a token left
// over, so that an old link never works again.
func (s *Server) initSetup(ctx context.Context) error {
	admins, err := s.store.CountUsersWithRole(ctx, "administrator")
	if err != nil {
		return fmt.Errorf("count administrators: %w", err)
	}
	tok, err := s.store.GetOption(ctx, setupTokenOption)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("setup token: %w", err)
	}
	if admins > 0 {
		s.setupToken = ""
		if tok != "" {
			if err := s.store.SetOption(ctx, setupTokenOption, ""); err != nil {
				return fmt.Errorf("setup token: %w", err)
			}
		}
		return nil
	}
	if errors.Is(err, store.ErrNotFound) {
		if tok, err = s.store.AddOption(ctx, setupTokenOption, newSetupToken()); err != nil {
			return fmt.Errorf("setup token: %w", err)
		}
	}
	if tok != "" {
		if _, err := s.store.GetOption(ctx, setupUsedOption(tok)); err == nil {
			tok = "" // spent; make a new one
		} else if !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("setup token: %w", err)
		}
	}
	if tok == "" {
		tok = newSetupToken()
		if err := s.store.SetOption(ctx, setupTokenOption, tok); err != nil {
			return fmt.Errorf("setup token: %w", err)
		}
	}
	s.setupToken = tok
	return nil
}

// Setup link states, as checkSetupToken reports them.
const (
	setupOK = iota
	setupDone
	setupBadToken
)

// checkSetupToken says whether token opens the setup page now: the site
// has no administrator and token is the current, unspent one.
func (s *Server) checkSetupToken(ctx context.Context, token string) (int, error) {
	admins, err := s.store.CountUsersWithRole(ctx, "administrator")
	if err != nil {
		return 0, err
	}
	if admins > 0 {
		return setupDone, nil
	}
	cur, err := s.store.GetOption(ctx, setupTokenOption)
	if errors.Is(err, store.ErrNotFound) || cur == "" || token == "" {
		return setupBadToken, nil
	}
	if err != nil {
		return 0, err
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(cur)) != 1 {
		return setupBadToken, nil
	}
	if _, err := s.store.GetOption(ctx, setupUsedOption(token)); err == nil {
		return setupBadToken, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return 0, err
	}
	return setupOK, nil
}

// setupForm is what the setup page shows.
type setupForm struct {
	Title   string
	Token   string
	Login   string
	Email   string
	Error   string
	State   int
	MinLen  int
	Command string
}

var setupTemplate = template.Must(template.New("setup").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Set up &lsaquo; {{.Title}}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1d2327}
label{display:block;font-weight:600;margin-top:1rem}
input{font:inherit;width:100%;box-sizing:border-box;padding:.4rem;border:1px solid #8c8f94;border-radius:4px}
input:focus{outline:2px solid #2271b1;outline-offset:1px}
button{font:inherit;margin-top:1.5rem;padding:.5rem 1.2rem;background:#2271b1;color:#fff;border:0;border-radius:4px;cursor:pointer}
.hint{color:#50575e;font-size:.9rem;margin:.2rem 0 0}
.error{border-left:4px solid #d63638;background:#fcf0f1;padding:.5rem 1rem}
code{background:#f0f0f1;padding:.1rem .3rem;word-break:break-all}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{if eq .State 0}}
<h2>Create the first administrator</h2>
<p>This page works once: it creates the administrator of this site and signs you in.</p>
{{if .Error}}<p class="error" role="alert" id="setup-error">{{.Error}}</p>{{end}}
<form method="post" action="/admin/setup" id="setupform">
<input type="hidden" name="token" value="{{.Token}}">
<label for="setup_login">Username</label>
<input type="text" name="login" id="setup_login" autocomplete="username" required maxlength="60" value="{{.Login}}" aria-describedby="login_hint">
<p class="hint" id="login_hint">Letters, digits, spaces and _ . - @</p>
<label for="setup_email">Email address</label>
<input type="email" name="email" id="setup_email" autocomplete="email" required value="{{.Email}}">
<label for="setup_pass">Password</label>
<input type="password" name="password" id="setup_pass" autocomplete="new-password" required minlength="{{.MinLen}}" aria-describedby="pass_hint">
<p class="hint" id="pass_hint">At least {{.MinLen}} characters.</p>
<label for="setup_pass2">Password again</label>
<input type="password" name="password2" id="setup_pass2" autocomplete="new-password" required minlength="{{.MinLen}}">
<button type="submit">Create administrator and sign in</button>
</form>
{{else if eq .State 1}}
<p role="alert">This site already has an administrator, so this setup link no longer works.</p>
<p><a href="/login">Sign in</a></p>
{{else}}
<p class="error" role="alert">This setup link is not valid. Open the link that <code>folio serve</code> printed when it started (it changes once it has been used), or create an administrator on the command line:</p>
<p><code>{{.Command}}</code></p>
{{end}}
</main>
</body>
</html>
`))

// serveSetup answers the first-administrator page: GET shows the form when
// the token is valid, POST creates the administrator, signs the browser in
// and goes to the admin page.
func (s *Server) serveSetup(w http.ResponseWriter, r *http.Request) {
	form := setupForm{Title: s.pageSettings(r).Title, MinLen: auth.MinPasswordLength, Command: AdminHint(s.cfg, "folio")}
	if form.Title == "" {
		form.Title = config.DefaultTitle
	}
	ctx := r.Context()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		form.Token = r.URL.Query().Get("token")
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			s.setupPage(w, r, http.StatusBadRequest, form)
			return
		}
		form.Token = r.PostForm.Get("token")
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	state, err := s.checkSetupToken(ctx, form.Token)
	if err != nil {
		s.fail(w, r, "setup page", err)
		return
	}
	form.State = state
	switch state {
	case setupDone:
		form.Token = ""
		s.setupPage(w, r, http.StatusGone, form)
		return
	case setupBadToken:
		form.Token = ""
		s.setupPage(w, r, http.StatusForbidden, form)
		return
	}
	if r.Method != http.MethodPost {
		s.setupPage(w, r, http.StatusOK, form)
		return
	}
	form.Login = strings.TrimSpace(r.PostForm.Get("login"))
	form.Email = strings.TrimSpace(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	if msg := setupInputError(form.Login, form.Email, password, r.PostForm.Get("password2")); msg != "" {
		form.Error = msg
		s.setupPage(w, r, http.StatusUnprocessableEntity, form)
		return
	}
	if msg, err := s.setupTaken(ctx, form.Login, form.Email); err != nil {
		s.fail(w, r, "setup page", err)
		return
	} else if msg != "" {
		form.Error = msg
		s.setupPage(w, r, http.StatusUnprocessableEntity, form)
		return
	}
	// Spend the token: of requests racing with it, exactly one stores its
	// claim.
	claim := newSetupToken()
	got, err := s.store.AddOption(ctx, setupUsedOption(form.Token), claim)
	if err != nil {
		s.fail(w, r, "setup page", err)
		return
	}
	if got != claim {
		form.State, form.Token = setupBadToken, ""
		s.setupPage(w, r, http.StatusConflict, form)
		return
	}
	operator := s.site.UserOf(&store.User{Roles: []string{"administrator"}})
	in := content.UserInput{Username: &form.Login, Email: &form.Email, Password: &password, Roles: []string{"administrator"}, RolesSet: true}
	if _, err := s.site.CreateUser(ctx, operator, in, nil); err != nil {
		// The token is spent; the person who held it gets a fresh one
		// with the form again.
		s.logger.ErrorContext(r.Context(), "setup page: create administrator", "err", err)
		form.Token = newSetupToken()
		if serr := s.store.SetOption(ctx, setupTokenOption, form.Token); serr != nil {
			s.fail(w, r, "setup page", serr)
			return
		}
		form.Error = "The administrator could not be created. Please try again."
		var ce *content.Error
		if errors.As(err, &ce) {
			form.Error = ce.Message
		}
		s.setupPage(w, r, http.StatusUnprocessableEntity, form)
		return
	}
	if err := s.store.SetOption(ctx, setupTokenOption, ""); err != nil {
		s.logger.WarnContext(r.Context(), "setup page: clear the setup token", "err", err)
	}
	s.logger.InfoContext(r.Context(), "first administrator created in the browser", "login", form.Login)
	in2, err := s.sessions.SignIn(ctx, auth.Attempt{
		Login:     form.Login,
		Password:  password,
		IP:        forwarded.ClientIP(r),
		UserAgent: forwarded.UserAgent(r),
	})
	if err != nil {
		s.logger.ErrorContext(r.Context(), "setup page: sign in", "err", err)
		http.Redirect(w, r, "/login?redirect_to="+adminPath, http.StatusSeeOther)
		return
	}
	secure := forwarded.Scheme(r) == "https"
	if in2.Device != "" {
		http.SetCookie(w, &http.Cookie{
			Name:     s.sessions.DeviceCookie(),
			Value:    in2.Device,
			Path:     auth.DeviceCookiePath,
			MaxAge:   int(auth.DeviceCookieLifetime / time.Second),
			HttpOnly: true,
			Secure:   secure,
			SameSite: http.SameSiteStrictMode,
		})
	}
	http.SetCookie(w, &http.Cookie{
		Name:     s.sessions.Cookie(),
		Value:    in2.Token,
		Path:     "/",
		HttpOnly: true,
		Secure:   secure,
		SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, adminPath, http.StatusSeeOther)
}

// setupInputError checks the form's fields the way `folio user create`
// does and returns what is wrong, "" when nothing is.
func setupInputError(login, email, password, again string) string {
	switch {
	case login == "" || len(login) > 60:
		return "The username must be 1 to 60 characters."
	case content.SanitizeUserLogin(login) != login:
		return "The username may only contain letters, digits, spaces and _ . - @"
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || a.Name != "" {
		return "Please enter a valid email address."
	}
	if err := auth.CheckNewPassword(password); err != nil {
		msg := err.Error()
		return strings.ToUpper(msg[:1]) + msg[1:] + "."
	}
	if password != again {
		return "The two passwords do not match."
	}
	return ""
}

// setupTaken reports a login or email another user already has.
func (s *Server) setupTaken(ctx context.Context, login, email string) (string, error) {
	if _, err := s.store.GetUserByLogin(ctx, login); err == nil {
		return "That username is already taken.", nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	if _, err := s.store.GetUserByEmail(ctx, email); err == nil {
		return "That email address is already used by another user.", nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	return "", nil
}

// setupPage writes the setup page with status.
func (s *Server) setupPage(w http.ResponseWriter, r *http.Request, status int, form setupForm) {
	var b bytes.Buffer
	if err := setupTemplate.Execute(&b, form); err != nil {
		s.fail(w, r, "setup page", err)
		return
	}
	h := w.Header()
	setPageHeaders(h, "")
	// The token is in the URL: never send it elsewhere.
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// Greeting writes, for the person who started `serve`, where the site, its
// admin and its API are and, while the site has no administrator, the
// one-time setup link and the command that creates an administrator
// instead. addr is the listener's address (the configured site URL wins);
// program is how that person runs folio ("folio", "./folio", "go run
// ./cmd/folio").
func (s *Server) Greeting(w io.Writer, addr net.Addr, program string) {
	base := s.cfg.Site.URL
	if base == "" {
		base = "http://" + displayAddr(addr)
	}
	site := base + "/"
	if ext := s.cfg.Site.ExternalFrontEnd(); ext != "" {
		site = ext + "/"
	}
	fmt.Fprintf(w, "  site:  %s\n  admin: %s%s\n  API:   %s%s/\n", site, base, adminPath, base, strings.TrimRight(s.names.Prefix, "/"))
	if s.setupToken == "" {
		return
	}
	fmt.Fprintf(w, "\nThis site has no administrator yet. Open this link once to create one and sign in:\n  %s%s?token=%s\n", base, setupPath, s.setupToken)
	fmt.Fprintf(w, "or create one on the command line (it asks for the password):\n  %s\n\n", AdminHint(s.cfg, program))
}

// displayAddr is addr as a person can open it: an unspecified host
// (0.0.0.0, ::) becomes the loopback address.
func displayAddr(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			host = "127.0.0.1"
		} else {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port)
}
