package frontend

import (
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// Form fields and nonce actions of the reader's forms.
const (
	// nonceField carries the comment form's nonce.
	nonceField = "_folio_nonce"
	// passwordField carries a protected post's password.
	passwordField = "post_password"
	// postPassAction is the nonce action of the cookie that unlocks a
	// protected post, made with the post's id and password, so that
	// changing the password locks every browser out again.
	postPassAction = "folio_postpass"
	// postPassCookie prefixes the name of that cookie (+ the post id).
	postPassCookie = "folio_postpass_"
	// maxFormBytes bounds a posted form.
	maxFormBytes = 256 << 10
)

// commentAction is the nonce action of the comment form of post id.
func commentAction(id int64) string { return "folio_comment_" + strconv.FormatInt(id, 10) }

// unlockedPassword returns p's password when this browser gave it (its
// unlock cookie checks out), "" otherwise.
func (v *visit) unlockedPassword(p *store.Post) string {
	if p.Password == "" {
		return ""
	}
	c, err := v.r.Cookie(postPassCookie + strconv.FormatInt(p.ID, 10))
	if err != nil || len(c.Value) > 64 {
		return ""
	}
	if v.h.opts.Nonces.Verify(c.Value, p.ID, p.Password, postPassAction) == 0 {
		return ""
	}
	return p.Password
}

// safeHTML marks HTML the content layer rendered and sanitised.
func safeHTML(s string) template.HTML { return template.HTML(s) }

// sameOrigin reports whether a POST comes from a page of this site: its
// Origin (or, without one, its Referer) names the site's or the request's
// own scheme and host. A request with neither is not from a browser's
// cross-site form.
func (v *visit) sameOrigin() bool {
	from := v.r.Header.Get("Origin")
	if from == "" {
		ref := v.r.Header.Get("Referer")
		if ref == "" {
			return true
		}
		u, err := url.Parse(ref)
		if err != nil {
			return false
		}
		from = u.Scheme + "://" + u.Host
	}
	if from == "null" {
		return false
	}
	o, err := url.Parse(from)
	if err != nil {
		return false
	}
	for _, allowed := range []string{v.base, v.requestOrigin()} {
		a, err := url.Parse(allowed)
		if err == nil && strings.EqualFold(a.Scheme, o.Scheme) && strings.EqualFold(a.Host, o.Host) {
			return true
		}
	}
	return false
}

// requestOrigin is the scheme and host the request was sent to.
func (v *visit) requestOrigin() string {
	return forwarded.Scheme(v.r) + "://" + v.r.Host
}

// submit handles a POST to a single page: the password of a protected
// post, or a new comment. done is true when the answer was written (a
// redirect); otherwise page holds what to show again and status its
// status.
func (v *visit) submit(p *store.Post, view *Post, page *Page) (done bool, status int, err error) {
	v.r.Body = http.MaxBytesReader(v.w, v.r.Body, maxFormBytes)
	if err := v.r.ParseForm(); err != nil {
		page.Notice = "The form could not be read."
		return false, http.StatusBadRequest, nil
	}
	if !v.sameOrigin() {
		page.Notice = "This form was sent from another site, so it was ignored."
		return false, http.StatusForbidden, nil
	}
	if _, ok := v.r.PostForm[passwordField]; ok {
		return v.unlock(p, view, page)
	}
	return v.comment(p, view, page)
}

// unlock checks a protected post's password and, when right, sets the
// cookie that shows its text to this browser.
func (v *visit) unlock(p *store.Post, view *Post, page *Page) (bool, int, error) {
	given := v.r.PostForm.Get(passwordField)
	if p.Password == "" || subtle.ConstantTimeCompare([]byte(given), []byte(p.Password)) != 1 {
		page.PasswordForm = &PasswordForm{Action: view.URL, Field: passwordField, Error: "That password is not correct."}
		return false, http.StatusForbidden, nil
	}
	http.SetCookie(v.w, &http.Cookie{
		Name:     postPassCookie + strconv.FormatInt(p.ID, 10),
		Value:    v.h.opts.Nonces.Create(p.ID, p.Password, postPassAction),
		Path:     "/",
		MaxAge:   int((12 * time.Hour).Seconds()),
		HttpOnly: true,
		Secure:   forwarded.Scheme(v.r) == "https",
		SameSite: http.SameSiteLaxMode,
	})
	v.w.Header().Set("Cache-Control", "no-store")
	http.Redirect(v.w, v.r, view.URL, http.StatusSeeOther)
	return true, 0, nil
}

// comment creates a comment from the form with the rules of POST
// /comments: the create checks (login required, closed comments, a
// protected post's password), then creation with its duplicate, flood
// and moderation rules, then the rest_insert_comment hook.
func (v *visit) comment(p *store.Post, view *Post, page *Page) (bool, int, error) {
	site := v.h.site
	form := v.r.PostForm
	f := &CommentForm{
		Name:    schema.SanitizeTextField(form.Get("author")),
		Email:   strings.TrimSpace(form.Get("email")),
		Website: strings.TrimSpace(form.Get("url")),
		Text:    form.Get("comment"),
	}
	f.Parent, _ = strconv.ParseInt(form.Get("comment_parent"), 10, 64)
	page.CommentForm = f
	refuse := func(status int, msg string) (bool, int, error) {
		f.Error = msg
		return false, status, nil
	}
	if v.h.opts.Nonces.Verify(form.Get(nonceField), v.user.ID(), v.token, commentAction(p.ID)) == 0 {
		return refuse(http.StatusForbidden, "This form has expired. Please send your comment again.")
	}
	if strings.TrimSpace(f.Text) == "" {
		return refuse(http.StatusBadRequest, "Please type a comment.")
	}
	in := content.CommentInput{Content: &f.Text, Post: &p.ID, Parent: &f.Parent}
	if v.user == nil {
		if f.Name == "" {
			return refuse(http.StatusBadRequest, "Please enter your name.")
		}
		email, _ := schema.Sanitize(schema.Rule{Type: "string", Format: "email"}, "email", f.Email)
		e, _ := email.(string)
		if e == "" || !schema.IsEmail(e) {
			return refuse(http.StatusBadRequest, "Please enter a valid email address.")
		}
		site := ""
		if f.Website != "" {
			w, _ := schema.Sanitize(schema.Rule{Type: "string", Format: "uri"}, "url", f.Website)
			site, _ = w.(string)
			if site == "" {
				return refuse(http.StatusBadRequest, "Please enter a valid website address, or none.")
			}
		}
		in.AuthorName, in.AuthorEmail, in.AuthorURL = &f.Name, &e, &site
	}
	password := v.unlockedPassword(p)
	if err := site.CheckCreateComment(v.ctx, v.user, content.CommentCreateCheck{Post: p.ID, Password: password}); err != nil {
		return v.refused(err, f)
	}
	c, err := site.CreateComment(v.ctx, v.user, in, v.origin(), nil)
	if err != nil {
		return v.refused(err, f)
	}
	site.InsertCommentHook(v.ctx, c, nil, true)
	target := view.URL + "#comment-" + strconv.FormatInt(c.ID, 10)
	if c.Approved != store.CommentApproved {
		target = withQuery(view.URL, "moderation", "1") + "#respond"
	}
	v.w.Header().Set("Cache-Control", "no-store")
	http.Redirect(v.w, v.r, target, http.StatusSeeOther)
	return true, 0, nil
}

// refused shows the form again with the message of a rule that refused
// the comment; other errors fail the request.
func (v *visit) refused(err error, f *CommentForm) (bool, int, error) {
	var ce *content.Error
	if !errors.As(err, &ce) {
		return false, 0, err
	}
	status := ce.Status
	if status == 0 {
		status = http.StatusForbidden
		if v.user == nil {
			status = http.StatusUnauthorized
		}
	}
	if status >= 500 {
		return false, 0, err
	}
	f.Error = ce.Message
	return false, status, nil
}

// origin is the comment's origin as the API records it: the client's
// address (trusted proxies believed) and the user agent.
func (v *visit) origin() content.CommentOrigin {
	o := content.CommentOrigin{IP: forwarded.ClientIP(v.r), UserAgent: forwarded.UserAgent(v.r)}
	if len(o.UserAgent) > 254 {
		o.UserAgent = o.UserAgent[:254]
	}
	return o
}
