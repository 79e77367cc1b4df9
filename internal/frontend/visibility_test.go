package frontend_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// visitors are the reader's callers in the matrix: "" is anonymous.
var visitors = []string{"", "subscriber", "author", "editor", "administrator"}

// secret is a token in one fixture and who may see it through the reader.
type secret struct {
	token string
	who   []string
}

var everyone = visitors

// articleRE matches the posts of a list page.
var articleRE = regexp.MustCompile(`(?s)<article.*?</article>`)

// upload creates an attachment of parent with title.
func (e *env) upload(login string, parent int64, title string) int64 {
	e.T.Helper()
	id := e.Media(login, "pic.png")
	e.Do("POST", e.API("/media/%d", id), login, map[string]any{"title": title, "post": parent, "alt_text": title + " alt"}).WantStatus(200)
	return id
}

// TestReaderShowsEachVisitorWhatTheAPIWouldAndNothingElse is the reader's
// access matrix: fixtures in every state the reader must not show (drafts,
// pending, scheduled and trashed posts, private posts and pages, the text,
// excerpt and comments of a protected post, held and spam comments,
// comments on drafts, media of drafts, email addresses, a user without
// published posts), each with a unique token. Every page the reader
// serves for them (home, search for every token, every id and permalink
// the API gave, term and author archives) is fetched by every visitor; no
// page may hold a token its visitor may not see, and each token someone
// may see must show up for them somewhere, so the reader is not simply
// empty.
func TestReaderShowsEachVisitorWhatTheAPIWouldAndNothingElse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	var secrets []secret
	hide := func(token string, who ...string) string {
		secrets = append(secrets, secret{token: token, who: who})
		return token
	}
	var ids []int64
	var links []string
	add := func(base, login string, body map[string]any) int64 {
		id, link := e.create(base, login, body)
		ids = append(ids, id)
		links = append(links, link)
		return id
	}

	catParent, catLink := e.create("categories", "editor", map[string]any{"name": "Parent cat"})
	cat, catChildLink := e.create("categories", "editor", map[string]any{"name": "Child cat", "parent": catParent})
	tag, tagLink := e.create("tags", "editor", map[string]any{"name": "Shiny"})
	genre, genreLink := e.create("genres", "editor", map[string]any{"name": "Fantasy"})
	links = append(links, catLink, catChildLink, tagLink, genreLink)

	pub := add("posts", "author", map[string]any{"title": "Published " + hide("zqpublishedx", everyone...), "content": "Body " + hide("zqpubtextx", everyone...),
		"status": "publish", "categories": []int64{cat}, "tags": []int64{tag}})
	draft := add("posts", "author", map[string]any{"title": hide("zqdraftx"), "content": "draft body", "status": "draft"})
	add("posts", "author", map[string]any{"title": hide("zqpendingx"), "status": "pending"})
	add("posts", "editor", map[string]any{"title": hide("zqfuturex"), "status": "future", "date": "2099-01-01T00:00:00"})
	add("posts", "editor", map[string]any{"title": hide("zqprivatex", "editor", "administrator"), "status": "private", "categories": []int64{cat}})
	add("posts", "author", map[string]any{"title": hide("zqauthorprivx", "author", "editor", "administrator"), "status": "private"})
	protected := add("posts", "editor", map[string]any{"title": hide("zqprotitlex", everyone...), "content": hide("zqprotextx"),
		"excerpt": hide("zqprotexcerptx"), "password": "open-sesame", "status": "publish", "tags": []int64{tag}})
	trashed := add("posts", "editor", map[string]any{"title": hide("zqtrashx"), "status": "publish", "tags": []int64{tag}})
	e.Do("DELETE", e.API("/posts/%d", trashed), "editor").WantStatus(200)
	parentPage := add("pages", "editor", map[string]any{"title": hide("zqpagex", everyone...), "status": "publish"})
	add("pages", "editor", map[string]any{"title": hide("zqchildpagex", everyone...), "status": "publish", "parent": parentPage})
	add("pages", "editor", map[string]any{"title": hide("zqprivpagex", "editor", "administrator"), "status": "private"})
	add("pages", "editor", map[string]any{"title": hide("zqdraftpagex"), "status": "draft"})
	add("books", "editor", map[string]any{"title": hide("zqbookx", everyone...), "status": "publish", "genres": []int64{genre}})
	add("books", "editor", map[string]any{"title": hide("zqdraftbookx"), "status": "draft", "genres": []int64{genre}})

	comment := func(post int64, text, status string, parent int64) {
		e.Comment("administrator", post, text, map[string]any{"author_name": "Visitor", "author_email": "visitor-zqcmailx@example.com", "status": status, "parent": parent})
	}
	hide("zqcmailx")
	for login := range e.Users {
		hide(e.email(login)) // no user's email address is shown
	}
	comment(pub, "Nice "+hide("zqapprovedx", everyone...), "approved", 0)
	comment(pub, hide("zqheldx"), "hold", 0)
	comment(pub, hide("zqspamx"), "spam", 0)
	comment(protected, hide("zqprotcommentx"), "approved", 0)
	comment(draft, hide("zqdraftcommentx"), "approved", 0)
	ids = append(ids, e.upload("author", pub, hide("zqpubmediax", everyone...)), e.upload("author", draft, hide("zqdraftmediax")))
	lurker := &store.User{Login: "lurker", Email: "lurker@example.com", Nicename: "lurker", DisplayName: hide("zqlurkerx", "author", "editor", "administrator"), // as GET /users/<id>: authors are listed to those who write
		Registered: time.Now().UTC(), Roles: []string{"author"}}
	if err := e.Store().InsertUser(ctx, lurker); err != nil {
		t.Fatal(err)
	}

	targets := []string{"/", "/page/2/", "/?s=zq", "/?s=", "/author/lurker/", "/author/author/", "/author/editor/", "/author/administrator/"}
	for _, s := range secrets {
		targets = append(targets, "/?s="+s.token)
	}
	for _, id := range ids {
		targets = append(targets, "/?p="+itoa(id), "/?page_id="+itoa(id), "/?attachment_id="+itoa(id), "/?post_type=book&p="+itoa(id))
	}
	targets = append(targets, links...)
	sort.Strings(targets)
	targets = slices.Compact(targets)

	seen := map[string]bool{} // visitor + token
	for _, login := range visitors {
		b := e.browser(login)
		for _, target := range targets {
			p := b.get(target)
			if p.status == http.StatusMovedPermanently || p.status == http.StatusFound {
				p = b.get(p.header.Get("Location"))
			}
			if p.status >= 500 {
				t.Fatalf("%q GET %s = %d:\n%s", login, target, p.status, p.body)
			}
			body := p.body
			if u, err := url.Parse(target); err == nil {
				// The sign-in link comes back to the page's own address.
				body = strings.ReplaceAll(body, url.QueryEscape(u.RequestURI()), "")
			}
			if strings.HasPrefix(target, "/?s=") {
				// A search page repeats the searched text: look only at
				// what it found.
				body = strings.Join(articleRE.FindAllString(body, -1), "\n")
			}
			for _, s := range secrets {
				if !strings.Contains(body, s.token) {
					continue
				}
				seen[login+" "+s.token] = true
				if !slices.Contains(s.who, login) {
					t.Errorf("visitor %q sees %s on %s (%d)", login, s.token, target, p.status)
				}
			}
		}
	}
	for _, s := range secrets {
		for _, login := range s.who {
			if !seen[login+" "+s.token] {
				t.Errorf("visitor %q never saw %s, which they may see", login, s.token)
			}
		}
	}
}
