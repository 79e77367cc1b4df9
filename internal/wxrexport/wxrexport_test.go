package wxrexport_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/wxrexport"
)

// The parsed shape of a WXR file; elements are matched by namespace URI.
type rss struct {
	XMLName xml.Name `xml:"rss"`
	Version string   `xml:"version,attr"`
	Channel channel  `xml:"channel"`
}

type channel struct {
	Title       string     `xml:"title"`
	Link        string     `xml:"link"`
	Description string     `xml:"description"`
	PubDate     string     `xml:"pubDate"`
	Language    string     `xml:"language"`
	WXRVersion  string     `xml:"http://wordpress.org/export/1.2/ wxr_version"`
	BaseSiteURL string     `xml:"http://wordpress.org/export/1.2/ base_site_url"`
	BaseBlogURL string     `xml:"http://wordpress.org/export/1.2/ base_blog_url"`
	Authors     []author   `xml:"http://wordpress.org/export/1.2/ author"`
	Categories  []category `xml:"http://wordpress.org/export/1.2/ category"`
	Tags        []tag      `xml:"http://wordpress.org/export/1.2/ tag"`
	Terms       []term     `xml:"http://wordpress.org/export/1.2/ term"`
	Generator   string     `xml:"generator"`
	Items       []item     `xml:"item"`
}

type author struct {
	ID          int64  `xml:"http://wordpress.org/export/1.2/ author_id"`
	Login       string `xml:"http://wordpress.org/export/1.2/ author_login"`
	Email       string `xml:"http://wordpress.org/export/1.2/ author_email"`
	DisplayName string `xml:"http://wordpress.org/export/1.2/ author_display_name"`
	FirstName   string `xml:"http://wordpress.org/export/1.2/ author_first_name"`
	LastName    string `xml:"http://wordpress.org/export/1.2/ author_last_name"`
}

type category struct {
	ID          int64  `xml:"http://wordpress.org/export/1.2/ term_id"`
	Nicename    string `xml:"http://wordpress.org/export/1.2/ category_nicename"`
	Parent      string `xml:"http://wordpress.org/export/1.2/ category_parent"`
	Name        string `xml:"http://wordpress.org/export/1.2/ cat_name"`
	Description string `xml:"http://wordpress.org/export/1.2/ category_description"`
}

type tag struct {
	ID          int64  `xml:"http://wordpress.org/export/1.2/ term_id"`
	Slug        string `xml:"http://wordpress.org/export/1.2/ tag_slug"`
	Name        string `xml:"http://wordpress.org/export/1.2/ tag_name"`
	Description string `xml:"http://wordpress.org/export/1.2/ tag_description"`
}

type term struct {
	ID          int64  `xml:"http://wordpress.org/export/1.2/ term_id"`
	Taxonomy    string `xml:"http://wordpress.org/export/1.2/ term_taxonomy"`
	Slug        string `xml:"http://wordpress.org/export/1.2/ term_slug"`
	Parent      string `xml:"http://wordpress.org/export/1.2/ term_parent"`
	Name        string `xml:"http://wordpress.org/export/1.2/ term_name"`
	Description string `xml:"http://wordpress.org/export/1.2/ term_description"`
}

type item struct {
	Title         string    `xml:"title"`
	Link          string    `xml:"link"`
	PubDate       string    `xml:"pubDate"`
	Creator       string    `xml:"http://purl.org/dc/elements/1.1/ creator"`
	GUID          guid      `xml:"guid"`
	Description   *string   `xml:"description"`
	Content       string    `xml:"http://purl.org/rss/1.0/modules/content/ encoded"`
	Excerpt       string    `xml:"http://wordpress.org/export/1.2/excerpt/ encoded"`
	ID            int64     `xml:"http://wordpress.org/export/1.2/ post_id"`
	Date          string    `xml:"http://wordpress.org/export/1.2/ post_date"`
	DateGMT       string    `xml:"http://wordpress.org/export/1.2/ post_date_gmt"`
	Modified      string    `xml:"http://wordpress.org/export/1.2/ post_modified"`
	ModifiedGMT   string    `xml:"http://wordpress.org/export/1.2/ post_modified_gmt"`
	CommentStatus string    `xml:"http://wordpress.org/export/1.2/ comment_status"`
	PingStatus    string    `xml:"http://wordpress.org/export/1.2/ ping_status"`
	Name          string    `xml:"http://wordpress.org/export/1.2/ post_name"`
	Status        string    `xml:"http://wordpress.org/export/1.2/ status"`
	Parent        int64     `xml:"http://wordpress.org/export/1.2/ post_parent"`
	MenuOrder     int64     `xml:"http://wordpress.org/export/1.2/ menu_order"`
	Type          string    `xml:"http://wordpress.org/export/1.2/ post_type"`
	Password      string    `xml:"http://wordpress.org/export/1.2/ post_password"`
	Sticky        *int      `xml:"http://wordpress.org/export/1.2/ is_sticky"`
	AttachmentURL string    `xml:"http://wordpress.org/export/1.2/ attachment_url"`
	Categories    []itemCat `xml:"category"`
	Meta          []meta    `xml:"http://wordpress.org/export/1.2/ postmeta"`
	Comments      []comment `xml:"http://wordpress.org/export/1.2/ comment"`
}

