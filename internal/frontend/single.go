package frontend

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// singleByID answers /?p=ID (any public type, or postType when given),
// /?page_id=ID and /?attachment_id=ID. A published post with a pretty
// permalink is redirected there.
func (v *visit) singleByID(idText, postType string) error {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return errNotFound
	}
	p, ok, err := v.h.site.GetPost(v.ctx, id)
	if err != nil {
		return err
	}
	if !ok || (postType != "" && p.Type != postType) {
		return errNotFound
	}
	return v.single(p, true)
}

// datedPost answers /YYYY/MM/DD/slug/, the permalink of a published post.
func (v *visit) datedPost(segs []string) error {
	y, _ := strconv.Atoi(segs[0])
	m, _ := strconv.Atoi(segs[1])
	d, _ := strconv.Atoi(segs[2])
	pt, _ := v.h.site.Types().Get("post")
	return v.singleBySlug(pt, segs, func(q *store.PostQuery) {
		q.Slugs = []string{segs[3]}
		q.Year, q.Month, q.Day = y, m, d
	})
}

// singleByPath answers the permalink of a published page or custom post:
// its slug and its parents' slugs.
// segs is the whole requested path, path its part that names the post.
func (v *visit) singleByPath(pt *content.PostType, segs, path []string) error {
	if len(path) == 0 || (!pt.Hierarchical && len(path) != 1) {
		return errNotFound
	}
	return v.singleBySlug(pt, segs, func(q *store.PostQuery) { q.Slugs = []string{path[len(path)-1]} })
}

// singleBySlug finds the published post of type pt that mod's query
// selects and whose permalink is the requested path, and answers it.
func (v *visit) singleBySlug(pt *content.PostType, segs []string, mod func(*store.PostQuery)) error {
	q := store.PostQuery{
		Types:      []string{pt.Name},
		Statuses:   []string{"publish"},
		Visibility: v.h.site.Visibility(v.user, pt),
		OrderBy:    "id",
		Order:      "asc",
		Limit:      20,
	}
	mod(&q)
	found, _, err := v.h.site.ListPosts(v.ctx, q)
	if err != nil {
		return err
	}
	var parents map[int64]*store.Post
	if pt.Hierarchical && len(found) > 0 {
		if parents, err = v.h.site.ParentChains(v.ctx, found); err != nil {
			return err
		}
	}
	want := v.base + "/" + strings.Join(segs, "/") + "/"
	for _, p := range found {
		if strings.EqualFold(v.h.site.Permalink(v.base, p, parents), want) {
			return v.single(p, false)
		}
	}
	return errNotFound
}

// visible reports whether the reader shows p to the visitor: a public
// type, a status the reader shows (never a draft, pending, scheduled or
// trashed post; attachments with their parent) and read_post as the API
// checks it.
func (v *visit) visible(p *store.Post) bool {
	pt, ok := v.h.site.Types().Get(p.Type)
	if !ok || !pt.ShowInRest || !pt.Public {
		return false
	}
	switch {
	case p.Type == "attachment":
		if p.Status != "inherit" {
			return false
		}
		if p.Parent != 0 {
			// The media of a draft stay with the draft, even for those
			// the API would show them to.
			parent, ok, err := v.h.site.GetPost(v.ctx, p.Parent)
			if err != nil || (ok && !v.visible(parent)) {
				return false
			}
		}
	case !contains(listedStatuses, p.Status):
		return false
	}
	return v.h.site.CanRead(v.ctx, v.user, p)
}

// single answers the page of one post: GET shows it, POST takes a comment
// or a protected post's password. byID is set when the request named the
// post by id, so that a post with a pretty permalink goes there.
func (v *visit) single(p *store.Post, byID bool) error {
	if !v.visible(p) {
		return errNotFound
	}
	views, err := v.posts([]*store.Post{p}, true)
	if err != nil {
		return err
	}
	view := views[0]
	if p.Type == "attachment" {
		if view.Media, err = v.media(p); err != nil {
			return err
		}
	}
	if byID && v.r.Method != http.MethodPost && !strings.Contains(view.URL, "?") {
		v.w.Header().Set("Cache-Control", "no-store")
		http.Redirect(v.w, v.r, view.URL, http.StatusMovedPermanently)
		return nil
	}
	page := &Page{Kind: "single", Post: view, Title: plain(string(view.Title))}
	status := http.StatusOK
	if v.r.Method == http.MethodPost {
		done, st, err := v.submit(p, view, page)
		if err != nil || done {
			return err
		}
		status = st
	}
	if err := v.discussion(p, view, page); err != nil {
		return err
	}
	if v.r.URL.Query().Get("moderation") != "" && page.Notice == "" {
		page.Notice = "Your comment is awaiting moderation."
	}
	return v.render("single.html", status, page)
}

