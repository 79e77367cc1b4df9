// Package accesstest holds the access-control matrix: a black-box test of
// every route of a running Folio server, kept in its own package so that it
// runs beside the other packages' tests.
package accesstest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// The access-control matrix: a site holding one fixture of every state a
// role may not see (drafts, pending, private, future and trashed posts,
// password-protected text, media of private posts, held and spam
// comments, revisions, other users' emails and logins, sessions,
// application passwords, webhooks), each marked with a unique token, and
// an oracle of who may see each token. Every route of the index (so a new
// route is covered without editing this file), with every method, is
// called as every role, in every context, with and without _embed, and
// the collections also with searches, slugs and emails of every token.
// No answer may hold a token its caller may not see; X-API-Total equals
// what is listed and is 0 when filtering on a hidden token; an anonymous
// tag does not move when a hidden write happens, and signed-in callers
// never get 304 answers from it. It runs on the store FOLIO_TEST_DATABASE_URL
// names (SQLite without it) and in both naming modes.

// matrixLogins are the callers: "" is anonymous; author2 is a second
// author ("other author").
var matrixLogins = []string{"", "subscriber", "contributor", "author", "author2", "editor", "administrator"}

var matrixRoles = map[string]string{
	"subscriber": "subscriber", "contributor": "contributor", "author": "author",
	"author2": "author", "editor": "editor", "administrator": "administrator",
}

// secret is a token and the logins that may see it.
type secret struct {
	token string
	who   []string
	kind  string // "text", "slug", "email", "useremail": which filters can name it
}

type matrixSite struct {
	*testkit.Site
	t       *testing.T
	names   rest.Names
	ids     map[string]int64    // fixture name → id
	kinds   map[string][]string // route base → ids of that kind
	uuids   map[string]string   // login → application password uuid
	sess    map[string]string   // login → session id
	secrets []secret
	count   *atomic.Int64
}

// may reports whether login may see tok.
func (m *matrixSite) may(login string, s secret) bool {
	return slices.Contains(s.who, login)
}

func TestAccessControlMatrix(t *testing.T) {
	for _, mode := range []struct{ name, compat string }{{"default", ""}, {"wordpress", config.CompatWordPress}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			m := newMatrixSite(t, mode.compat)
			m.run()
		})
	}
}

func newMatrixSite(t *testing.T, compat string) *matrixSite {
	t.Helper()
	// The kit's users are not used: the matrix's users carry tokens in
	// their logins, emails and names (seed). The kit turns the rate limits
	// off, as thousands of requests a second come from one address.
	s := testkit.New(t, testkit.NoUsers(), testkit.Config(func(cfg *config.Config) {
		cfg.Compat = compat
		off := false
		cfg.Cache.Responses = &off // every answer computed, every tag from the route
		cfg.PostTypes = []config.PostType{{Name: "book", RestBase: "books", Supports: []string{"title", "editor", "author", "excerpt", "comments", "revisions"}}}
	}))
	m := &matrixSite{Site: s, t: t, names: s.Server.Names(), ids: map[string]int64{}, kinds: map[string][]string{},
		uuids: map[string]string{}, sess: map[string]string{}}
	m.seed()
	return m
}

// tok returns a fixture token: lower case letters and digits only, so that
// slugs, case folding and JSON escaping leave it whole.
func tok(name string) string { return "zq" + strings.ToLower(name) + "x" }

func (m *matrixSite) hide(name, kind string, who ...string) string {
	token := tok(name)
	m.secrets = append(m.secrets, secret{token: token, who: who, kind: kind})
	return token
}

