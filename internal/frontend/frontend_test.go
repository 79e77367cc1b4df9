package frontend_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestReaderAnswersEveryLinkTheAPIGives: the link of every published post,
// page (with its parent), custom post, attachment, category (with its
// parent), tag, custom term and author the API hands out opens a page of
// the reader that shows it, and unknown paths are 404 pages.
func TestReaderAnswersEveryLinkTheAPIGives(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	parentCat, _ := e.create("categories", "editor", map[string]any{"name": "Outer"})
	cat, _ := e.create("categories", "editor", map[string]any{"name": "Inner", "parent": parentCat})
	tag, _ := e.create("tags", "editor", map[string]any{"name": "Tagged"})
	genre, _ := e.create("genres", "editor", map[string]any{"name": "Sci-fi"})
	pub, pubLink := e.create("posts", "author", map[string]any{"title": "First words", "content": "Hello reader", "status": "publish", "categories": []int64{cat}, "tags": []int64{tag}})
	_, utfLink := e.create("posts", "author", map[string]any{"title": "Café crème €", "content": "Unicode slug", "status": "publish"})
	parent, _ := e.create("pages", "editor", map[string]any{"title": "Outer page", "status": "publish"})
	_, childLink := e.create("pages", "editor", map[string]any{"title": "Inner page", "content": "Child text", "status": "publish", "parent": parent})
	_, bookLink := e.create("books", "editor", map[string]any{"title": "A book", "content": "Book text", "status": "publish", "genres": []int64{genre}})
	media := e.upload("author", pub, "The picture")

	linkOf := func(path string) string {
		return e.Do("GET", e.API(path), "").WantStatus(200).Object()["link"].(string)
	}
	anon := e.browser("")
	for _, tc := range []struct {
		link, want string
	}{
		{pubLink, "Hello reader"},
		{utfLink, "Unicode slug"},
		{childLink, "Child text"},
		{linkOf("/pages/" + itoa(parent)), "Outer page"},
		{bookLink, "Book text"},
		{linkOf("/media/" + itoa(media)), `alt="The picture alt"`},
		{linkOf("/categories/" + itoa(cat)), "First words"},
		{linkOf("/categories/" + itoa(parentCat)), "Outer"},
		{linkOf("/tags/" + itoa(tag)), "First words"},
		{linkOf("/genres/" + itoa(genre)), "A book"},
		{linkOf("/users/" + itoa(e.ID("author"))), "First words"},
	} {
		if !strings.HasPrefix(tc.link, e.URL+"/") {
			t.Fatalf("link %q is not on the site", tc.link)
		}
		p := anon.get(tc.link)
		if p.status != 200 || !strings.Contains(p.body, tc.want) {
			t.Errorf("GET %s = %d, want 200 with %q:\n%s", tc.link, p.status, tc.want, p.body)
		}
	}
	// The id forms lead to the pretty permalinks of published posts.
	p := anon.get("/?p=" + itoa(pub))
	if p.status != http.StatusMovedPermanently || p.header.Get("Location") != pubLink {
		t.Errorf("/?p=%d = %d → %q, want 301 → %s", pub, p.status, p.header.Get("Location"), pubLink)
	}
	if p := anon.get("/?page_id=" + itoa(parent)); p.status != http.StatusMovedPermanently {
		t.Errorf("/?page_id = %d", p.status)
	}
	for _, path := range []string{"/no-such-page/", "/2020/01/01/first-words/", "/category/nope/", "/category/inner/", "/tag/tagged/extra/",
		"/author/nobody/", "/book/nope/", "/page/9/", "/page/x/", "/?p=999", "/?p=abc", "/?page_id=" + itoa(pub)} {
		if p := anon.get(path); p.status != 404 || !strings.Contains(p.body, "Page not found") {
			t.Errorf("GET %s = %d, want the 404 page", path, p.status)
		}
	}
}

func TestReaderHomeIsPaginatedNewestFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.Site.PostsPerPage = 2; c.Site.Title = "Paged <Site>" })
	for i := 1; i <= 5; i++ {
		e.create("posts", "author", map[string]any{"title": fmt.Sprintf("Post number %d", i), "status": "publish",
			"date": fmt.Sprintf("2024-01-0%dT10:00:00", i)})
	}
	b := e.browser("")
	order := regexp.MustCompile(`Post number (\d)`)
	for _, tc := range []struct {
		path, want string
	}{
		{"/", "54"},
		{"/page/2/", "32"},
		{"/?paged=2", "32"},
		{"/page/3/", "1"},
	} {
		p := b.get(tc.path)
		var got string
		for _, m := range order.FindAllStringSubmatch(p.body, -1) {
			got += m[1]
		}
		if p.status != 200 || got != tc.want {
			t.Errorf("%s: %d, posts %q, want %q", tc.path, p.status, got, tc.want)
		}
	}
	p := b.get("/page/2/")
	for _, want := range []string{`rel="prev"`, `rel="next"`, `aria-current="page"`, `<title>Paged &lt;Site&gt; – Page 2 – Paged &lt;Site&gt;</title>`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page 2 lacks %s:\n%s", want, p.body)
		}
	}
	if p := b.get("/page/4/"); p.status != 404 {
		t.Errorf("page past the end = %d", p.status)
	}
}

func TestReaderPagesAreAccessibleAndSafe(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	_, link := e.create("posts", "author", map[string]any{"title": "Safe", "content": `<p>ok</p><script>alert(1)</script><img src=x onerror=alert(2)>`, "status": "publish"})
	p := e.browser("").get(link)
	for _, want := range []string{`<html lang="en">`, `<a class="skip-link" href="#main">`, `<main id="main"`, `role="search"`,
		`<label for="search-field">`, `<label for="comment-text">`, `<label for="comment-email">`, `<time datetime=`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "onerror") {
		t.Errorf("content not sanitised:\n%s", p.body)
	}
	csp := p.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline' ;") || p.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers: CSP %q, XFO %q", csp, p.header.Get("X-Frame-Options"))
	}
	if strings.Contains(p.body, "<script") {
		t.Errorf("an anonymous page has a script:\n%s", p.body)
	}
	if !strings.Contains(p.header.Get("Link"), `rel="https://api.w.org/"`) && !strings.Contains(p.header.Get("Link"), "rel=") {
		t.Errorf("no API discovery link: %q", p.header.Get("Link"))
	}
	// The search box searches as the API does, and escapes what it echoes.
	s := e.browser("").get("/?s=" + url.QueryEscape(`<b>"Safe"</b>`))
	if s.status != 200 || strings.Contains(s.body, `<b>"Safe"</b>`) {
		t.Errorf("search echo not escaped (%d)", s.status)
	}
	if s := e.browser("").get("/?s=safe"); !strings.Contains(s.body, `>Safe</a>`) {
		t.Errorf("search does not find the post:\n%s", s.body)
	}
	head := pageOf(e.browser("").Do("HEAD", link))
	if head.status != 200 || head.body != "" {
		t.Errorf("HEAD = %d, %d bytes", head.status, len(head.body))
	}
	// The site's title and description come from its settings.
	e.Do("POST", e.API("/settings"), "administrator", map[string]any{"title": "Renamed site", "description": "Fresh tagline"}).WantStatus(200)
	if home := e.browser("").get("/"); !strings.Contains(home.body, ">Renamed site</a>") || !strings.Contains(home.body, "Fresh tagline") {
		t.Errorf("home page does not use the settings' title:\n%s", home.body)
	}
	if put := pageOf(e.browser("").Do("PUT", link)); put.status != http.StatusMethodNotAllowed {
		t.Errorf("PUT = %d", put.status)
	}
	for _, target := range []string{"/", "/?s=safe", "/category/uncategorized/", "/author/author/"} {
		if post := e.browser("").post(target, url.Values{"x": {"1"}}, nil); post.status != http.StatusMethodNotAllowed {
			t.Errorf("POST %s = %d", target, post.status)
		}
	}
}

