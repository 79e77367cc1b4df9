package wxrimport_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/wxrimport"
)

const themeUnit = "theme-test-data/themeunittestdata.wordpress.xml"

type apiPost struct {
	ID      int64  `json:"id"`
	Slug    string `json:"slug"`
	Status  string `json:"status"`
	Parent  int64  `json:"parent"`
	Sticky  bool   `json:"sticky"`
	Format  string `json:"format"`
	Date    string `json:"date"`
	DateGMT string `json:"date_gmt"`
	Title   struct {
		Rendered string `json:"rendered"`
	} `json:"title"`
	Content struct {
		Rendered  string `json:"rendered"`
		Protected bool   `json:"protected"`
	} `json:"content"`
	Categories    []int64 `json:"categories"`
	Tags          []int64 `json:"tags"`
	FeaturedMedia int64   `json:"featured_media"`
	MenuOrder     int64   `json:"menu_order"`
}

type apiComment struct {
	ID     int64  `json:"id"`
	Parent int64  `json:"parent"`
	Type   string `json:"type"`
	Status string `json:"status"`
}

// one fetches a collection that must hold exactly one item.
func (e *env) one(path string) apiPost {
	e.t.Helper()
	var got []apiPost
	e.get(path, &got)
	if len(got) != 1 {
		e.t.Fatalf("GET %s: %d items, want 1", path, len(got))
	}
	return got[0]
}