// seed creates the users and every fixture, through the API where a caller
// could, and through the store for what only a request's origin sets
// (comment addresses, sessions' agents).
func (m *matrixSite) seed() {
	t := m.t
	ctx := context.Background()
	st := m.Store()
	uids := map[string]int64{}
	for _, login := range matrixLogins[1:] {
		u := m.AddUserWith(m.hide("login"+login, "text", login, "administrator"), matrixRoles[login], func(u *store.User) {
			u.Email = m.hide("mail"+login, "useremail", login, "administrator") + "@example.org"
			u.FirstName = m.hide("first"+login, "text", login, "administrator")
			u.Nicename, u.DisplayName = login, "User "+login
		})
		uids[login] = u.ID
		// An application password whose name is a token, made by its user.
		ap := m.write(login, "POST", "users/me/application-passwords", map[string]any{"name": m.hide("app"+login, "text", login, "administrator")}, 201)
		uuid, _ := ap["uuid"].(string)
		if uuid == "" {
			t.Fatalf("no uuid in %v", ap)
		}
		m.uuids[login] = uuid
		sess := &store.Session{TokenHash: auth.HashSessionToken("token-" + login), UserID: u.ID,
			Created: time.Now().UTC().Truncate(time.Second), Expires: time.Now().Add(time.Hour).UTC().Truncate(time.Second),
			LastSeen: time.Now().UTC().Truncate(time.Second), IP: "10.20.30.40", UserAgent: m.hide("agent"+login, "text", login, "administrator")}
		if err := st.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		m.sess[login] = sess.ID
	}
	for _, login := range matrixLogins[1:] {
		m.ids["user:"+login] = uids[login]
		m.kind("users", uids[login])
	}
	readersA := []string{"author", "editor", "administrator"}

	// Posts of every state, and a public control post.
	pub := m.create("author", "posts", map[string]any{"title": "Public canpub", "content": m.hide("revold", "text", readersA...), "status": "publish"})
	m.ids["pub"] = pub
	m.write("author", "PUT", "posts/"+strconv.FormatInt(pub, 10), map[string]any{"content": "Public body, second version"}, 200)
	m.ids["draft"] = m.create("author", "posts", map[string]any{"title": m.hide("draft", "text", readersA...), "slug": m.hide("draftslug", "slug", readersA...), "status": "draft"})
	m.ids["pending"] = m.create("author", "posts", map[string]any{"title": "p", "content": m.hide("pending", "text", readersA...), "status": "pending"})
	m.ids["private"] = m.create("author", "posts", map[string]any{"title": m.hide("private", "text", readersA...), "excerpt": "e", "status": "private"})
	m.ids["future"] = m.create("author", "posts", map[string]any{"title": m.hide("future", "text", readersA...), "status": "publish", "date": time.Now().Add(240 * time.Hour).Format("2006-01-02T15:04:05")})
	trash := m.create("author", "posts", map[string]any{"title": m.hide("trash", "text", readersA...), "status": "publish"})
	m.write("author", "DELETE", "posts/"+strconv.FormatInt(trash, 10), nil, 200)
	m.ids["trash"] = trash
	m.ids["protected"] = m.create("author", "posts", map[string]any{"title": "Protected canprot", "status": "publish",
		"content": m.hide("protbody", "text", readersA...), "excerpt": m.hide("protexcerpt", "text", readersA...),
		"password": m.hide("protpw", "text", readersA...)})
	m.ids["draftC"] = m.create("contributor", "posts", map[string]any{"title": m.hide("draftc", "text", "contributor", "editor", "administrator"), "status": "draft"})
	m.ids["privateB"] = m.create("author2", "posts", map[string]any{"content": m.hide("privateb", "text", "author2", "editor", "administrator"), "title": "b", "status": "private"})
	m.ids["pagePrivate"] = m.create("editor", "pages", map[string]any{"title": m.hide("pageprivate", "text", "editor", "administrator"), "status": "private"})
	m.ids["book"] = m.create("author", "books", map[string]any{"title": m.hide("bookdraft", "text", readersA...), "status": "draft"})
	for _, name := range []string{"pub", "draft", "pending", "private", "future", "trash", "protected", "draftC", "privateB"} {
		m.kind("posts", m.ids[name])
	}
	m.kind("pages", m.ids["pagePrivate"])
	m.kind("books", m.ids["book"])
	var revs []map[string]any
	if err := json.Unmarshal(m.request("administrator", "GET", m.api("posts/"+strconv.FormatInt(pub, 10)+"/revisions"), nil).Body, &revs); err != nil || len(revs) == 0 {
		t.Fatalf("no revisions of the public post: %v", err)
	}
	for _, r := range revs {
		m.kind("revisions", int64(r["id"].(float64)))
	}
	m.kind("categories", 1)
	m.kind("tags", m.create("editor", "tags", map[string]any{"name": "Cantag"}))
	m.kinds["types"] = []string{"post", "page", "attachment", "book", "revision"}
	m.kinds["statuses"] = []string{"publish", "draft", "pending", "private", "future", "trash"}
	m.kinds["taxonomies"] = []string{"category", "post_tag"}

	// Media of a private post, and a public control file.
	m.ids["mediaPrivate"] = m.upload("author", m.hide("mediapriv", "text", readersA...), m.ids["private"])
	m.ids["media"] = m.upload("author", "canmedia", 0)
	m.kind("media", m.ids["mediaPrivate"])
	m.kind("media", m.ids["media"])

	// Comments: approved with a hidden address, held, spam, on a private
	// post, on a protected post, and one held comment of the subscriber.
	mods := []string{"editor", "administrator"}
	m.comment("ok", &store.Comment{PostID: pub, AuthorName: "Canvisitor", Content: "Visible comment",
		AuthorEmail: m.hide("cmail", "email", mods...) + "@example.org", AuthorIP: "10.66.77.88",
		AuthorUserAgent: m.hide("cagent", "text", mods...), Approved: store.CommentApproved})
	m.hide("10.66.77.88", "text", mods...)
	m.comment("held", &store.Comment{PostID: pub, AuthorName: "v", Content: m.hide("held", "text", readersA...), Approved: store.CommentHeld})
	m.comment("spam", &store.Comment{PostID: pub, AuthorName: "v", Content: m.hide("spam", "text", readersA...), Approved: store.CommentSpam})
	m.comment("onPrivate", &store.Comment{PostID: m.ids["private"], AuthorName: "v", Content: m.hide("cmprivate", "text", readersA...), Approved: store.CommentApproved})
	m.comment("onProtected", &store.Comment{PostID: m.ids["protected"], AuthorName: "v", Content: m.hide("cmprotected", "text", readersA...), Approved: store.CommentApproved})
	m.comment("heldSub", &store.Comment{PostID: pub, AuthorID: uids["subscriber"], AuthorName: "User subscriber",
		Content: m.hide("heldsub", "text", "subscriber", "author", "editor", "administrator"), Approved: store.CommentHeld})

	// A webhook: only administrators (manage_options) see it; its secret
	// nobody does.
	wh := &store.Webhook{URL: "https://hooks.example.org/" + m.hide("hookurl", "text", "administrator"), Events: []string{"*"},
		Secret: m.hide("hooksecret", "text"), Active: true, Created: time.Now().UTC(), Modified: time.Now().UTC()}
	if err := st.InsertWebhook(ctx, wh); err != nil {
		t.Fatal(err)
	}
	m.ids["webhook"] = wh.ID
	m.kind("webhooks", wh.ID)
}