// TestSignedInPagesCarryTheAPISettings: the home page of a signed-in
// browser carries the API settings script, allowed by the page's CSP
// nonce, under the WordPress name too in compatibility mode.
func TestSignedInPagesCarryTheAPISettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.Compat = config.CompatWordPress })
	p := e.browser("editor").get("/")
	m := regexp.MustCompile(`<script nonce="([^"]+)">window\.folioApiSettings = (\{[^<]*\}); window\.wpApiSettings = window\.folioApiSettings;</script>`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no settings script:\n%s", p.body)
	}
	if !strings.Contains(p.header.Get("Content-Security-Policy"), "'nonce-"+m[1]+"'") {
		t.Errorf("CSP %q does not allow the script's nonce %s", p.header.Get("Content-Security-Policy"), m[1])
	}
	if !strings.Contains(m[2], `"root":"`+e.URL+`/wp-json/"`) || !strings.Contains(p.body, ">Admin</a>") {
		t.Errorf("settings %s", m[2])
	}
	if strings.Contains(e.browser("").get("/").body, "<script") {
		t.Error("an anonymous home page has a script")
	}
}

// TestProtectedPostShowsItsTextOnlyAfterItsPassword: the page of a
// password-protected post asks for the password; a wrong one is refused,
// the right one sets a cookie that shows the text and comments to that
// browser only, and a changed password locks it again.
func TestProtectedPostShowsItsTextOnlyAfterItsPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	id, link := e.create("posts", "editor", map[string]any{"title": "Locked", "content": "zqinsidex", "password": "open-sesame", "status": "publish"})
	e.Comment("administrator", id, "zqcommentinsidex", map[string]any{"status": "approved"})
	b := e.browser("")
	p := b.get(link)
	if p.status != 200 || strings.Contains(p.body, "zqinsidex") || strings.Contains(p.body, "zqcommentinsidex") ||
		!strings.Contains(p.body, `name="post_password"`) || !strings.Contains(p.body, "Protected: Locked") || strings.Contains(p.body, "_folio_nonce") {
		t.Fatalf("locked page:\n%s", p.body)
	}
	if p := b.get("/"); strings.Contains(p.body, "zqinsidex") {
		t.Error("the home page shows the protected text")
	}
	wrong := b.post(link, url.Values{"post_password": {"guess"}}, nil)
	if wrong.status != http.StatusForbidden || strings.Contains(wrong.body, "zqinsidex") || !strings.Contains(wrong.body, "not correct") {
		t.Errorf("wrong password: %d", wrong.status)
	}
	right := b.post(link, url.Values{"post_password": {"open-sesame"}}, nil)
	if right.status != http.StatusSeeOther {
		t.Fatalf("right password: %d", right.status)
	}
	p = b.get(link)
	if !strings.Contains(p.body, "zqinsidex") || !strings.Contains(p.body, "zqcommentinsidex") || !strings.Contains(p.body, "_folio_nonce") {
		t.Errorf("unlocked page lacks the text, the comments or the form:\n%s", p.body)
	}
	// Another browser is still locked out.
	if p := e.browser("").get(link); strings.Contains(p.body, "zqinsidex") {
		t.Error("another browser sees the text")
	}
	// Changing the password locks the first browser again.
	e.Do("POST", e.API("/posts/%d", id), "editor", map[string]any{"password": "new-secret"}).WantStatus(200)
	if p := b.get(link); strings.Contains(p.body, "zqinsidex") {
		t.Error("the old password's cookie still shows the text")
	}
	// A comment on a locked post is refused.
	fresh := e.browser("")
	form := url.Values{"_folio_nonce": {"x"}, "author": {"A"}, "email": {"a@example.com"}, "comment": {"let me in"}}
	if p := fresh.post(link, form, nil); p.status == http.StatusSeeOther {
		t.Error("a comment on a locked post was taken")
	}
}

// commentStatus returns the API's status of the comment whose content
// holds text ("" when there is none).
func (e *env) commentStatus(text string) string {
	e.T.Helper()
	var list []map[string]any
	e.Do("GET", e.API("/comments?context=edit&status=any&per_page=100&search="+url.QueryEscape(text)), "administrator").WantStatus(200).Decode(&list)
	for _, c := range list {
		if raw, _ := c["content"].(map[string]any)["raw"].(string); strings.Contains(raw, text) {
			return c["status"].(string)
		}
	}
	return ""
}

