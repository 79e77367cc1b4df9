package wxrexport_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/wxrexport"
	"github.com/folio-server/folio/internal/wxrimport"
)

// TestExportImportExportRoundTrips exports a site, imports the file into an
// empty site with `folio import`'s importer and exports that site again:
// the two exports must say the same thing once ids (which the import
// renumbers), links and guids that embed ids, and modification dates are
// put aside. Every field the endpoints render from — content, terms and
// their hierarchy, page tree, statuses, dates, comments and their threads,
// meta, attachments — is in the comparison.
func TestExportImportExportRoundTrips(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	first := export(t, f.site, wxrexport.Options{})

	db := storetest.Open(t)
	site, err := content.NewSite(db, f.site.Config())
	if err != nil {
		t.Fatal(err)
	}
	im, err := wxrimport.New(ctx, site, wxrimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Import(ctx, "site.xml", bytes.NewReader(first), int64(len(first))); err != nil {
		t.Fatal(err)
	}
	if _, err := im.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	second := export(t, site, wxrexport.Options{})

	a, b := normalize(parse(t, first)), normalize(parse(t, second))
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		inA[x] = true
	}
	for _, y := range b {
		inB[y] = true
	}
	report := func(fact, what string) { t.Errorf("%s: %s", what, fact) }
	for _, x := range a {
		if !inB[x] {
			report(x, "lost in the round trip")
		}
	}
	for _, y := range b {
		if !inA[y] {
			report(y, "new after the round trip")
		}
	}
	if len(a) != len(b) {
		t.Errorf("first export has %d facts, second %d", len(a), len(b))
	}
}

// normalize turns an export into sorted lines of facts with every id
// replaced by what it names (a login, a slug, a post's type and slug, a
// comment's content).
func normalize(doc *rss) []string {
	ch := doc.Channel
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	logins := map[int64]string{}
	for _, a := range ch.Authors {
		logins[a.ID] = a.Login
		add("author %s %s %q %q %q", a.Login, a.Email, a.DisplayName, a.FirstName, a.LastName)
	}
	add("channel %q %q %q %s %s", ch.Title, ch.Description, ch.Language, ch.WXRVersion, ch.BaseSiteURL)
	for _, c := range ch.Categories {
		add("category %s parent=%q %q %q", c.Nicename, c.Parent, c.Name, c.Description)
	}
	for _, tg := range ch.Tags {
		add("tag %s %q %q", tg.Slug, tg.Name, tg.Description)
	}
	for _, tm := range ch.Terms {
		add("term %s %s parent=%q %q %q", tm.Taxonomy, tm.Slug, tm.Parent, tm.Name, tm.Description)
	}
	postKey := map[int64]string{}
	for _, it := range ch.Items {
		postKey[it.ID] = it.Type + ":" + it.Name + ":" + it.Title
	}
	idInURL := regexp.MustCompile(`([?&](p|page_id|attachment_id)=)\d+`)
	for _, it := range ch.Items {
		k := postKey[it.ID]
		sticky := -1
		if it.Sticky != nil {
			sticky = *it.Sticky
		}
		add("item %s status=%s parent=%s order=%d creator=%s date=%s gmt=%s pub=%s comments=%s pings=%s password=%q sticky=%d",
			k, it.Status, postKey[it.Parent], it.MenuOrder, it.Creator, it.Date, it.DateGMT, it.PubDate,
			it.CommentStatus, it.PingStatus, it.Password, sticky)
		add("item %s link=%s attachment=%s", k, idInURL.ReplaceAllString(it.Link, "${1}ID"), it.AttachmentURL)
		add("item %s content=%q excerpt=%q", k, it.Content, it.Excerpt)
		for _, c := range it.Categories {
			add("item %s category %s/%s %q", k, c.Domain, c.Nicename, c.Name)
		}
		for _, m := range it.Meta {
			v := m.Value
			switch m.Key {
			case "_thumbnail_id":
				var id int64
				fmt.Sscan(v, &id)
				v = postKey[id]
			case "_wp_trash_meta_time":
				continue // the modification date of the trashing
			case "_wp_trash_meta_comments_status":
				v = regexp.MustCompile(`i:\d+;`).ReplaceAllString(v, "i:ID;")
			}
			add("item %s meta %s=%q", k, m.Key, v)
		}
		contents := map[int64]string{}
		for _, c := range it.Comments {
			contents[c.ID] = c.Content
		}
		for _, c := range it.Comments {
			add("item %s comment %q parent=%q user=%s %q %s %s %s %s %s %s %s meta=%v", k, c.Content, contents[c.Parent],
				logins[c.UserID], c.Author, c.AuthorEmail, c.AuthorURL, c.AuthorIP, c.Date, c.DateGMT, c.Approved, c.Type, c.Meta)
		}
	}
	sort.Strings(out)
	return out
}

// The normalized facts must not be vacuous: the fixture's own export
// yields every kind of fact.
func TestNormalizeCoversEveryKind(t *testing.T) {
	f := newFixture(t)
	facts := strings.Join(normalize(parse(t, export(t, f.site, wxrexport.Options{}))), "\n")
	for _, want := range []string{"author editor", "category early parent=\"late\"", "term genre science-fiction parent=\"fiction\"",
		"category post_format/post-format-aside", "meta _thumbnail_id=\"attachment:photo:Photo\"", "comment \"A reply 🎉\" parent=\"First ]]> comment Καλή\" user=subscriber",
		"status=trash", "meta _wp_attachment_metadata="} {
		if !strings.Contains(facts, want) {
			t.Errorf("normalized export lacks %q", want)
		}
	}
}