func (m *matrixSite) api(route string) string {
	return m.names.Prefix + "/" + m.names.Namespace + "/" + route
}

// request sends one request as login (a matrix login, "" anonymous) with
// an optional JSON body and header pairs, and counts it.
func (m *matrixSite) request(login, method, target string, body []byte, hdr ...string) *testkit.Response {
	m.t.Helper()
	if login != "" {
		login = m.loginName(login)
	}
	args := []any{body}
	if body == nil {
		args[0] = nil
	}
	for _, h := range hdr {
		args = append(args, h)
	}
	r := m.Do(method, target, login, args...)
	if m.count != nil {
		m.count.Add(1)
	}
	return r
}

func (m *matrixSite) loginName(login string) string { return tok("login" + login) }

func (m *matrixSite) write(login, method, route string, body any, want int) map[string]any {
	m.t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			m.t.Fatal(err)
		}
	}
	w := m.request(login, method, m.api(route), b)
	if w.Status != want {
		m.t.Fatalf("%s %s as %s: %d, want %d: %s", method, route, login, w.Status, want, w.Body)
	}
	var out map[string]any
	_ = json.Unmarshal(w.Body, &out)
	return out
}

func (m *matrixSite) create(login, route string, body map[string]any) int64 {
	m.t.Helper()
	out := m.write(login, "POST", route, body, 201)
	id, _ := out["id"].(float64)
	return int64(id)
}