// TestCommentFormFollowsTheAPIsCommentRules: a comment posted with the
// reader's form goes through the API's creation rules: held for
// moderation by default (shown once approved, with its reply), approved
// for a signed-in post author, refused when too fast (flood), duplicated,
// on closed comments, without the form's nonce or from another site, and
// without a name and a valid email from a guest.
func TestCommentFormFollowsTheAPIsCommentRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	id, link := e.create("posts", "author", map[string]any{"title": "Talk", "status": "publish"})
	guest := e.browser("")

	p := guest.comment(link, url.Values{"author": {"Guest"}, "email": {"guest@example.com"}, "comment": {"zqguestfirstx"}})
	if p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Location"), "moderation=1") {
		t.Fatalf("guest comment: %d → %q\n%s", p.status, p.header.Get("Location"), p.body)
	}
	if got := e.commentStatus("zqguestfirstx"); got != "hold" {
		t.Errorf("guest comment status %q, want hold (comment_previously_approved)", got)
	}
	after := guest.get(p.header.Get("Location"))
	if !strings.Contains(after.body, "awaiting moderation") || strings.Contains(after.body, "zqguestfirstx") {
		t.Errorf("page after a held comment:\n%s", after.body)
	}

	// Too fast: the flood rule of the API.
	p = guest.comment(link, url.Values{"author": {"Guest"}, "email": {"guest@example.com"}, "comment": {"zqguestsecondx"}})
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "too quickly") || !strings.Contains(p.body, "zqguestsecondx") {
		t.Errorf("flood: %d\n%s", p.status, p.body)
	}

	// The post's author, signed in, is approved at once; a reply shows
	// under its parent. (The flood rule counts per address too, and every
	// test request comes from 127.0.0.1: the clock moves on.)
	e.Later(time.Minute)
	e.Do("POST", e.API("/users/%d", e.ID("author")), "administrator", map[string]any{"name": "The author"}).WantStatus(200)
	authorEmail := e.email("author")
	author := e.browser("author")
	p = author.comment(link, url.Values{"comment": {"zqauthorsaysx"}})
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.Contains(loc, "#comment-") {
		t.Fatalf("author comment: %d → %q", p.status, loc)
	}
	parentID := loc[strings.Index(loc, "#comment-")+len("#comment-"):]
	page := e.browser("").get(link)
	if !strings.Contains(page.body, "zqauthorsaysx") || !strings.Contains(page.body, "The author") || strings.Contains(page.body, authorEmail) {
		t.Errorf("approved comment not shown, or its email shown:\n%s", page.body)
	}
	replyURL := link + "?replytocom=" + parentID
	form := e.browser("editor").get(replyURL)
	if !strings.Contains(form.body, `name="comment_parent" value="`+parentID+`"`) || !strings.Contains(form.body, "Reply to The author") {
		t.Errorf("reply form:\n%s", form.body)
	}
	ed := e.browser("editor")
	r := ed.get(replyURL)
	e.Later(time.Minute)
	p = ed.post(link, url.Values{"_folio_nonce": {r.nonce(t)}, "comment_parent": {parentID}, "comment": {"zqreplyx"}}, nil)
	if p.status != http.StatusSeeOther {
		t.Fatalf("reply: %d\n%s", p.status, p.body)
	}
	page = e.browser("").get(link)
	if !regexp.MustCompile(`(?s)id="comment-` + parentID + `".*<ol>.*zqreplyx.*</ol>`).MatchString(page.body) {
		t.Errorf("reply not nested under its parent:\n%s", page.body)
	}

	// Duplicates are refused as the API does.
	e.Later(time.Minute)
	p = author.comment(link, url.Values{"comment": {"zqauthorsaysx"}})
	if p.status != http.StatusConflict || !strings.Contains(p.body, "Duplicate comment") {
		t.Errorf("duplicate: %d", p.status)
	}

	// Guests need a name and a valid email; the text is required.
	other := e.browser("")
	for _, tc := range []struct {
		fields url.Values
		want   string
	}{
		{url.Values{"author": {""}, "email": {"x@example.com"}, "comment": {"hi"}}, "enter your name"},
		{url.Values{"author": {"X"}, "email": {"not-an-email"}, "comment": {"hi"}}, "valid email"},
		{url.Values{"author": {"X"}, "email": {"x@example.com"}, "comment": {"  "}}, "type a comment"},
	} {
		if p := other.comment(link, tc.fields); p.status != http.StatusBadRequest || !strings.Contains(p.body, tc.want) {
			t.Errorf("%v: %d, want 400 with %q", tc.fields, p.status, tc.want)
		}
	}

	// No nonce, or a form sent from another site: refused, nothing stored.
	p = other.post(link, url.Values{"author": {"X"}, "email": {"x@example.com"}, "comment": {"zqnononcex"}}, nil)
	if p.status != http.StatusForbidden || e.commentStatus("zqnononcex") != "" {
		t.Errorf("no nonce: %d", p.status)
	}
	good := other.get(link).nonce(t)
	p = other.post(link, url.Values{"_folio_nonce": {good}, "author": {"X"}, "email": {"x@example.com"}, "comment": {"zqcrosssitex"}},
		map[string]string{"Origin": "https://evil.example"})
	if p.status != http.StatusForbidden || e.commentStatus("zqcrosssitex") != "" {
		t.Errorf("cross-site form: %d", p.status)
	}
	// A nonce of one post does not work on another.
	_, link2 := e.create("posts", "author", map[string]any{"title": "Other", "status": "publish"})
	p = other.post(link2, url.Values{"_folio_nonce": {good}, "author": {"X"}, "email": {"x@example.com"}, "comment": {"zqwrongpostx"}}, nil)
	if p.status != http.StatusForbidden || e.commentStatus("zqwrongpostx") != "" {
		t.Errorf("nonce of another post: %d", p.status)
	}

	// Closed comments: no form, and a post is refused.
	nonce := other.get(link).nonce(t)
	e.Do("POST", e.API("/posts/%d", id), "author", map[string]any{"comment_status": "closed"}).WantStatus(200)
	page = other.get(link)
	if strings.Contains(page.body, "_folio_nonce") || !strings.Contains(page.body, "Comments are closed") || strings.Contains(page.body, "replytocom") {
		t.Errorf("closed post still has a form or reply links:\n%s", page.body)
	}
	p = other.post(link, url.Values{"_folio_nonce": {nonce}, "author": {"X"}, "email": {"x@example.com"}, "comment": {"zqclosedx"}}, nil)
	if p.status != http.StatusForbidden || !strings.Contains(p.body, "closed") || e.commentStatus("zqclosedx") != "" {
		t.Errorf("comment on a closed post: %d", p.status)
	}
}

func TestCommentFormFollowsTheSiteOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) {
		c.Site.AllowAnonymousComments = false
	})
	_, link := e.create("posts", "author", map[string]any{"title": "Members only", "status": "publish"})
	page := e.browser("").get(link)
	if strings.Contains(page.body, "_folio_nonce") || !strings.Contains(page.body, "to comment") || !strings.Contains(page.body, "/login?redirect_to=") {
		t.Errorf("anonymous visitor sees a form:\n%s", page.body)
	}
	p := e.browser("").post(link, url.Values{"author": {"X"}, "email": {"x@example.com"}, "comment": {"zqanonx"}}, nil)
	if p.status == http.StatusSeeOther || e.commentStatus("zqanonx") != "" {
		t.Errorf("anonymous comment taken: %d", p.status)
	}
	sub := e.browser("subscriber")
	e.Later(time.Minute)
	p = sub.comment(link, url.Values{"comment": {"zqsubscriberx"}})
	if p.status != http.StatusSeeOther || e.commentStatus("zqsubscriberx") == "" {
		t.Errorf("subscriber comment: %d\n%s", p.status, p.body)
	}

	// With moderation off for known commenters, an approved guest shows at once.
	e2 := newEnv(t, func(c *config.Config) { c.Site.CommentPreviouslyApproved = false })
	_, link2 := e2.create("posts", "author", map[string]any{"title": "Open", "status": "publish"})
	p = e2.browser("").comment(link2, url.Values{"author": {"Guest"}, "email": {"g@example.com"}, "url": {"https://guest.example"}, "comment": {"zqshownx"}})
	if p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Location"), "#comment-") {
		t.Fatalf("approved guest comment: %d → %q", p.status, p.header.Get("Location"))
	}
	page = e2.browser("").get(link2)
	if !strings.Contains(page.body, "zqshownx") || !strings.Contains(page.body, `<a href="https://guest.example" rel="external nofollow ugc">Guest</a>`) || strings.Contains(page.body, "g@example.com") {
		t.Errorf("approved guest comment:\n%s", page.body)
	}
}

