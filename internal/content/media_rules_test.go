package content_test

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// newMediaRules is a rules site with upload storage in a temporary folder
// and an allowlist that holds an active type (html) next to png and txt.
func newMediaRules(t *testing.T) *rules {
	t.Helper()
	r := newRulesWith(t, func(c *config.Config) { c.Media.AllowedTypes = []string{"png", "txt", "html"} })
	blobs, err := media.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r.site.SetBlobs(blobs)
	return r
}

// upload is data received as a raw upload named name.
func (r *rules) upload(name string, data []byte) content.Upload {
	r.t.Helper()
	f, err := os.CreateTemp(r.t.TempDir(), "upload-*")
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	if _, err := f.Write(data); err != nil {
		r.t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		r.t.Fatal(err)
	}
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	return content.Upload{Name: name, File: f, Size: int64(len(data)), Sum: md5.Sum(data), Head: head, Raw: true}
}

// media stores data as an attachment by role; it fails the test on error.
func (r *rules) media(role, name string, data []byte, in content.MediaInput) (*store.Post, *store.Media) {
	r.t.Helper()
	p, m, err := r.site.CreateMedia(r.ctx, r.users[role], r.upload(name, data), in, "http://example.com/uploads")
	if err != nil {
		r.t.Fatalf("upload %s as %s: %v", name, role, err)
	}
	return p, m
}

// wantError fails the test unless err is a content.Error with code and
// status; it returns the error.
func wantError(t *testing.T, err error, code string, status int) *content.Error {
	t.Helper()
	var ce *content.Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want %s (%d)", err, code, status)
	}
	if ce.Code != code || ce.Status != status || ce.Message == "" {
		t.Fatalf("error %s (%d) %q, want %s (%d) with a message", ce.Code, ce.Status, ce.Message, code, status)
	}
	return ce
}

// TestMediaUploadRefusesWhatNoRoleMayStore: the upload rules content
// applies itself (the controller checked upload_files): a parent that is a
// revision or an attachment, a Content-MD5 that does not match, an empty
// file, a type off the allowlist (with the raw upload's code, and the
// form upload's), content that is not what its name says. Nothing of a
// refused upload is stored.
func TestMediaUploadRefusesWhatNoRoleMayStore(t *testing.T) {
	t.Parallel()
	r := newMediaRules(t)
	png := testkit.PNG(4, 3)
	att, _ := r.media("author", "pic.png", png, content.MediaInput{})
	post := r.create("author", content.PostInput{Title: ptr("With revisions"), Status: ptr("publish")})
	if _, err := r.site.UpdatePost(r.ctx, r.users["author"], post, content.PostInput{Title: ptr("Changed")}); err != nil {
		t.Fatal(err)
	}
	revs, err := r.site.Revisions(r.ctx, post.ID)
	if err != nil || len(revs) == 0 {
		t.Fatalf("revisions: %v %v", revs, err)
	}
	before, _ := r.site.Storage().CountPosts(r.ctx, store.PostQuery{Types: []string{content.AttachmentType}})

	for _, parent := range []int64{att.ID, revs[0].ID} {
		_, _, err := r.site.CreateMedia(r.ctx, r.users["administrator"], r.upload("pic.png", png), content.MediaInput{Post: &parent}, "")
		ce := wantError(t, err, "rest_invalid_param", 400)
		if params, _ := ce.Data["params"].(map[string]any); params["post"] == nil {
			t.Errorf("parent %d: params %v do not name post", parent, ce.Data)
		}
		if err := r.site.CheckMediaParent(r.ctx, parent); errCode(err) != "rest_invalid_param" {
			t.Errorf("CheckMediaParent(%d) = %v", parent, err)
		}
	}
	for _, parent := range []int64{0, post.ID, 999999} {
		if err := r.site.CheckMediaParent(r.ctx, parent); err != nil {
			t.Errorf("CheckMediaParent(%d) = %v, want nil", parent, err)
		}
	}

	up := r.upload("pic.png", png)
	up.MD5 = hex.EncodeToString(make([]byte, md5.Size))
	_, _, err = r.site.CreateMedia(r.ctx, r.users["administrator"], up, content.MediaInput{}, "")
	wantError(t, err, "rest_upload_hash_mismatch", 412)
	up = r.upload("pic.png", png)
	up.MD5 = strings.ToUpper(hex.EncodeToString(up.Sum[:]))
	if _, _, err := r.site.CreateMedia(r.ctx, r.users["author"], up, content.MediaInput{}, ""); err != nil {
		t.Errorf("a matching Content-MD5 (any case) was refused: %v", err)
	}

	_, _, err = r.site.CreateMedia(r.ctx, r.users["administrator"], r.upload("empty.png", nil), content.MediaInput{}, "")
	wantError(t, err, "rest_upload_sideload_error", 500)
	form := r.upload("tool.exe", []byte("MZ binary"))
	form.Raw = false
	_, _, err = r.site.CreateMedia(r.ctx, r.users["administrator"], form, content.MediaInput{}, "")
	wantError(t, err, "rest_upload_unknown_error", 500)
	_, _, err = r.site.CreateMedia(r.ctx, r.users["administrator"], r.upload("shell.php", []byte("<?php echo 1;")), content.MediaInput{}, "")
	wantError(t, err, "rest_upload_invalid_type", 400)
	_, _, err = r.site.CreateMedia(r.ctx, r.users["administrator"], r.upload("notes.txt", []byte("<html><body><script>alert(1)</script></body></html>")), content.MediaInput{}, "")
	wantError(t, err, "rest_upload_sniffed_type_not_allowed", 400)

	after, _ := r.site.Storage().CountPosts(r.ctx, store.PostQuery{Types: []string{content.AttachmentType}})
	if after != before+1 {
		t.Errorf("attachments %d → %d: a refused upload was stored (only the matching MD5 one may be)", before, after)
	}
}