func (m *matrixSite) upload(login, title string, parent int64) int64 {
	m.t.Helper()
	id := m.Upload(m.loginName(login), title+".png", "image/png", testkit.PNG(8, 8)).WantStatus(201).Object()["id"].(float64)
	body := map[string]any{"title": title}
	if parent != 0 {
		body["post"] = parent
	}
	m.write(login, "PUT", "media/"+strconv.FormatInt(int64(id), 10), body, 200)
	return int64(id)
}

func (m *matrixSite) comment(name string, c *store.Comment) {
	m.t.Helper()
	c.Type = "comment"
	c.Date = time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	c.DateGMT = c.Date
	if err := m.Store().InsertComment(context.Background(), c); err != nil {
		m.t.Fatal(err)
	}
	m.ids["comment:"+name] = c.ID
	m.kind("comments", c.ID)
}

// route is one route of the index with its methods.
type matrixRoute struct {
	pattern string // as the index names it, under the namespace root
	methods []string
	args    map[string]bool // arguments of its GET endpoint
}

// routes reads the index of the API root: every registered route.
func (m *matrixSite) routes() []matrixRoute {
	w := m.request("", "GET", m.names.Prefix+"/", nil).WantStatus(200)
	var idx struct {
		Routes map[string]struct {
			Endpoints []struct {
				Methods []string
				Args    map[string]any
			}
		}
	}
	w.Decode(&idx)
	var out []matrixRoute
	for pattern, r := range idx.Routes {
		mr := matrixRoute{pattern: pattern, args: map[string]bool{}}
		for _, e := range r.Endpoints {
			mr.methods = append(mr.methods, e.Methods...)
			if slices.Contains(e.Methods, "GET") {
				for a := range e.Args {
					mr.args[a] = true
				}
			}
		}
		out = append(out, mr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pattern < out[j].pattern })
	if len(out) < 20 {
		m.t.Fatalf("the index lists only %d routes", len(out))
	}
	return out
}

var paramRE = regexp.MustCompile(`\(\?P<([a-z_]+)>(?:[^()]|\([^()]*\))*\)`)

// kind records id as one of the things served under a route base.
func (m *matrixSite) kind(base string, id int64) {
	m.kinds[base] = append(m.kinds[base], strconv.FormatInt(id, 10))
}

// paths instantiates a route pattern: each parameter takes the ids of the
// fixtures served under the route base before it (the posts of /posts,
// the comments of /comments, ...) plus one id of another kind; a base this
// test does not know, or a parameter it cannot place, takes every fixture
// id and name, so that a new route is covered without editing the test.
// Under a user, the user's own password or session and another's.
func (m *matrixSite) paths(pattern string) []string {
	params := paramRE.FindAllStringSubmatchIndex(pattern, -1)
	if len(params) == 0 {
		return []string{pattern}
	}
	var every []string
	for _, ids := range m.kinds {
		every = append(every, ids...)
	}
	for _, u := range m.uuids {
		every = append(every, u)
	}
	for _, sid := range m.sess {
		every = append(every, sid)
	}
	every = append(every, "me", "post", "page", "attachment", "book", "publish", "draft", "private", "future", "trash", "category", "post_tag")
	slices.Sort(every)
	every = slices.Compact(every)
	out := []string{""}
	last := 0
	for _, p := range params {
		lit := pattern[last:p[0]]
		name := pattern[p[2]:p[3]]
		segs := strings.Split(strings.Trim(lit, "/"), "/")
		base := segs[len(segs)-1]
		cands, known := m.kinds[base]
		if known {
			// One id of another kind: a post id under /comments, say.
			cands = append(slices.Clone(cands), m.kinds["users"][0])
		}
		var next []string
		for _, prefix := range out {
			switch {
			case name == "uuid" || name == "session_id":
				own := m.ownerOf(prefix)
				for _, login := range []string{own, "administrator"} {
					if name == "uuid" {
						next = append(next, prefix+lit+m.uuids[login])
					} else {
						next = append(next, prefix+lit+m.sess[login])
					}
				}
				continue
			case name == "user_id":
				cands, known = append(slices.Clone(m.kinds["users"]), "me"), true
			case !known:
				cands = every
			}
			re := regexp.MustCompile(`^` + pattern[p[0]+len("(?P<"+name+">"):p[1]-1] + `$`)
			for _, c := range cands {
				if re.MatchString(c) {
					next = append(next, prefix+lit+c)
				}
			}
		}
		out = slices.Compact(next)
		last = p[1]
	}
	for i := range out {
		out[i] += pattern[last:]
	}
	return out
}