// TestThemeDirectoryReplacesTemplates: a template file in theme_dir
// replaces the built-in file of the same name, and a theme that calls a
// missing template is refused at start.
func TestThemeDirectoryReplacesTemplates(t *testing.T) {
	t.Parallel()
	theme := t.TempDir()
	if err := os.WriteFile(filepath.Join(theme, "index.html"), []byte(`{{template "header" .}}<p id="themed">{{len .Posts}} posts, theme at work</p>{{range .Posts}}<h2>{{.Title}}</h2>{{end}}{{template "footer" .}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *config.Config) { c.Site.ThemeDir = theme })
	e.create("posts", "author", map[string]any{"title": "Themed <em>post</em>", "status": "publish"})
	p := e.browser("").get("/")
	if !strings.Contains(p.body, `<p id="themed">1 posts, theme at work</p>`) || !strings.Contains(p.body, "<h2>Themed <em>post</em></h2>") {
		t.Errorf("theme not used:\n%s", p.body)
	}

	if err := os.WriteFile(filepath.Join(theme, "single.html"), []byte(`{{template "no-such-part" .}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	storetest.Configure(t, cfg)
	cfg.Site.ThemeDir = theme
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	if s, err := server.New(t.Context(), cfg, nil); err == nil {
		s.Close()
		t.Fatal("a theme calling a missing template was accepted")
	} else if !strings.Contains(err.Error(), "single.html") || !strings.Contains(err.Error(), "no-such-part") {
		t.Errorf("error %q does not name the file and the template", err)
	}
}

// TestFrontEndNoneAndExternal: with front_end "none" the site serves no
// public pages and / is the landing page; with an external front end the
// API's links point there.
func TestFrontEndNoneAndExternal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.Site.FrontEnd = "none" })
	_, link := e.create("posts", "author", map[string]any{"title": "Headless", "status": "publish"})
	if !strings.HasPrefix(link, e.URL+"/") {
		t.Errorf("link %q", link)
	}
	b := e.browser("")
	if p := b.get(link); p.status != 404 {
		t.Errorf("permalink without a front end = %d", p.status)
	}
	p := b.get("/")
	if p.status != 200 || !strings.Contains(p.body, `href="/admin/"`) || !strings.Contains(p.body, e.URL+"/api/") || strings.Contains(p.body, "Headless") {
		t.Errorf("landing page:\n%s", p.body)
	}

	ext := newEnv(t, func(c *config.Config) { c.Site.FrontEnd = "https://www.example.com/" })
	id, link := ext.create("posts", "author", map[string]any{"title": "Elsewhere", "status": "publish"})
	if !strings.HasPrefix(link, "https://www.example.com/20") {
		t.Errorf("link %q does not point to the external front end", link)
	}
	user := ext.Do("GET", ext.API("/users/%d", ext.ID("author")), "").WantStatus(200).Object()
	if l, _ := user["link"].(string); l != "https://www.example.com/author/author/" {
		t.Errorf("author link %q", l)
	}
	var cats []map[string]any
	ext.Do("GET", ext.API("/categories"), "").WantStatus(200).Decode(&cats)
	if l, _ := cats[0]["link"].(string); !strings.HasPrefix(l, "https://www.example.com/category/") {
		t.Errorf("category link %q", l)
	}
	p = ext.browser("").get("/")
	if !strings.Contains(p.body, `href="https://www.example.com/"`) || strings.Contains(p.body, "Elsewhere") {
		t.Errorf("landing page with an external front end:\n%s", p.body)
	}
	if p := ext.browser("").get("/?p=" + itoa(id)); strings.Contains(p.body, "Elsewhere") {
		t.Errorf("the site shows a post although the front end is elsewhere:\n%s", p.body)
	}
}