// TestMediaActiveTypesNeedUnfilteredHTML: an HTML file (on the allowlist)
// is stored for the roles with unfiltered_html and refused with
// rest_upload_invalid_type for the others.
func TestMediaActiveTypesNeedUnfilteredHTML(t *testing.T) {
	t.Parallel()
	r := newMediaRules(t)
	page := []byte("<!doctype html><title>x</title><p>page</p>")
	for _, tt := range []struct {
		role string
		ok   bool
	}{
		{"administrator", true},
		{"editor", true},
		{"author", false},
		{"contributor", false},
	} {
		if got := r.site.Can(r.ctx, r.users[tt.role], "unfiltered_html"); got != tt.ok {
			t.Fatalf("%s unfiltered_html = %v, want %v", tt.role, got, tt.ok)
		}
		p, _, err := r.site.CreateMedia(r.ctx, r.users[tt.role], r.upload("page.html", page), content.MediaInput{}, "")
		if !tt.ok {
			wantError(t, err, "rest_upload_invalid_type", 400)
			continue
		}
		if err != nil || p.MimeType != "text/html" || p.Author != r.users[tt.role].ID() {
			t.Errorf("%s: html upload = %+v, %v", tt.role, p, err)
		}
	}
}

// TestMediaRecordFollowsTheUploadRules: an attachment is "inherit" unless
// it is sent private (other statuses are ignored), is titled after its
// sanitized file name, keeps its alt text as plain text and its caption without scripts,
// and names a file stored in a year/month folder; an image gets its sizes.
func TestMediaRecordFollowsTheUploadRules(t *testing.T) {
	t.Parallel()
	r := newMediaRules(t)
	post := r.create("author", content.PostInput{Title: ptr("Parent"), Status: ptr("publish")})
	p, m := r.media("author", "Holiday Photo.png", testkit.PNG(300, 200), content.MediaInput{
		PostInput: content.PostInput{Status: ptr("publish")},
		AltText:   ptr("<b>A</b> beach"), Caption: ptr("Sun <script>alert(1)</script>"), Post: &post.ID,
	})
	if p.Type != content.AttachmentType || p.Status != "inherit" || p.Parent != post.ID || p.Title != "Holiday-Photo" {
		t.Errorf("attachment = type %s status %s parent %d title %q", p.Type, p.Status, p.Parent, p.Title)
	}
	if m.AltText != "A beach" || strings.Contains(p.Excerpt, "<script") || !strings.Contains(p.Excerpt, "Sun") {
		t.Errorf("alt %q, caption %q", m.AltText, p.Excerpt)
	}
	folder := r.now.Format("2006/01") + "/"
	if !strings.HasPrefix(m.File, folder) || !strings.HasSuffix(m.File, ".png") || p.GUID != "http://example.com/uploads/"+m.File {
		t.Errorf("file %q guid %q, want under %s", m.File, p.GUID, folder)
	}
	d := content.Details(m)
	if d.Width != 300 || d.Height != 200 || len(d.Sizes) == 0 {
		t.Errorf("details = %+v", d)
	}
	if ok, err := r.site.Blobs().Exists(r.ctx, m.File); err != nil || !ok {
		t.Errorf("file %s not stored: %v %v", m.File, ok, err)
	}
	if content.MediaType(p.MimeType) != "image" || content.MediaType("text/plain") != "file" {
		t.Errorf("media types: %s, %s", content.MediaType(p.MimeType), content.MediaType("text/plain"))
	}

	priv, _ := r.media("author", "secret.png", testkit.PNG(4, 4), content.MediaInput{PostInput: content.PostInput{Status: ptr("private")}})
	if priv.Status != "private" {
		t.Errorf("private upload status %s", priv.Status)
	}
	// The same name again gets a free variant; the first file stays.
	_, m2 := r.media("editor", "Holiday Photo.png", testkit.PNG(8, 8), content.MediaInput{})
	if m2.File == m.File {
		t.Errorf("second upload reuses %s", m.File)
	}
}

