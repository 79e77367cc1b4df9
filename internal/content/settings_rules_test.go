package content_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// TestOnlyAdministratorsManageTheSettings: the settings route's capability,
// manage_options, belongs to administrators only.
func TestOnlyAdministratorsManageTheSettings(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	for _, role := range []string{"", "subscriber", "contributor", "author", "editor", "administrator"} {
		if got, want := r.site.Can(r.ctx, r.users[role], "manage_options"), role == "administrator"; got != want {
			t.Errorf("%q manage_options = %v, want %v", role, got, want)
		}
	}
}

// TestInvalidSettingsChangeNothing: each invalid value is refused with
// rest_invalid_param (400) naming exactly the invalid settings, and a
// change with one invalid value stores none of its values.
func TestInvalidSettingsChangeNothing(t *testing.T) {
	t.Parallel()
	r := newRules(t)
	tag, err := r.site.Storage().ListTerms(r.ctx, store.TermQuery{Taxonomy: "category", Limit: 1})
	if err != nil || len(tag) != 1 {
		t.Fatalf("default category: %v %v", tag, err)
	}
	tagTerm := &store.Term{Taxonomy: "post_tag", Name: "A tag", Slug: "a-tag"}
	if err := r.site.Storage().InsertTerm(r.ctx, tagTerm); err != nil {
		t.Fatal(err)
	}
	before, err := r.site.Settings(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", content.MaxSettingTextLength+1)
	for _, tt := range []struct {
		name  string
		patch content.SettingsPatch
		bad   []string
	}{
		{"long title", content.SettingsPatch{Title: &long, Description: ptr("ok")}, []string{"title"}},
		{"long description", content.SettingsPatch{Description: &long}, []string{"description"}},
		{"unknown zone", content.SettingsPatch{Timezone: ptr("Mars/Olympus")}, []string{"timezone"}},
		{"zone syntax", content.SettingsPatch{Timezone: ptr("../etc/passwd")}, []string{"timezone"}},
		{"local zone", content.SettingsPatch{Timezone: ptr("Local")}, []string{"timezone"}},
		{"comment status", content.SettingsPatch{DefaultCommentStatus: ptr("maybe"), DefaultPingStatus: ptr("closed")}, []string{"default_comment_status"}},
		{"ping status", content.SettingsPatch{DefaultPingStatus: ptr("")}, []string{"default_ping_status"}},
		{"category zero", content.SettingsPatch{DefaultCategory: ptr(int64(0))}, []string{"default_category"}},
		{"category missing", content.SettingsPatch{DefaultCategory: ptr(int64(987654))}, []string{"default_category"}},
		{"category is a tag", content.SettingsPatch{DefaultCategory: &tagTerm.ID}, []string{"default_category"}},
		{"negative links", content.SettingsPatch{CommentMaxLinks: ptr(int64(-1))}, []string{"comment_max_links"}},
		{"unknown reset", content.SettingsPatch{Reset: []string{"title", "colour"}}, []string{"colour"}},
		{"several", content.SettingsPatch{Title: ptr("Fine"), Timezone: ptr("Nowhere"), CommentMaxLinks: ptr(int64(-5))}, []string{"comment_max_links", "timezone"}},
	} {
		_, err := r.site.UpdateSettings(r.ctx, tt.patch)
		ce := wantError(t, err, "rest_invalid_param", 400)
		params, _ := ce.Data["params"].(map[string]any)
		var got []string
		for name, why := range params {
			if s, _ := why.(string); s == "" {
				t.Errorf("%s: no reason for %s", tt.name, name)
			}
			got = append(got, name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.bad) || !strings.Contains(ce.Message, tt.bad[0]) {
			t.Errorf("%s: invalid %v (%q), want %v", tt.name, got, ce.Message, tt.bad)
		}
	}
	after, err := r.site.Settings(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Title != before.Title || after.Description != before.Description || after.Timezone != before.Timezone || len(after.Stored) != 0 {
		t.Errorf("a refused change was stored: %+v", after)
	}
}

// TestStoredSettingsOverrideTheFileUntilReset: a valid change is stored
// (text cleaned), is what the site then uses (comment status of new
// posts, their default category, their dates' time zone), lists the stored
// names, merges with later changes, and a reset gives the configuration
// file's value back. A stored value that no longer passes the rules is
// ignored.
func TestStoredSettingsOverrideTheFileUntilReset(t *testing.T) {
	t.Parallel()
	r := newRulesWith(t, func(c *config.Config) { c.Site.Title = "From the file"; c.Site.Timezone = "UTC" })
	cat := &store.Term{Taxonomy: "category", Name: "News", Slug: "news"}
	if err := r.site.Storage().InsertTerm(r.ctx, cat); err != nil {
		t.Fatal(err)
	}
	st, err := r.site.UpdateSettings(r.ctx, content.SettingsPatch{
		Title: ptr("  New <b>title</b>  "), Timezone: ptr("Europe/Paris"), DefaultCategory: &cat.ID,
		DefaultCommentStatus: ptr("closed"), CommentMaxLinks: ptr(int64(0)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Title != "New title" || st.Timezone != "Europe/Paris" || st.Location().String() != "Europe/Paris" || st.DefaultCategory != cat.ID ||
		st.DefaultCommentStatus != "closed" || st.CommentMaxLinks != 0 {
		t.Errorf("effective settings = %+v", st)
	}
	if want := []string{"comment_max_links", "default_category", "default_comment_status", "timezone", "title"}; !slices.Equal(st.Stored, want) {
		t.Errorf("stored = %v, want %v", st.Stored, want)
	}
	if fs := r.site.FileSettings(); fs.Title != "From the file" || fs.Timezone != "UTC" || len(fs.Stored) != 0 {
		t.Errorf("file settings changed: %+v", fs)
	}

	p := r.create("author", content.PostInput{Title: ptr("After"), Status: ptr("publish")})
	if p.CommentStatus != "closed" {
		t.Errorf("new post comment_status %s, want the stored closed", p.CommentStatus)
	}
	paris := r.now.In(st.Location())
	if p.Date.Hour() != paris.Hour() || !p.DateGMT.Equal(r.now) {
		t.Errorf("new post dated %v (GMT %v), want the Paris wall clock %v", p.Date, p.DateGMT, paris)
	}
	terms, err := r.site.Storage().PostTerms(r.ctx, []int64{p.ID}, []string{"category"})
	if err != nil || len(terms[p.ID]) != 1 || terms[p.ID][0].ID != cat.ID {
		t.Errorf("new post categories = %v %v, want the stored default %d", terms[p.ID], err, cat.ID)
	}
	page, _, err := r.site.CreatePost(r.ctx, r.users["editor"], r.typ("page"), content.PostInput{Title: ptr("Page"), Status: ptr("publish")}, "")
	if err != nil || page.CommentStatus != "closed" {
		t.Errorf("page comment_status = %v %v, want closed (pages never open)", page, err)
	}

	// A later change merges; a reset gives the file's value back.
	st, err = r.site.UpdateSettings(r.ctx, content.SettingsPatch{Description: ptr("Tagline"), Reset: []string{"title", "timezone"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Title != "From the file" || st.Timezone != "UTC" || st.Description != "Tagline" || st.DefaultCommentStatus != "closed" {
		t.Errorf("after reset: %+v", st)
	}
	if want := []string{"comment_max_links", "default_category", "default_comment_status", "description"}; !slices.Equal(st.Stored, want) {
		t.Errorf("stored after reset = %v, want %v", st.Stored, want)
	}
	if last := r.site.LastSettings(); last.Description != "Tagline" {
		t.Errorf("last settings = %+v", last)
	}

	// A stored value edited by hand that no longer passes is ignored.
	if err := r.site.Storage().SetOption(r.ctx, content.SettingsOption, `{"title":"Hand","timezone":"Not/AZone","default_comment_status":"sometimes"}`); err != nil {
		t.Fatal(err)
	}
	st, err = r.site.Settings(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Title != "Hand" || st.Timezone != "UTC" || st.DefaultCommentStatus != "open" || !slices.Equal(st.Stored, []string{"title"}) {
		t.Errorf("hand-edited settings = %+v", st)
	}
	if _, err := content.LoadTimezone("Europe/Paris"); err != nil {
		t.Errorf("LoadTimezone(Europe/Paris) = %v", err)
	}
	for _, bad := range []string{"", "Local", strings.Repeat("A", 65), "Europe/Nowhere"} {
		if _, err := content.LoadTimezone(bad); err == nil {
			t.Errorf("LoadTimezone(%q) accepted", bad)
		}
	}
}