// media describes an attachment's file, with the address the API gives as
// source_url.
func (v *visit) media(p *store.Post) (*Media, error) {
	got, err := v.h.site.GetMedia(v.ctx, []int64{p.ID})
	if err != nil {
		return nil, err
	}
	m := &Media{URL: p.GUID, MimeType: p.MimeType, IsImage: strings.HasPrefix(p.MimeType, "image/")}
	if rec := got[p.ID]; rec != nil {
		m.Alt = rec.AltText
		if rec.File != "" {
			base := v.h.site.Config().Media.PublicURL
			if base == "" {
				base = v.base + "/uploads"
			}
			m.URL = base + "/" + rec.File
		}
		d := content.Details(rec)
		m.Width, m.Height = int(d.Width), int(d.Height)
	}
	return m, nil
}

// discussion fills the comments, the comment form and the password form
// of a single page.
func (v *visit) discussion(p *store.Post, view *Post, page *Page) error {
	site := v.h.site
	if view.Locked {
		if page.PasswordForm == nil {
			page.PasswordForm = &PasswordForm{Action: view.URL, Field: passwordField}
		}
		return nil
	}
	password := v.unlockedPassword(p)
	if !site.CanReadPostComments(v.ctx, v.user, p, password) {
		return nil
	}
	var unlocked []int64
	if password != "" {
		unlocked = []int64{p.ID}
	}
	q := site.CommentQueryHook(v.ctx, store.CommentQuery{
		Posts:    []int64{p.ID},
		Approved: []string{store.CommentApproved},
		Types:    []string{"comment"},
		Access:   site.CommentAccess(v.user, unlocked),
		OrderBy:  "date_gmt",
		Order:    "asc",
		Limit:    maxComments,
	}, nil)
	list, _, err := site.ListComments(v.ctx, q)
	if err != nil {
		return err
	}
	open := p.CommentStatus == "open"
	page.Comments = v.commentTree(list, p, view.URL, open)
	if !open {
		page.CommentsClosed = len(list) > 0 || p.Type == "post"
		return nil
	}
	f := page.CommentForm
	if f == nil {
		f = &CommentForm{}
		page.CommentForm = f
	}
	f.Action = view.URL
	f.NonceField = nonceField
	f.Nonce = v.h.opts.Nonces.Create(v.user.ID(), v.token, commentAction(p.ID))
	f.Anonymous = v.user == nil
	if v.user != nil {
		f.As = v.user.Record().DisplayName
	}
	f.LoginRequired = v.user == nil && !site.SettingsOrLast(v.ctx).AllowAnonymousComments
	if f.Parent == 0 {
		if id, err := strconv.ParseInt(v.r.URL.Query().Get("replytocom"), 10, 64); err == nil {
			f.Parent = id
		}
	}
	if f.Parent != 0 {
		if c := findComment(page.Comments, f.Parent); c != nil {
			f.ReplyTo = c.Author
			f.CancelReply = view.URL + "#respond"
		} else {
			f.Parent = 0
		}
	}
	return nil
}

// maxComments bounds the comments one page shows.
const maxComments = 500

// commentTree arranges approved comments under their parents (a reply
// whose parent is not shown goes to the top level), oldest first.
func (v *visit) commentTree(list []*store.Comment, p *store.Post, postURL string, open bool) []*Comment {
	site := v.h.site
	byID := map[int64]*Comment{}
	views := make([]*Comment, len(list))
	for i, c := range list {
		cv := &Comment{
			ID:           c.ID,
			Author:       c.AuthorName,
			AuthorURL:    safeURL(c.AuthorURL),
			Date:         c.Date,
			DateISO:      c.DateGMT.UTC().Format(time.RFC3339),
			Content:      safeHTML(site.RenderComment(c)),
			ByPostAuthor: c.AuthorID != 0 && c.AuthorID == p.Author,
		}
		if cv.Author == "" {
			cv.Author = "Anonymous"
		}
		if open {
			cv.ReplyURL = withQuery(postURL, "replytocom", strconv.FormatInt(c.ID, 10)) + "#respond"
		}
		views[i] = cv
		byID[c.ID] = cv
	}
	var top []*Comment
	for i, c := range list {
		if parent, ok := byID[c.Parent]; ok && c.Parent != c.ID {
			parent.Replies = append(parent.Replies, views[i])
		} else {
			top = append(top, views[i])
		}
	}
	return top
}

func findComment(list []*Comment, id int64) *Comment {
	for _, c := range list {
		if c.ID == id {
			return c
		}
		if r := findComment(c.Replies, id); r != nil {
			return r
		}
	}
	return nil
}

// withQuery adds key=value to the query of the URL u.
func withQuery(u, key, value string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + url.QueryEscape(key) + "=" + url.QueryEscape(value)
}

// safeURL keeps an author's website only when it is an http or https URL.
func safeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}