// TestThemeUnitTestDataThroughTheAPI imports the Theme Unit Test data and
// checks, through the REST API, the cases that file exists for: the counts
// a real WordPress import gives, the sticky, password-protected and
// scheduled posts, the 9-level comment thread, the page trees (with Greek
// titles and slugs), formats and the many-terms posts.
func TestThemeUnitTestDataThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mustImport(wxrimport.Options{}, themeUnit)

	// A real WordPress shows 57 published posts: the 56 published ones of
	// the file (58 less a draft and a scheduled post) and its own "Hello
	// world!". A fresh Folio site has no post of its own.
	res := e.get("/posts?per_page=1", nil)
	if got := res.Header.Get("X-API-Total"); got != "56" {
		t.Errorf("anonymous posts total = %s, want 56", got)
	}
	res = e.get("/categories?per_page=1", nil)
	if got := res.Header.Get("X-API-Total"); got != "68" {
		t.Errorf("categories total = %s, want 68", got)
	}
	// 110 declared tags and 4 (columns, content, sample, test-tag) that
	// items use without declaring them, as WordPress's importer makes.
	res = e.get("/tags?per_page=1", nil)
	if got := res.Header.Get("X-API-Total"); got != "114" {
		t.Errorf("tags total = %s, want 114", got)
	}
	for _, slug := range []string{"columns", "content", "sample", "test-tag"} {
		var tags []map[string]any
		e.get("/tags?slug="+slug, &tags)
		if len(tags) != 1 {
			t.Errorf("undeclared tag %q: %d found", slug, len(tags))
		}
	}
	res = e.get("/pages?per_page=1", nil)
	if got := res.Header.Get("X-API-Total"); got != "21" {
		t.Errorf("pages total = %s, want 21", got)
	}

	// Every published post, for the sticky flag and the formats.
	var all []apiPost
	for p := 1; ; p++ {
		var page []apiPost
		e.get(fmt.Sprintf("/posts?per_page=100&page=%d", p), &page)
		all = append(all, page...)
		if len(page) < 100 {
			break
		}
	}
	var sticky []string
	formats := map[string]int{}
	for _, x := range all {
		if x.Sticky {
			sticky = append(sticky, x.Title.Rendered)
		}
		formats[x.Format]++
	}
	if len(sticky) != 1 || sticky[0] != "Template: Sticky" {
		t.Errorf("sticky posts = %q, want only Template: Sticky", sticky)
	}

	pw := e.one("/posts?slug=template-password-protected")
	if !pw.Content.Protected || pw.Content.Rendered != "" {
		t.Errorf("password post content = %+v, want protected and empty", pw.Content)
	}
	unlocked := apiPost{}
	e.get(fmt.Sprintf("/posts/%d?password=enter", pw.ID), &unlocked)
	if !strings.Contains(unlocked.Content.Rendered, "This content, comments, pingbacks, and trackbacks should not be visible until the password is entered.") {
		t.Errorf("unlocked content = %q", unlocked.Content.Rendered)
	}

	// The scheduled post (2030) is future and not visible anonymously.
	var future []apiPost
	e.get("/posts?slug=scheduled", &future)
	if len(future) != 0 {
		t.Errorf("anonymous sees the scheduled post: %+v", future)
	}
	sched, err := e.db.ListPosts(context.Background(), store.PostQuery{Types: []string{"post"}, Slugs: []string{"scheduled"}})
	if err != nil || len(sched) != 1 {
		t.Fatalf("scheduled post: %v, %v", sched, err)
	}
	if s := sched[0]; s.Status != "future" || s.DateGMT.Format(time.DateTime) != "2030-01-01 19:00:18" || s.Date.Format(time.DateTime) != "2030-01-01 12:00:18" {
		t.Errorf("scheduled post: status %s, date %v, date_gmt %v", s.Status, s.Date, s.DateGMT)
	}
	drafts, _ := e.db.CountPosts(context.Background(), store.PostQuery{Types: []string{"post"}, Statuses: []string{"draft"}})
	if drafts != 1 {
		t.Errorf("drafts = %d, want 1", drafts)
	}

	// Template: Comments: 9 levels of replies; trackbacks and pingbacks
	// keep their types, unapproved comments are held.
	cp := e.one("/posts?slug=template-comments")
	var comments []apiComment
	e.get(fmt.Sprintf("/comments?post=%d&per_page=100", cp.ID), &comments)
	parents := map[int64]int64{}
	for _, c := range comments {
		parents[c.ID] = c.Parent
	}
	depth := 0
	for id := range parents {
		d := 0
		for p := parents[id]; p != 0; p = parents[p] {
			d++
		}
		depth = max(depth, d)
	}
	if depth != 9 {
		t.Errorf("deepest reply chain = %d, want 9", depth)
	}
	for _, typ := range []string{"trackback", "pingback"} {
		n, _ := e.db.CountComments(context.Background(), store.CommentQuery{Types: []string{typ}})
		if n != 2 {
			t.Errorf("%ss = %d, want 2", typ, n)
		}
	}
	held, _ := e.db.CountComments(context.Background(), store.CommentQuery{Approved: []string{store.CommentHeld}})
	if held != 3 {
		t.Errorf("held comments = %d, want 3", held)
	}

	// Page tree Level 1 → 2 → 3, listed child first in the file.
	l1 := e.one("/pages?slug=level-1")
	l2 := e.one("/pages?slug=level-2")
	l3 := e.one("/pages?slug=level-3")
	if l1.Parent != 0 || l2.Parent != l1.ID || l3.Parent != l2.ID {
		t.Errorf("page tree: level-1 parent %d, level-2 parent %d (want %d), level-3 parent %d (want %d)", l1.Parent, l2.Parent, l1.ID, l3.Parent, l2.ID)
	}

	// Greek page tree: titles and percent-encoded slugs kept.
	g2 := e.one("/pages?slug=" + url.QueryEscape("%ce%b5%cf%80%ce%af%cf%80%ce%b5%ce%b4%ce%bf-2"))
	g3 := e.one("/pages?slug=" + url.QueryEscape("%ce%b5%cf%80%ce%af%cf%80%ce%b5%ce%b4%ce%bf-3"))
	if g2.Title.Rendered != "Επίπεδο 2 -Second Greek level" || g3.Title.Rendered != "Επίπεδο 3" || g3.Parent != g2.ID {
		t.Errorf("Greek pages: %q (id %d), %q (parent %d)", g2.Title.Rendered, g2.ID, g3.Title.Rendered, g3.Parent)
	}
	var g1 apiPost
	e.get(fmt.Sprintf("/pages/%d", g2.Parent), &g1)
	if g1.Title.Rendered != "Ελληνικά-Greek" {
		t.Errorf("Greek top page = %q", g1.Title.Rendered)
	}

	mc := e.one("/posts?slug=edge-case-many-categories")
	if len(mc.Categories) != 63 {
		t.Errorf("Many Categories has %d categories, want 63", len(mc.Categories))
	}
	mt := e.one("/posts?slug=edge-case-many-tags")
	if len(mt.Tags) != 45 {
		t.Errorf("Many Tags has %d tags, want 45", len(mt.Tags))
	}

	// The nine post formats, on 13 posts.
	want := map[string]int{"aside": 1, "audio": 1, "chat": 1, "gallery": 2, "image": 3, "link": 1, "quote": 1, "status": 1, "video": 2}
	for f, n := range want {
		if formats[f] != n {
			t.Errorf("format %s on %d posts, want %d (all: %v)", f, formats[f], n, formats)
		}
	}

	// Category hierarchy Parent → Child → Grandchild.
	var gc []map[string]any
	e.get("/categories?slug=grandchild-category", &gc)
	if len(gc) != 1 {
		t.Fatalf("grandchild category: %v", gc)
	}
	var child map[string]any
	e.get(fmt.Sprintf("/categories/%v", gc[0]["parent"]), &child)
	var parent map[string]any
	e.get(fmt.Sprintf("/categories/%v", child["parent"]), &parent)
	if child["slug"] != "child-category-03" || parent["slug"] != "parent-category" || parent["parent"] != float64(0) {
		t.Errorf("category chain: grandchild → %v → %v (parent %v)", child["slug"], parent["slug"], parent["parent"])
	}
}

// BenchmarkImportThemeUnitTestData measures a whole import of the Theme
// Unit Test data into a fresh site (run with -benchtime=1x for one import;
// docs/import-export.md has the numbers).
func BenchmarkImportThemeUnitTestData(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		e := bareSite(b, storetest.Open(b))
		b.StartTimer()
		if _, err := e.importFiles(context.Background(), wxrimport.Options{}, themeUnit); err != nil {
			b.Fatal(err)
		}
	}
}