type guid struct {
	IsPermaLink string `xml:"isPermaLink,attr"`
	Value       string `xml:",chardata"`
}

type itemCat struct {
	Domain   string `xml:"domain,attr"`
	Nicename string `xml:"nicename,attr"`
	Name     string `xml:",chardata"`
}

type meta struct {
	Key   string `xml:"http://wordpress.org/export/1.2/ meta_key"`
	Value string `xml:"http://wordpress.org/export/1.2/ meta_value"`
}

type comment struct {
	ID          int64  `xml:"http://wordpress.org/export/1.2/ comment_id"`
	Author      string `xml:"http://wordpress.org/export/1.2/ comment_author"`
	AuthorEmail string `xml:"http://wordpress.org/export/1.2/ comment_author_email"`
	AuthorURL   string `xml:"http://wordpress.org/export/1.2/ comment_author_url"`
	AuthorIP    string `xml:"http://wordpress.org/export/1.2/ comment_author_IP"`
	Date        string `xml:"http://wordpress.org/export/1.2/ comment_date"`
	DateGMT     string `xml:"http://wordpress.org/export/1.2/ comment_date_gmt"`
	Content     string `xml:"http://wordpress.org/export/1.2/ comment_content"`
	Approved    string `xml:"http://wordpress.org/export/1.2/ comment_approved"`
	Type        string `xml:"http://wordpress.org/export/1.2/ comment_type"`
	Parent      int64  `xml:"http://wordpress.org/export/1.2/ comment_parent"`
	UserID      int64  `xml:"http://wordpress.org/export/1.2/ comment_user_id"`
	Meta        []meta `xml:"http://wordpress.org/export/1.2/ commentmeta"`
}

func (it *item) meta(key string) []string {
	var out []string
	for _, m := range it.Meta {
		if m.Key == key {
			out = append(out, m.Value)
		}
	}
	return out
}

// parse decodes a WXR file strictly, failing the test on any XML error.
func parse(t *testing.T, data []byte) *rss {
	t.Helper()
	var doc rss
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("export is not well-formed XML: %v", err)
	}
	return &doc
}

// tricky is content every byte of which must survive: a CDATA terminator
// (twice, and at the end), Greek, emoji (outside the BMP), bidi controls,
// CR LF line ends, markup and entities.
const tricky = "<p>Καλημέρα κόσμε 🎉👩🏽‍💻 \u202Eτέλος\u202C ]]> and ]]]]> x</p>\r\n<!-- wp:x -->&amp; &lt;\r\nend]]>"