// ownerOf returns the login whose user id (or "me": the administrator's
// own) ends the path prefix, "administrator" when none does.
func (m *matrixSite) ownerOf(prefix string) string {
	segs := strings.Split(strings.Trim(prefix, "/"), "/")
	last := segs[len(segs)-1]
	for _, login := range matrixLogins[1:] {
		if strconv.FormatInt(m.ids["user:"+login], 10) == last {
			return login
		}
	}
	return "administrator"
}

// total returns the collection total of an answer, "" when it has none.
// The header keeps the spec's spelling, which http.Header.Get would not
// find.
func (m *matrixSite) total(w *testkit.Response) string {
	if v := w.Header[m.names.TotalHeader()]; len(v) > 0 {
		return v[0]
	}
	return w.Header.Get(m.names.TotalHeader())
}

// check asserts that an answer to login holds no token it may not see.
// Tokens the request itself names (a search) are not looked for in the
// body, where an error message may repeat them.
func (m *matrixSite) check(login, what string, w *testkit.Response, asked string) {
	m.t.Helper()
	body := strings.ToLower(string(w.Body))
	if w.Status >= 500 && w.Status != http.StatusNotImplemented {
		m.t.Errorf("%s as %q: %d %s", what, login, w.Status, w.Body)
		return
	}
	for _, s := range m.secrets {
		if m.may(login, s) || strings.Contains(asked, s.token) {
			continue
		}
		if strings.Contains(body, s.token) {
			m.t.Errorf("LEAK %s as %q (%d): %s appears", what, login, w.Status, s.token)
		}
		for k, vs := range w.Header {
			for _, v := range vs {
				if strings.Contains(strings.ToLower(v), s.token) {
					m.t.Errorf("LEAK %s as %q: %s in header %s", what, login, s.token, k)
				}
			}
		}
	}
	if w.Status == 200 && strings.HasPrefix(body, "[") {
		// A collection: the total counts what is listed (per_page=100
		// holds the whole of these small fixtures).
		if total := m.total(w); total != "" && strings.Contains(what, "per_page=100") {
			var items []any
			if err := json.Unmarshal(w.Body, &items); err == nil && total != strconv.Itoa(len(items)) {
				m.t.Errorf("COUNT %s as %q: %s is %s, %d listed", what, login, m.names.TotalHeader(), total, len(items))
			}
		}
	}
	if login != "" && w.Header.Get("ETag") != "" {
		m.t.Errorf("%s as %q: a signed-in answer has an ETag", what, login)
	}
}