// TestMediaOfUnreadablePostsIsHidden: a file of an attachment is served
// (MediaFile) to exactly those who may read the post it is attached to:
// everyone for a published post, the author and editors for a draft or a
// private post; an unattached or unknown path is no one's.
func TestMediaOfUnreadablePostsIsHidden(t *testing.T) {
	t.Parallel()
	r := newMediaRules(t)
	pub := r.create("author", content.PostInput{Title: ptr("Pub"), Status: ptr("publish")})
	draft := r.create("author", content.PostInput{Title: ptr("Draft")})
	private := r.create("author", content.PostInput{Title: ptr("Private"), Status: ptr("private")})
	file := func(parent int64) string {
		_, m := r.media("author", "f.png", testkit.PNG(4, 4), content.MediaInput{Post: &parent})
		return m.File
	}
	everyone := []string{"", "subscriber", "contributor", "author", "editor", "administrator"}
	writers := []string{"author", "editor", "administrator"}
	for _, tt := range []struct {
		name, path string
		who        []string
	}{
		{"published", file(pub.ID), everyone},
		{"draft", file(draft.ID), writers},
		{"private", file(private.ID), writers},
		{"unattached", file(0), everyone},
	} {
		for _, role := range everyone {
			u := r.users[role] // nil: anonymous
			p, ok, err := r.site.MediaFile(r.ctx, u, tt.path)
			if err != nil || p == nil {
				t.Fatalf("%s as %q: %v %v", tt.name, role, p, err)
			}
			want := false
			for _, w := range tt.who {
				want = want || w == role
			}
			if ok != want {
				t.Errorf("%s media as %q: served %v, want %v", tt.name, role, ok, want)
			}
		}
	}
	for _, path := range []string{"nope.png", "2026/05/missing.png", ""} {
		if p, ok, err := r.site.MediaFile(r.ctx, r.users["administrator"], path); err != nil || ok || p != nil {
			t.Errorf("MediaFile(%q) = %v %v %v, want nothing", path, p, ok, err)
		}
	}
	vis := r.site.ParentVisibility(r.users["subscriber"])
	if vis["post"] == nil || vis["page"] == nil {
		t.Errorf("parent visibility lacks post or page: %v", vis)
	}
	if _, ok := vis[content.AttachmentType]; ok {
		t.Error("media can be attached to media")
	}
}

// TestMediaUpdateAndDelete: an update checks the parent as an upload
// does, refuses what is not an attachment, and sanitizes the alt text; a
// delete removes every file and the record.
func TestMediaUpdateAndDelete(t *testing.T) {
	t.Parallel()
	r := newMediaRules(t)
	p, m := r.media("author", "pic.png", testkit.PNG(300, 300), content.MediaInput{})
	other, _ := r.media("author", "other.png", testkit.PNG(4, 4), content.MediaInput{})
	post := r.create("author", content.PostInput{Title: ptr("Post"), Status: ptr("publish")})

	_, _, err := r.site.UpdateMedia(r.ctx, r.users["author"], p, m, content.MediaInput{Post: &other.ID})
	wantError(t, err, "rest_invalid_param", 400)
	_, _, err = r.site.UpdateMedia(r.ctx, r.users["author"], post, nil, content.MediaInput{AltText: ptr("x")})
	wantError(t, err, "rest_post_invalid_id", 400)

	up, um, err := r.site.UpdateMedia(r.ctx, r.users["author"], p, m, content.MediaInput{AltText: ptr("<i>New</i> alt"), Post: &post.ID,
		Description: ptr("<p>Desc</p><script>x()</script>")})
	if err != nil {
		t.Fatal(err)
	}
	if up.Parent != post.ID || um.AltText != "New alt" || strings.Contains(up.Content, "<script") || um.File != m.File {
		t.Errorf("updated: parent %d alt %q content %q file %q", up.Parent, um.AltText, up.Content, um.File)
	}
	stored, _ := r.site.GetMedia(r.ctx, []int64{p.ID})
	if stored[p.ID] == nil || stored[p.ID].AltText != "New alt" {
		t.Errorf("stored media = %+v", stored[p.ID])
	}

	files := []string{m.File}
	for _, s := range content.Details(m).Sizes {
		files = append(files, m.File[:strings.LastIndexByte(m.File, '/')+1]+s.File)
	}
	if len(files) < 2 {
		t.Fatalf("no sizes: %+v", content.Details(m))
	}
	if err := r.site.DeleteMedia(r.ctx, up); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if ok, err := r.site.Blobs().Exists(r.ctx, f); err != nil || ok {
			t.Errorf("%s still stored after the delete: %v %v", f, ok, err)
		}
	}
	if _, ok, _ := r.site.GetPost(r.ctx, p.ID); ok {
		t.Error("the attachment record survived its delete")
	}
	if _, ok, _ := r.site.MediaFile(r.ctx, r.users["administrator"], m.File); ok {
		t.Error("the deleted file is still served")
	}
}