type fixture struct {
	site                                            *content.Site
	db                                              storetest.Store
	admin, editor, author, subscriber               *store.User
	catParent, catChild, catGrand, catLate, catEarl *store.Term
	tagGreek, tagEmoji, genre, subGenre             *store.Term
	sticky, password, future, draft, private        *store.Post
	pending, trashed, autoDraft, pageA, pageB       *store.Post
	pageC, book, photo                              *store.Post
	cApproved, cReply, cReply2, cHeld, cSpam        *store.Comment
	cTrash, cPing, cTrack, cOnTrashed1, cOnTrashed2 *store.Comment
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t)
	cfg := config.Default()
	cfg.Site.Title = "Ιστολόγιο & <Friends>"
	cfg.Site.Description = "Just testing ]]> things"
	cfg.Site.URL = "https://example.org/blog"
	cfg.Site.Timezone = "Europe/Athens"
	cfg.PostTypes = append(cfg.PostTypes, config.PostType{Name: "book", RestBase: "books",
		Supports: []string{"title", "editor", "author", "thumbnail", "excerpt", "comments"}})
	cfg.Taxonomies = append(cfg.Taxonomies, config.Taxonomy{Name: "genre", RestBase: "genres", Hierarchical: true,
		ObjectTypes: []string{"book", "post"}})
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	site, err := content.NewSite(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{site: site, db: db}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) *string { return &s }
	i64 := func(n int64) *int64 { return &n }

	reg := time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)
	user := func(login, role, first, last string) *store.User {
		u := &store.User{Login: login, Email: login + "@example.org", DisplayName: first + " " + last, Nicename: login,
			FirstName: first, LastName: last, Registered: reg, Roles: []string{role}}
		must(db.InsertUser(ctx, u))
		return u
	}
	f.admin = user("admin", "administrator", "Ada", "Lovelace")
	f.editor = user("editor", "editor", "Ελένη", "Παπαδοπούλου")
	f.author = user("author", "author", "Amir", "\u0639\u0644\u064a")
	f.subscriber = user("subscriber", "subscriber", "Sam", "O'Brien & Co")
	admin := site.UserOf(f.admin)

	tax := func(name string) *content.Taxonomy {
		tx, ok := site.Taxonomies().Get(name)
		if !ok {
			t.Fatalf("no taxonomy %s", name)
		}
		return tx
	}
	mkTerm := func(taxonomy, name, desc string, parent int64) *store.Term {
		in := content.TermInput{Name: str(name), Description: str(desc)}
		if parent != 0 {
			in.Parent = i64(parent)
		}
		tm, err := site.CreateTerm(ctx, tax(taxonomy), in, nil)
		must(err)
		return tm
	}
	f.catParent = mkTerm("category", "Parent", "The parent ]]> category", 0)
	f.catChild = mkTerm("category", "Child", "", f.catParent.ID)
	f.catGrand = mkTerm("category", "Grandchild", "", f.catChild.ID)
	// Early is created before Late and then moved under it: its parent
	// has the larger id.
	f.catEarl = mkTerm("category", "Early", "", 0)
	f.catLate = mkTerm("category", "Late", "", 0)
	var err2 error
	f.catEarl, err2 = site.UpdateTerm(ctx, tax("category"), f.catEarl, content.TermInput{Parent: i64(f.catLate.ID)}, nil)
	must(err2)
	f.tagGreek = mkTerm("post_tag", "Ελληνικά", "Greek", 0)
	f.tagEmoji = mkTerm("post_tag", "party 🎉", "", 0)
	f.genre = mkTerm("genre", "Fiction", "Made up", 0)
	f.subGenre = mkTerm("genre", "Science Fiction", "", f.genre.ID)

	postType := func(name string) *content.PostType {
		pt, ok := site.Types().Get(name)
		if !ok {
			t.Fatalf("no post type %s", name)
		}
		return pt
	}
	create := func(typ string, in content.PostInput) *store.Post {
		t.Helper()
		p, _, err := site.CreatePost(ctx, admin, postType(typ), in, cfg.Site.URL)
		must(err)
		return p
	}
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	f.sticky = create("post", content.PostInput{Title: str("Sticky ]]> Καλημέρα"), Content: str("x"), Excerpt: str("Short ]]> excerpt"),
		Status: str("publish"), Sticky: func() *bool { b := true; return &b }(), Format: str("aside"), Date: &when,
		Terms: map[string][]int64{"category": {f.catGrand.ID, f.catEarl.ID}, "post_tag": {f.tagGreek.ID, f.tagEmoji.ID}, "genre": {f.subGenre.ID}}})
	f.password = create("post", content.PostInput{Title: str("Protected"), Content: str("secret body"), Status: str("publish"), Password: str("enter ]]> now"), Date: &when})
	future := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	f.future = create("post", content.PostInput{Title: str("Future"), Status: str("future"), Date: &future})
	f.draft = create("post", content.PostInput{Title: str("Draft"), Status: str("draft")})
	f.private = create("post", content.PostInput{Title: str("Private"), Status: str("private"), Author: i64(f.author.ID)})
	f.pending = create("post", content.PostInput{Title: str("Pending"), Status: str("pending"), Author: i64(f.editor.ID)})
	f.trashed = create("post", content.PostInput{Title: str("Trashed"), Status: str("publish"), Date: &when})
	f.pageA = create("page", content.PostInput{Title: str("Level A"), Slug: str("a"), Status: str("publish"), MenuOrder: i64(3)})
	f.pageB = create("page", content.PostInput{Title: str("Level B"), Slug: str("b"), Status: str("publish"), Parent: i64(f.pageA.ID), MenuOrder: i64(1)})
	f.pageC = create("page", content.PostInput{Title: str("Επίπεδο Γ"), Slug: str("c"), Status: str("publish"), Parent: i64(f.pageB.ID), MenuOrder: i64(2)})
	f.book = create("book", content.PostInput{Title: str("Dune"), Content: str("Spice"), Status: str("publish"), Terms: map[string][]int64{"genre": {f.subGenre.ID}}})

	// The attachment, its file record and the featured image.
	f.photo = &store.Post{Type: "attachment", Status: "inherit", Author: f.admin.ID, Parent: f.sticky.ID, Title: "Photo", Slug: "photo",
		Excerpt: "A caption", MimeType: "image/jpeg", GUID: "https://example.org/blog/uploads/2024/05/photo.jpg",
		Date: when, DateGMT: when, Modified: when, ModifiedGMT: when, CommentStatus: "open", PingStatus: "closed"}
	must(db.InsertPost(ctx, f.photo))
	must(db.PutMedia(ctx, &store.Media{PostID: f.photo.ID, File: "2024/05/photo.jpg", AltText: "Alt ]]> text",
		Details: `{"width":1200,"height":800,"file":"2024/05/photo.jpg","sizes":[{"name":"thumbnail","file":"photo-150x150.jpg","width":150,"height":150,"mime_type":"image/jpeg"}],` +
			`"image_meta":{"aperture":"2.8","credit":"","camera":"Κάμερα","caption":"","created_timestamp":"0","copyright":"","focal_length":"0","iso":"100","shutter_speed":"0","title":"","orientation":"1","keywords":["a"]}}`}))

	// Raw edge cases straight into the store: what is stored is exported,
	// whatever wrote it.
	p := *f.sticky
	p.Content = tricky + "\x01\x0B\uFFFE"
	p.FeaturedMedia = f.photo.ID
	must(db.UpdatePost(ctx, &p))
	f.sticky = &p
	pa := *f.pageA
	pa.Template = "templates/full-width.php"
	must(db.UpdatePost(ctx, &pa))
	f.pageA = &pa
	ms := any(db).(store.PostMetaStore)
	must(ms.SetPostMeta(ctx, f.sticky.ID, "rating", []string{"5", "a:1:{s:1:\"k\";s:3:\"]]>\";}"}))
	must(ms.SetPostMeta(ctx, f.sticky.ID, "_edit_lock", []string{"1700000000:1"}))

	// An auto-draft and a revision are never exported.
	f.autoDraft = &store.Post{Type: "post", Status: "auto-draft", Author: f.admin.ID, Title: "Auto"}
	must(db.InsertPost(ctx, f.autoDraft))
	must(db.InsertPost(ctx, &store.Post{Type: "revision", Status: "inherit", Author: f.admin.ID, Parent: f.sticky.ID, Title: "rev"}))

	// Threaded comments in every status, a pingback and a trackback.
	cAt := func(n int) (time.Time, time.Time) {
		gmt := time.Date(2024, 6, 1, 10, n, 0, 0, time.UTC)
		return content.WallClock(gmt, site.FileSettings().Location()), gmt
	}
	mkComment := func(post, parent int64, user *store.User, approved, typ, body string, n int) *store.Comment {
		local, gmt := cAt(n)
		c := &store.Comment{PostID: post, Parent: parent, AuthorName: "Guest " + fmt.Sprint(n), AuthorEmail: fmt.Sprintf("g%d@example.net", n),
			AuthorURL: "https://example.net/?a=1&b=2", AuthorIP: "192.0.2.7", Date: local, DateGMT: gmt, Content: body,
			Approved: approved, Type: typ}
		if user != nil {
			c.AuthorID, c.AuthorName, c.AuthorEmail = user.ID, user.DisplayName, user.Email
		}
		if approved == store.CommentTrash {
			c.PreTrashStatus = "1"
		}
		must(db.InsertComment(ctx, c))
		return c
	}
	f.cApproved = mkComment(f.sticky.ID, 0, nil, "1", "comment", "First ]]> comment Καλή", 1)
	f.cReply = mkComment(f.sticky.ID, f.cApproved.ID, f.subscriber, "1", "comment", "A reply 🎉", 2)
	f.cReply2 = mkComment(f.sticky.ID, f.cReply.ID, f.editor, "1", "comment", "Reply to the reply", 3)
	f.cHeld = mkComment(f.sticky.ID, 0, nil, "0", "comment", "Held", 4)
	f.cSpam = mkComment(f.sticky.ID, 0, nil, "spam", "comment", "Buy pills", 5)
	f.cTrash = mkComment(f.sticky.ID, 0, nil, "trash", "comment", "Trashed", 6)
	f.cPing = mkComment(f.sticky.ID, 0, nil, "1", "pingback", "[…] pinged […]", 7)
	f.cTrack = mkComment(f.sticky.ID, 0, nil, "1", "trackback", "tracked", 8)
	f.cOnTrashed1 = mkComment(f.trashed.ID, 0, nil, "1", "comment", "on trashed", 9)
	f.cOnTrashed2 = mkComment(f.trashed.ID, 0, nil, "0", "comment", "held on trashed", 10)
	cur, err := db.GetPost(ctx, f.trashed.ID)
	must(err)
	must(site.TrashPost(ctx, cur))
	f.trashed, err = db.GetPost(ctx, f.trashed.ID)
	must(err)
	return f
}