// run drives every route, method, role and context.
func (m *matrixSite) run() {
	routes := m.routes()
	var requests atomic.Int64
	m.count = &requests
	defer func() { m.t.Logf("%d requests", requests.Load()) }()
	type anonTag struct{ target, tag string }
	var tagsMu sync.Mutex
	var tags []anonTag

	// Reads, as every caller at once.
	m.t.Run("reads", func(t *testing.T) {
		for _, login := range matrixLogins {
			name := login
			if name == "" {
				name = "anonymous"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				for _, rt := range routes {
					if !slices.Contains(rt.methods, "GET") {
						continue
					}
					for _, p := range m.paths(rt.pattern) {
						collection := rt.args["per_page"]
						variants := []string{"context=view", "context=embed", "context=edit", "_embed=1"}
						if collection {
							variants = []string{"per_page=100", "per_page=100&context=embed", "per_page=100&context=edit", "per_page=100&_embed=1"}
							if rt.args["status"] {
								for _, st := range []string{"any", "draft", "private", "trash", "hold", "spam"} {
									variants = append(variants, "per_page=100&context=edit&status="+st)
								}
							}
						}
						for _, v := range variants {
							target := m.names.Prefix + p + "?" + v
							w := m.request(login, "GET", target, nil)
							m.check(login, "GET "+p+"?"+v, w, "")
							if login == "" && w.Status == 200 && w.Header.Get("ETag") != "" {
								tagsMu.Lock()
								tags = append(tags, anonTag{target, w.Header.Get("ETag")})
								tagsMu.Unlock()
							}
						}
						if collection {
							m.filters(login, rt, p)
						}
					}
				}
			})
		}
	})

	// A write nobody else may see leaves every anonymous tag alone, and a
	// signed-in caller never gets a 304 out of an anonymous tag.
	m.t.Run("tags", func(t *testing.T) {
		m.create("author", "posts", map[string]any{"title": "Another hidden draft", "status": "draft"})
		for _, at := range tags {
			if w := m.request("", "GET", at.target, nil, "If-None-Match", at.tag); w.Status != http.StatusNotModified {
				t.Errorf("TAG GET %s: %d after a hidden write, want 304 (the tag reveals the write)", at.target, w.Status)
			}
			if w := m.request("subscriber", "GET", at.target, nil, "If-None-Match", at.tag); w.Status == http.StatusNotModified {
				t.Errorf("TAG GET %s as subscriber: 304 from an anonymous tag", at.target)
			}
		}
	})

	// Writes: every other method of every route, as every caller from the
	// least allowed up, with a body that changes nothing; what is deleted
	// last goes in the end.
	m.t.Run("writes", func(t *testing.T) {
		// Comments posted from here on by signed-in users carry their
		// emails, which moderators see on comments (as on the platform).
		for i, s := range m.secrets {
			if s.kind == "useremail" {
				m.secrets[i].who = append(s.who, "editor")
			}
		}
		for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			for _, rt := range routes {
				if !slices.Contains(rt.methods, method) {
					continue
				}
				for _, p := range m.paths(rt.pattern) {
					for _, login := range matrixLogins {
						var body []byte
						if method != "DELETE" {
							body = []byte(`{}`)
						}
						w := m.request(login, method, m.names.Prefix+p, body)
						m.check(login, method+" "+p, w, "")
					}
				}
			}
		}
	})
}

// filters asks a collection for every token through each filter that can
// name it: nothing hidden may be found, and the total says so too.
func (m *matrixSite) filters(login string, rt matrixRoute, p string) {
	for _, s := range m.secrets {
		if m.may(login, s) {
			continue
		}
		var qs []string
		if rt.args["search"] {
			qs = append(qs, "search="+url.QueryEscape(s.token))
			if login != "" {
				qs = append(qs, "search="+url.QueryEscape(s.token)+"&status=any&context=edit")
			}
		}
		if rt.args["filter"] {
			qs = append(qs, "filter[s]="+url.QueryEscape(s.token))
		}
		if rt.args["slug"] && s.kind == "slug" {
			qs = append(qs, "slug="+url.QueryEscape(s.token), "slug="+url.QueryEscape(s.token)+"&status=any")
		}
		if rt.args["author_email"] && (s.kind == "email" || s.kind == "useremail") {
			qs = append(qs, "author_email="+url.QueryEscape(s.token+"@example.org"))
		}
		for _, q := range qs {
			target := m.names.Prefix + p + "?per_page=100&" + q
			w := m.request(login, "GET", target, nil)
			m.check(login, "GET "+p+"?"+q, w, s.token)
			if w.Status == 200 {
				if total := m.total(w); total != "0" {
					m.t.Errorf("ORACLE GET %s?%s as %q: %s is %s for a hidden token", p, q, login, m.names.TotalHeader(), total)
				}
			}
		}
	}
}