func export(t *testing.T, site *content.Site, opts wxrexport.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	}
	if err := wxrexport.Export(context.Background(), site, &buf, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExportWritesWXRWordPressReads(t *testing.T) {
	f := newFixture(t)
	out := export(t, f.site, wxrexport.Options{Generator: "Folio/test"})

	// The prolog and namespaces exactly as WordPress writes them.
	if !bytes.HasPrefix(out, []byte(`<?xml version="1.0" encoding="UTF-8" ?>`+"\n")) {
		t.Fatalf("prolog: %q", out[:60])
	}
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := dec.RawToken()
		if err != nil {
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			got := map[string]string{}
			for _, a := range se.Attr {
				got[a.Name.Space+":"+a.Name.Local] = a.Value
			}
			want := map[string]string{":version": "2.0", "xmlns:excerpt": "http://wordpress.org/export/1.2/excerpt/",
				"xmlns:content": "http://purl.org/rss/1.0/modules/content/", "xmlns:wfw": "http://wellformedweb.org/CommentAPI/",
				"xmlns:dc": "http://purl.org/dc/elements/1.1/", "xmlns:wp": "http://wordpress.org/export/1.2/"}
			if se.Name.Local != "rss" || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("root element %s attributes %v, want rss with %v", se.Name.Local, got, want)
			}
			break
		}
	}
	if !bytes.Contains(out, []byte(`<!-- generator="Folio/test" created="2025-01-02 03:04" -->`)) {
		t.Error("no generator comment")
	}

	doc := parse(t, out)
	ch := doc.Channel
	if doc.Version != "2.0" || ch.Title != "Ιστολόγιο & <Friends>" || ch.Link != "https://example.org/blog" ||
		ch.Description != "Just testing ]]> things" || ch.PubDate != "Thu, 02 Jan 2025 03:04:05 +0000" || ch.Language != "en-US" ||
		ch.WXRVersion != "1.2" || ch.BaseSiteURL != "https://example.org/blog" || ch.BaseBlogURL != "https://example.org/blog" ||
		ch.Generator != "Folio/test" {
		t.Errorf("channel = %+v", ch)
	}

	// Every user, in id order, with its names.
	if len(ch.Authors) != 4 {
		t.Fatalf("authors = %+v", ch.Authors)
	}
	if a := ch.Authors[1]; a.ID != f.editor.ID || a.Login != "editor" || a.Email != "editor@example.org" ||
		a.DisplayName != "Ελένη Παπαδοπούλου" || a.FirstName != "Ελένη" || a.LastName != "Παπαδοπούλου" {
		t.Errorf("author = %+v", a)
	}
	if a := ch.Authors[3]; a.LastName != "O'Brien & Co" {
		t.Errorf("escaped last name = %q", a.LastName)
	}
	// Each wp:author on one line, as WordPress writes it: the WordPress
	// importer's regular-expression parser reads an author only from a line
	// holding both its start and end tags.
	authorLines := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "<wp:author>") {
			authorLines++
			if !strings.HasPrefix(line, "\t<wp:author><wp:author_id>") || !strings.HasSuffix(line, "</wp:author>") {
				t.Errorf("wp:author not on one line: %q", line)
			}
		}
	}
	if authorLines != len(ch.Authors) {
		t.Errorf("%d lines with <wp:author>, want %d", authorLines, len(ch.Authors))
	}

	// Categories: every one, parents before children, parents by slug.
	pos := map[string]int{}
	cats := map[string]category{}
	for i, c := range ch.Categories {
		pos[c.Nicename] = i
		cats[c.Nicename] = c
	}
	if len(ch.Categories) != 6 {
		t.Fatalf("categories = %+v", ch.Categories)
	}
	for child, parent := range map[string]string{"child": "parent", "grandchild": "child", "early": "late"} {
		if cats[child].Parent != parent || pos[parent] > pos[child] {
			t.Errorf("category %s: parent %q at %d (itself at %d), want %q before it", child, cats[child].Parent, pos[parent], pos[child], parent)
		}
	}
	if c := cats["parent"]; c.ID != f.catParent.ID || c.Name != "Parent" || c.Description != "The parent ]]> category" || c.Parent != "" {
		t.Errorf("parent category = %+v", c)
	}
	if c := cats["uncategorized"]; c.ID != 1 || c.Name != "Uncategorized" {
		t.Errorf("default category = %+v", c)
	}
	if len(ch.Tags) != 2 || ch.Tags[0].Slug != f.tagGreek.Slug || ch.Tags[0].Name != "Ελληνικά" || ch.Tags[0].Description != "Greek" ||
		ch.Tags[1].Name != "party 🎉" {
		t.Errorf("tags = %+v", ch.Tags)
	}
	if len(ch.Terms) != 2 || ch.Terms[0] != (term{f.genre.ID, "genre", "fiction", "", "Fiction", "Made up"}) ||
		ch.Terms[1] != (term{f.subGenre.ID, "genre", "science-fiction", "fiction", "Science Fiction", ""}) {
		t.Errorf("terms = %+v", ch.Terms)
	}

	// Items: everything but the auto-draft and the revision, in id order.
	items := map[int64]*item{}
	var ids []int64
	for i := range ch.Items {
		it := &ch.Items[i]
		items[it.ID] = it
		ids = append(ids, it.ID)
	}
	want := []int64{f.sticky.ID, f.password.ID, f.future.ID, f.draft.ID, f.private.ID, f.pending.ID, f.trashed.ID,
		f.pageA.ID, f.pageB.ID, f.pageC.ID, f.book.ID, f.photo.ID}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("item ids = %v, want %v", ids, want)
	}

	st := items[f.sticky.ID]
	if st.Title != "Sticky ]]> Καλημέρα" || st.Content != tricky || st.Excerpt != "Short ]]> excerpt" {
		t.Errorf("sticky texts: title %q\ncontent %q\nexcerpt %q", st.Title, st.Content, st.Excerpt)
	}
	if st.Creator != "admin" || st.GUID.IsPermaLink != "false" || st.GUID.Value != fmt.Sprintf("https://example.org/blog/?p=%d", f.sticky.ID) ||
		st.Description == nil || *st.Description != "" {
		t.Errorf("sticky creator %q guid %+v description %v", st.Creator, st.GUID, st.Description)
	}
	// 07:08:09 UTC is 10:08:09 in Athens (summer time).
	if st.PubDate != "Mon, 06 May 2024 07:08:09 +0000" || st.Date != "2024-05-06 10:08:09" || st.DateGMT != "2024-05-06 07:08:09" ||
		st.Link != "https://example.org/blog/2024/05/06/"+f.sticky.Slug+"/" {
		t.Errorf("sticky dates/link: %q %q %q %q", st.PubDate, st.Date, st.DateGMT, st.Link)
	}
	if st.Modified == "" || st.ModifiedGMT == "" || st.Status != "publish" || st.Type != "post" || st.Sticky == nil || *st.Sticky != 1 ||
		st.CommentStatus != "open" || st.PingStatus != "open" || st.Name != f.sticky.Slug || st.Parent != 0 || st.Password != "" {
		t.Errorf("sticky fields: %+v", st)
	}
	gotCats := map[string]string{}
	for _, c := range st.Categories {
		gotCats[c.Domain+"/"+c.Nicename] = c.Name
	}
	wantCats := map[string]string{"category/grandchild": "Grandchild", "category/early": "Early", "post_tag/" + f.tagGreek.Slug: "Ελληνικά",
		"post_tag/" + f.tagEmoji.Slug: "party 🎉", "genre/science-fiction": "Science Fiction", "post_format/post-format-aside": "Aside"}
	if fmt.Sprint(gotCats) != fmt.Sprint(wantCats) {
		t.Errorf("sticky categories = %v, want %v", gotCats, wantCats)
	}
	if got := st.meta("_thumbnail_id"); fmt.Sprint(got) != fmt.Sprint([]string{fmt.Sprint(f.photo.ID)}) {
		t.Errorf("_thumbnail_id = %v", got)
	}
	if got := st.meta("rating"); fmt.Sprint(got) != fmt.Sprint([]string{"5", "a:1:{s:1:\"k\";s:3:\"]]>\";}"}) {
		t.Errorf("rating meta = %q", got)
	}
	if got := st.meta("_edit_lock"); len(got) != 0 {
		t.Errorf("_edit_lock exported: %v", got)
	}

	// Comments: all but spam, with every field.
	byID := map[int64]comment{}
	var cids []int64
	for _, c := range st.Comments {
		byID[c.ID] = c
		cids = append(cids, c.ID)
	}
	wantC := []int64{f.cApproved.ID, f.cReply.ID, f.cReply2.ID, f.cHeld.ID, f.cTrash.ID, f.cPing.ID, f.cTrack.ID}
	if fmt.Sprint(cids) != fmt.Sprint(wantC) {
		t.Fatalf("comment ids = %v, want %v (spam left out)", cids, wantC)
	}
	if c := byID[f.cApproved.ID]; fmt.Sprintf("%+v", c) != fmt.Sprintf("%+v", comment{ID: f.cApproved.ID, Author: "Guest 1", AuthorEmail: "g1@example.net", AuthorURL: "https://example.net/?a=1&b=2",
		AuthorIP: "192.0.2.7", Date: "2024-06-01 13:01:00", DateGMT: "2024-06-01 10:01:00", Content: "First ]]> comment Καλή",
		Approved: "1", Type: "comment"}) {
		t.Errorf("comment = %+v", c)
	}
	if c := byID[f.cReply.ID]; c.Parent != f.cApproved.ID || c.UserID != f.subscriber.ID || c.Author != "Sam O'Brien & Co" || c.Content != "A reply 🎉" {
		t.Errorf("reply = %+v", c)
	}
	if c := byID[f.cReply2.ID]; c.Parent != f.cReply.ID || c.UserID != f.editor.ID {
		t.Errorf("reply to reply = %+v", c)
	}
	if c := byID[f.cHeld.ID]; c.Approved != "0" {
		t.Errorf("held = %+v", c)
	}
	if c := byID[f.cTrash.ID]; c.Approved != "trash" || fmt.Sprint(c.Meta) != fmt.Sprint([]meta{{"_wp_trash_meta_status", "1"}}) {
		t.Errorf("trashed comment = %+v", c)
	}
	if byID[f.cPing.ID].Type != "pingback" || byID[f.cTrack.ID].Type != "trackback" {
		t.Errorf("ping/track types = %q %q", byID[f.cPing.ID].Type, byID[f.cTrack.ID].Type)
	}

	if it := items[f.password.ID]; it.Password != "enter ]]> now" || it.Sticky == nil || *it.Sticky != 0 {
		t.Errorf("password item = %+v", it)
	}
	if it := items[f.future.ID]; it.Status != "future" || it.DateGMT != "2030-01-02 03:04:05" || it.PubDate != "Wed, 02 Jan 2030 03:04:05 +0000" {
		t.Errorf("future item = %+v", it)
	}
	if it := items[f.draft.ID]; it.Status != "draft" || it.DateGMT != "0000-00-00 00:00:00" || it.PubDate == "" ||
		it.Link != fmt.Sprintf("https://example.org/blog/?p=%d", f.draft.ID) {
		t.Errorf("draft item: status %q date_gmt %q pubDate %q link %q", it.Status, it.DateGMT, it.PubDate, it.Link)
	}
	if it := items[f.private.ID]; it.Status != "private" || it.Creator != "author" {
		t.Errorf("private item = %+v", it)
	}
	if it := items[f.pending.ID]; it.Status != "pending" || it.Creator != "editor" {
		t.Errorf("pending item = %+v", it)
	}
	tr := items[f.trashed.ID]
	if tr.Status != "trash" || fmt.Sprint(tr.meta("_wp_trash_meta_status")) != "[publish]" || len(tr.meta("_wp_trash_meta_time")) != 1 {
		t.Errorf("trashed item: status %q meta %+v", tr.Status, tr.Meta)
	}
	// The comments of a trashed post carry the status they had before it
	// went to the trash, and no id-keyed trash meta names them.
	if got := tr.meta("_wp_trash_meta_comments_status"); len(got) != 0 {
		t.Errorf("_wp_trash_meta_comments_status = %v, want none", got)
	}
	if len(tr.Comments) != 2 || tr.Comments[0].ID != f.cOnTrashed1.ID || tr.Comments[0].Approved != "1" ||
		tr.Comments[1].ID != f.cOnTrashed2.ID || tr.Comments[1].Approved != "0" {
		t.Errorf("comments of the trashed post = %+v", tr.Comments)
	}

	// The page tree with menu order, links by path and the template.
	if it := items[f.pageA.ID]; it.Type != "page" || it.Parent != 0 || it.MenuOrder != 3 || fmt.Sprint(it.meta("_wp_page_template")) != "[templates/full-width.php]" {
		t.Errorf("page A = %+v", it)
	}
	if it := items[f.pageB.ID]; it.Parent != f.pageA.ID || it.MenuOrder != 1 {
		t.Errorf("page B = %+v", it)
	}
	if it := items[f.pageC.ID]; it.Parent != f.pageB.ID || it.MenuOrder != 2 || it.Title != "Επίπεδο Γ" || it.Link != "https://example.org/blog/a/b/c/" ||
		it.CommentStatus != "closed" {
		t.Errorf("page C = %+v", it)
	}
	if it := items[f.book.ID]; it.Type != "book" || len(it.Categories) != 1 || it.Categories[0] != (itemCat{"genre", "science-fiction", "Science Fiction"}) ||
		it.Link != "https://example.org/blog/book/dune/" {
		t.Errorf("book = %+v", it)
	}

	// The attachment: URL, file, alt text and metadata as WordPress keeps them.
	ph := items[f.photo.ID]
	if ph.Type != "attachment" || ph.Status != "inherit" || ph.Parent != f.sticky.ID || ph.AttachmentURL != "https://example.org/blog/uploads/2024/05/photo.jpg" ||
		ph.Excerpt != "A caption" {
		t.Errorf("attachment = %+v", ph)
	}
	if got := ph.meta("_wp_attached_file"); fmt.Sprint(got) != "[2024/05/photo.jpg]" {
		t.Errorf("_wp_attached_file = %v", got)
	}
	if got := ph.meta("_wp_attachment_image_alt"); fmt.Sprint(got) != "[Alt ]]> text]" {
		t.Errorf("_wp_attachment_image_alt = %v", got)
	}
	wantMeta := `a:5:{s:5:"width";i:1200;s:6:"height";i:800;s:4:"file";s:17:"2024/05/photo.jpg";` +
		`s:5:"sizes";a:1:{s:9:"thumbnail";a:4:{s:4:"file";s:17:"photo-150x150.jpg";s:5:"width";i:150;s:6:"height";i:150;s:9:"mime-type";s:10:"image/jpeg";}}` +
		`s:10:"image_meta";a:12:{s:8:"aperture";s:3:"2.8";s:6:"credit";s:0:"";s:6:"camera";s:12:"Κάμερα";s:7:"caption";s:0:"";` +
		`s:17:"created_timestamp";s:1:"0";s:9:"copyright";s:0:"";s:12:"focal_length";s:1:"0";s:3:"iso";s:3:"100";` +
		`s:13:"shutter_speed";s:1:"0";s:5:"title";s:0:"";s:11:"orientation";s:1:"1";s:8:"keywords";a:1:{i:0;s:1:"a";}}}`
	if got := ph.meta("_wp_attachment_metadata"); fmt.Sprint(got) != "["+wantMeta+"]" {
		t.Errorf("_wp_attachment_metadata =\n%v\nwant\n%s", got, wantMeta)
	}
}

func TestExportIsTheSameWhateverTheBatchSize(t *testing.T) {
	f := newFixture(t)
	one := export(t, f.site, wxrexport.Options{BatchSize: 1})
	def := export(t, f.site, wxrexport.Options{})
	if !bytes.Equal(one, def) {
		t.Fatalf("batch size 1 and the default give different exports (%d and %d bytes)", len(one), len(def))
	}
}

func TestExportCDATAAndInvalidCharacters(t *testing.T) {
	f := newFixture(t)
	out := export(t, f.site, wxrexport.Options{})
	// The raw control characters and U+FFFE are gone, the CDATA
	// terminator is split as WordPress splits it, CR is a reference.
	for _, bad := range []string{"\x01", "\x0B", "\uFFFE", "\r"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("output contains %q", bad)
		}
	}
	if !bytes.Contains(out, []byte("]]]]><![CDATA[>")) || !bytes.Contains(out, []byte("]]>&#13;<![CDATA[")) {
		t.Error("no split CDATA section")
	}
}

// countingStore counts the batches of posts read and forgets that the
// store can take snapshots.
type countingStore struct {
	store.Store
	store.Exporter
	batches *int
}

func (c countingStore) ExportPosts(ctx context.Context, q store.ExportPostQuery) ([]*store.Post, error) {
	*c.batches++
	return c.Exporter.ExportPosts(ctx, q)
}

// probe is a writer that records, when half of the expected bytes have
// arrived, how many batches of posts had been read, and samples the heap.
type probe struct {
	n, half int
	batches *int
	atHalf  int
	peak    uint64
	writes  int
}

func (p *probe) Write(b []byte) (int, error) {
	p.n += len(b)
	if p.atHalf == 0 && p.n >= p.half {
		p.atHalf = *p.batches
	}
	p.writes++
	if p.writes%8 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.peak = max(p.peak, ms.HeapAlloc)
	}
	return len(b), nil
}

func TestExportStreamsALargeSite(t *testing.T) {
	if testing.Short() {
		t.Skip("large site")
	}
	ctx := context.Background()
	db := storetest.Open(t)
	cfg := config.Default()
	cfg.Site.URL = "http://example.org"
	const posts, bodySize = 2000, 8 << 10
	body := strings.Repeat("Καλημέρα κόσμε. ", bodySize/len("Καλημέρα κόσμε. "))
	err := db.Tx(ctx, func(tx store.Store) error {
		for i := range posts {
			d := time.Date(2024, 1, 1, 0, 0, i%60, 0, time.UTC)
			p := &store.Post{Type: "post", Status: "publish", Author: 1, Title: fmt.Sprintf("Post %d", i), Slug: fmt.Sprintf("post-%d", i),
				Content: fmt.Sprintf("%d %s", i, body), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d, CommentStatus: "open", PingStatus: "open"}
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	batches := 0
	cs := countingStore{Store: db, Exporter: any(db).(store.Exporter), batches: &batches}
	site, err := content.NewSite(cs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Measure the size once, then export again into the probe.
	var sized countWriter
	if err := wxrexport.Export(ctx, site, &sized, wxrexport.Options{}); err != nil {
		t.Fatal(err)
	}
	if sized < posts*bodySize {
		t.Fatalf("export is %d bytes, want at least %d", sized, posts*bodySize)
	}
	batches = 0
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	p := &probe{half: int(sized) / 2, batches: &batches}
	if err := wxrexport.Export(ctx, site, p, wxrexport.Options{}); err != nil {
		t.Fatal(err)
	}
	if p.n != int(sized) {
		t.Fatalf("second export wrote %d bytes, first %d", p.n, sized)
	}
	// 2,000 posts in batches of 100 are 21 reads (the last one empty).
	// Streaming writes the first half of the file after about half of
	// them; a writer that read everything first would be at 21.
	if batches != 21 || p.atHalf > 13 {
		t.Fatalf("%d batches read in all, %d of them before half of the output was written: the export does not stream", batches, p.atHalf)
	}
	// The site's text is about 16 MB; streaming keeps a batch or two.
	if grown := int64(p.peak) - int64(base.HeapAlloc); grown > 8<<20 {
		t.Fatalf("heap grew by %d MB during the export of a %d MB site", grown>>20, sized>>20)
	}
	t.Logf("exported %d posts, %d MB in %d writes; heap peak %d MB above the %d MB before",
		posts, sized>>20, p.writes, (int64(p.peak)-int64(base.HeapAlloc))>>20, base.HeapAlloc>>20)
}

type countWriter int64

func (c *countWriter) Write(b []byte) (int, error) {
	*c += countWriter(len(b))
	return len(b), nil
}

var _ io.Writer = (*countWriter)(nil)
