package endpoints_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

const mediaPath = "/api/svc/v2/media"

// mediaEnv is an env whose uploads go to a temporary directory.
type mediaEnv struct {
	*env
	uploads string
	cfg     *config.Config
}

func newMediaEnv(t *testing.T, mutate ...func(*config.Config)) *mediaEnv {
	t.Helper()
	dir := t.TempDir()
	var cfg *config.Config
	e := newEnv(t, append([]func(*config.Config){func(c *config.Config) {
		c.DataDir = dir
		c.Media.MaxImagePixels = 20_000_000
		c.Media.ImageWorkers = 2
		cfg = c
	}}, mutate...)...)
	return &mediaEnv{env: e, uploads: filepath.Join(dir, "uploads"), cfg: cfg}
}

func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	return img
}

func pngOf(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, testImage(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// 1×1 lossy WebP.
var webpTiny = []byte("RIFF\x22\x00\x00\x00WEBPVP8 \x16\x00\x00\x00\x30\x01\x00\x9d\x01\x2a\x01\x00\x01\x00\x0e\xc0\xfe\x25\xa4\x00\x03\x70\x00\x00\x00\x00")

// uploadRaw posts data as a raw body with the given headers.
func (e *mediaEnv) uploadRaw(login, query string, data []byte, headers ...string) *testkit.Response {
	e.T.Helper()
	args := []any{data}
	for _, h := range headers {
		args = append(args, h)
	}
	return e.do("POST", mediaPath+query, login, args...)
}

// uploadForm posts a multipart form with the file in part "file".
func (e *mediaEnv) uploadForm(login, filename string, data []byte, fields map[string]string, headers ...string) *testkit.Response {
	e.T.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
	h.Set("Content-Type", "application/octet-stream")
	pw, err := mw.CreatePart(h)
	if err != nil {
		e.T.Fatal(err)
	}
	_, _ = pw.Write(data)
	_ = mw.Close()
	args := []any{b.Bytes(), "Content-Type", mw.FormDataContentType()}
	for _, h := range headers {
		args = append(args, h)
	}
	return e.do("POST", mediaPath, login, args...)
}

func (e *mediaEnv) png(login, name string, w, h int, query string) map[string]any {
	e.T.Helper()
	r := e.uploadRaw(login, query, pngOf(e.T, w, h), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="`+name+`"`)
	r.WantStatus(201)
	return r.Object()
}

func monthFolder() string {
	n := time.Now().UTC()
	return fmt.Sprintf("%04d/%02d", n.Year(), int(n.Month()))
}

func (e *mediaEnv) files() []string {
	var out []string
	_ = filepath.Walk(e.uploads, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(e.uploads, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestMediaUploadRawImageFieldsAndSizes(t *testing.T) {
	e := newMediaEnv(t)
	r := e.uploadRaw("author", "?alt_text=%3Cscript%3Ex%3C/script%3EA%20gradient&caption=Cap%20%3Cb%3Eok%3C/b%3E", pngOf(t, 1200, 800),
		"Content-Type", "image/png", "Content-Disposition", `attachment; filename="Oracle Landscape.PNG"`)
	r.WantStatus(201)
	m := r.Object()
	id := m["id"].(float64)
	if r.Header.Get("Location") != e.URL+mediaPath+"/"+fmt.Sprint(id) {
		t.Fatalf("Location = %q", r.Header.Get("Location"))
	}
	folder := monthFolder()
	file := folder + "/Oracle-Landscape.png"
	if m["type"] != "attachment" || m["status"] != "inherit" || m["media_type"] != "image" || m["mime_type"] != "image/png" {
		t.Fatalf("record = %s", r.Body)
	}
	if m["title"].(map[string]any)["raw"] != "Oracle-Landscape" {
		t.Errorf("title = %v, want the file name without extension", m["title"])
	}
	if m["alt_text"] != "A gradient" {
		t.Errorf("alt_text = %q, want plain text", m["alt_text"])
	}
	if m["caption"] != "Cap <b>ok</b>" {
		t.Errorf("caption = %v", m["caption"])
	}
	if m["post"] != nil {
		t.Errorf("post = %v, want null", m["post"])
	}
	if m["source_url"] != e.URL+"/uploads/"+file {
		t.Errorf("source_url = %v", m["source_url"])
	}
	d := m["media_details"].(map[string]any)
	if d["width"] != float64(1200) || d["height"] != float64(800) || d["file"] != file {
		t.Errorf("media_details = %v", d)
	}
	sizes := d["sizes"].(map[string]any)
	want := map[string][2]float64{"thumbnail": {150, 150}, "medium": {300, 200}, "medium_large": {768, 512}, "large": {1024, 683}, "full": {1200, 800}}
	if len(sizes) != len(want) {
		t.Fatalf("sizes = %v", keys(sizes))
	}
	for name, wh := range want {
		s := sizes[name].(map[string]any)
		if s["width"] != wh[0] || s["height"] != wh[1] || s["mime_type"] != "image/png" {
			t.Errorf("size %s = %v", name, s)
		}
		if !strings.HasPrefix(s["source_url"].(string), e.URL+"/uploads/"+folder+"/Oracle-Landscape") {
			t.Errorf("size %s source_url = %v", name, s["source_url"])
		}
	}
	if !strings.Contains(string(r.Body), `"sizes":{"thumbnail":{"file":"Oracle-Landscape-150x150.png","width":150,"height":150,"mime_type":"image/png","source_url"`) {
		t.Errorf("sizes not in the original's order: %s", r.Body)
	}
	meta := d["image_meta"].(map[string]any)
	if meta["aperture"] != "0" || meta["orientation"] != "0" || len(meta["keywords"].([]any)) != 0 {
		t.Errorf("image_meta = %v", meta)
	}
	wantFiles := []string{file, folder + "/Oracle-Landscape-1024x683.png", folder + "/Oracle-Landscape-150x150.png",
		folder + "/Oracle-Landscape-300x200.png", folder + "/Oracle-Landscape-768x512.png"}
	sort.Strings(wantFiles)
	if got := e.files(); strings.Join(got, ",") != strings.Join(wantFiles, ",") {
		t.Errorf("files = %v, want %v", got, wantFiles)
	}
	// The same name again gets a unique name in the month folder.
	m2 := e.png("author", "Oracle Landscape.png", 200, 100, "")
	if f := m2["media_details"].(map[string]any)["file"]; f != folder+"/Oracle-Landscape-1.png" {
		t.Errorf("second file = %v", f)
	}
	// Embed context keeps the embed fields.
	g := e.do("GET", fmt.Sprintf("%s/%v?context=embed", mediaPath, id), "")
	g.WantStatus(200)
	em := g.Object()
	for _, k := range []string{"id", "date", "slug", "type", "link", "title", "author", "alt_text", "media_type", "mime_type", "media_details", "source_url"} {
		if _, ok := em[k]; !ok {
			t.Errorf("embed context lacks %s", k)
		}
	}
	for _, k := range []string{"caption", "description", "post", "status"} {
		if _, ok := em[k]; ok {
			t.Errorf("embed context has %s", k)
		}
	}
}

func TestMediaUploadFormatsAndSmallImages(t *testing.T) {
	e := newMediaEnv(t)
	cases := []struct {
		name, ctype string
		data        []byte
		mediaType   string
		mime        string
		sizes       []string
		w, h        float64
	}{
		{"photo.jpg", "image/jpeg", jpegOf(t, 800, 1200), "image", "image/jpeg", []string{"full", "large", "medium", "medium_large", "thumbnail"}, 800, 1200},
		{"anim.gif", "image/gif", gifOf(t, 400, 100), "image", "image/gif", []string{"full", "medium", "thumbnail"}, 400, 100},
		{"tiny.png", "image/png", pngOf(t, 100, 80), "image", "image/png", []string{}, 100, 80},
		{"dot.webp", "image/webp", webpTiny, "image", "image/webp", []string{}, 1, 1},
		{"readme.txt", "text/plain", []byte("hello world"), "file", "text/plain", nil, 0, 0},
		// The content decides: a PNG named .jpg is stored as .png.
		{"liar.jpg", "image/jpeg", pngOf(t, 160, 160), "image", "image/png", []string{"full", "thumbnail"}, 160, 160},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.uploadRaw("editor", "", tc.data, "Content-Type", tc.ctype, "Content-Disposition", `attachment; filename="`+tc.name+`"`)
			r.WantStatus(201)
			m := r.Object()
			if m["media_type"] != tc.mediaType || m["mime_type"] != tc.mime {
				t.Fatalf("media_type %v mime_type %v", m["media_type"], m["mime_type"])
			}
			d := m["media_details"].(map[string]any)
			if tc.sizes == nil {
				if len(d) != 0 {
					t.Fatalf("media_details of a file = %v, want {}", d)
				}
				return
			}
			if d["width"] != tc.w || d["height"] != tc.h {
				t.Errorf("dims = %v x %v", d["width"], d["height"])
			}
			got := keys(d["sizes"].(map[string]any))
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tc.sizes, ",") {
				t.Errorf("sizes = %v, want %v", got, tc.sizes)
			}
		})
	}
}

func TestMediaContentDispositionForms(t *testing.T) {
	e := newMediaEnv(t)
	data := []byte("plain text file")
	cases := []struct {
		disposition string
		file        string
	}{
		{`attachment; filename="report.txt"`, "report.txt"},
		{`attachment; filename=report2.txt`, "report2.txt"},
		{`inline; filename="inline.txt"`, "inline.txt"},
		{"attachment; filename = my foo notes.txt", "my-foo-notes.txt"},
		{`attachment; filename="../../etc/evil.txt"`, "evil.txt"},
		{`attachment; filename="EURO rates.txt"; filename*=utf-8''%e2%82%ac%20rates.txt`, "€-rates.txt"},
		{`attachment; filename*=UTF-8''na%C3%AFve.txt`, "naïve.txt"},
		{`unknown; filename="strange<>|name.txt"`, "strangename.txt"},
	}
	for _, tc := range cases {
		r := e.uploadRaw("author", "", data, "Content-Type", "text/plain", "Content-Disposition", tc.disposition)
		r.WantStatus(201)
		if f := r.Object()["source_url"].(string); !strings.HasSuffix(f, "/"+monthFolder()+"/"+tc.file) {
			t.Errorf("%s: source_url = %s, want file %s", tc.disposition, f, tc.file)
		}
	}
	// Missing parts of a raw upload.
	e.uploadRaw("author", "", nil, "Content-Type", "text/plain", "Content-Disposition", `attachment; filename="a.txt"`).WantError(400, "rest_upload_no_data")
	req, _ := http.NewRequest("POST", e.URL+mediaPath, bytes.NewReader(data))
	req.SetBasicAuth("author", e.Users["author"].AppPassword)
	req.Header.Set("Content-Disposition", `attachment; filename="a.txt"`)
	res, err := e.HTTP.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("no Content-Type: %d", res.StatusCode)
	}
	e.uploadRaw("author", "", data, "Content-Type", "text/plain").WantError(400, "rest_upload_no_content_disposition")
	e.uploadRaw("author", "", data, "Content-Type", "text/plain", "Content-Disposition", `filename="foo.txt"`).WantError(400, "rest_upload_invalid_disposition")
	e.uploadRaw("author", "", data, "Content-Type", "text/plain", "Content-Disposition", `attachment`).WantError(400, "rest_upload_invalid_disposition")
	// A plain HTML form submission.
	r := e.uploadForm("author", "form file.txt", data, map[string]string{"title": "From a form", "alt_text": "alt"})
	r.WantStatus(201)
	m := r.Object()
	if m["title"].(map[string]any)["raw"] != "From a form" || m["alt_text"] != "alt" || !strings.HasSuffix(m["source_url"].(string), "/form-file.txt") {
		t.Errorf("form upload = %s", r.Body)
	}
}

func TestMediaContentMD5(t *testing.T) {
	e := newMediaEnv(t)
	data := pngOf(t, 20, 20)
	sum := md5.Sum(data)
	good := hex.EncodeToString(sum[:])
	hdr := []string{"Content-Type", "image/png", "Content-Disposition", `attachment; filename="a.png"`}
	e.uploadRaw("author", "", data, append(hdr, "Content-MD5", "  "+good+" ")...).WantStatus(201)
	e.uploadRaw("author", "", data, append(hdr, "Content-MD5", strings.ToUpper(good))...).WantStatus(201)
	e.uploadRaw("author", "", data, append(hdr, "Content-MD5", "0123456789abcdef0123456789abcdef")...).WantError(412, "rest_upload_hash_mismatch")
	e.uploadForm("author", "b.png", data, nil, "Content-MD5", good).WantStatus(201)
	e.uploadForm("author", "b.png", data, nil, "Content-MD5", "bad").WantError(412, "rest_upload_hash_mismatch")
	// Only the accepted uploads left files (an image and its thumbnail... none here: 20×20).
	if n := len(e.files()); n != 3 {
		t.Errorf("files = %v, want 3", e.files())
	}
}

func TestMediaCreatePermissionsByRole(t *testing.T) {
	e := newMediaEnv(t)
	data := []byte("text")
	hdr := []string{"Content-Type", "text/plain", "Content-Disposition", `attachment; filename="a.txt"`}
	for _, tc := range []struct {
		role   string
		status int
		code   string
	}{
		{"administrator", 201, ""}, {"editor", 201, ""}, {"author", 201, ""},
		{"contributor", 403, "rest_cannot_create"}, {"subscriber", 403, "rest_cannot_create"}, {"", 401, "rest_cannot_create"},
	} {
		r := e.uploadRaw(tc.role, "", data, hdr...)
		if tc.code != "" {
			r.WantError(tc.status, tc.code)
			continue
		}
		r.WantStatus(tc.status)
		if r.Object()["author"] != float64(e.ID(tc.role)) {
			t.Errorf("%s: author = %v", tc.role, r.Object()["author"])
		}
	}
	// Rule 2: the parent must be editable by the caller.
	editorsPost := e.createPost("editor", "post", map[string]any{"title": "Editor's"})
	authorsPost := e.createPost("author", "post", map[string]any{"title": "Author's"})
	e.uploadRaw("author", fmt.Sprintf("?post=%d", editorsPost.ID), data, hdr...).WantError(403, "rest_cannot_edit")
	e.uploadRaw("author", "?post=99999", data, hdr...).WantError(403, "rest_cannot_edit")
	r := e.uploadRaw("author", fmt.Sprintf("?post=%d", authorsPost.ID), data, hdr...)
	r.WantStatus(201)
	if r.Object()["post"] != float64(authorsPost.ID) {
		t.Errorf("post = %v", r.Object()["post"])
	}
	attachment := int64(r.Object()["id"].(float64))
	e.uploadRaw("editor", fmt.Sprintf("?post=%d", editorsPost.ID), data, hdr...).WantStatus(201)
	// Rule 3: a parent that is an attachment or a revision.
	e.uploadRaw("editor", fmt.Sprintf("?post=%d", attachment), data, hdr...).WantError(400, "rest_invalid_param")
	e.do("POST", posts+fmt.Sprintf("/%d", editorsPost.ID), "editor", map[string]any{"title": "Changed"}).WantStatus(200)
	revs := e.do("GET", posts+fmt.Sprintf("/%d/revisions", editorsPost.ID), "editor")
	revs.WantStatus(200)
	if list := revs.Array(); len(list) > 0 {
		rev := int64(list[0].(map[string]any)["id"].(float64))
		e.uploadRaw("editor", fmt.Sprintf("?post=%d", rev), data, hdr...).WantError(400, "rest_invalid_param")
		e.do("POST", fmt.Sprintf("%s/%d", mediaPath, attachment), "editor", map[string]any{"post": rev}).WantError(400, "rest_invalid_param")
	}
	e.do("POST", fmt.Sprintf("%s/%d", mediaPath, attachment), "editor", map[string]any{"post": attachment}).WantError(400, "rest_invalid_param")
	// Update and delete follow edit_post / delete_post.
	e.do("POST", fmt.Sprintf("%s/%d", mediaPath, attachment), "contributor", map[string]any{"alt_text": "x"}).WantError(403, "rest_cannot_edit")
	e.do("POST", fmt.Sprintf("%s/%d", mediaPath, attachment), "", map[string]any{"alt_text": "x"}).WantError(401, "rest_cannot_edit")
	e.do("DELETE", fmt.Sprintf("%s/%d?force=true", mediaPath, attachment), "subscriber").WantError(403, "rest_cannot_delete")
}

func TestMediaRefusedFileTypes(t *testing.T) {
	e := newMediaEnv(t)
	// Types the allowlist does not have: the original's 500.
	cases := []struct{ name, ctype, body string }{
		{"page.html", "text/html", "<html><body>hi</body></html>"},
		{"logo.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`},
		{"setup.exe", "application/octet-stream", "MZ\x90\x00\x03"},
	}
	for _, tc := range cases {
		m := e.uploadRaw("administrator", "", []byte(tc.body), "Content-Type", tc.ctype, "Content-Disposition", `attachment; filename="`+tc.name+`"`).
			WantError(500, "rest_upload_sideload_error")
		if !strings.Contains(m["message"].(string), "not permitted for security reasons") {
			t.Errorf("%s: message %v", tc.name, m["message"])
		}
		e.uploadForm("administrator", tc.name, []byte(tc.body), nil).WantError(500, "rest_upload_unknown_error")
	}
	// Content of an active kind under another type: 400 for everyone.
	sneaky := []struct{ name, ctype, body string }{
		{"sneaky.txt", "text/plain", "<html><script>alert(1)</script></html>"},
		{"sneaky.jpg", "image/jpeg", `<svg xmlns="http://www.w3.org/2000/svg"/>`},
	}
	for _, tc := range sneaky {
		e.uploadRaw("administrator", "", []byte(tc.body), "Content-Type", tc.ctype, "Content-Disposition", `attachment; filename="`+tc.name+`"`).
			WantError(400, "rest_upload_sniffed_type_not_allowed")
		e.uploadForm("administrator", tc.name, []byte(tc.body), nil).WantError(400, "rest_upload_sniffed_type_not_allowed")
	}
	m := e.uploadForm("administrator", "empty.txt", nil, nil).WantError(500, "rest_upload_unknown_error")
	if !strings.Contains(m["message"].(string), "File is empty") {
		t.Errorf("empty message %v", m["message"])
	}
	// A decompression bomb's header is refused before decoding.
	bomb := pngOf(t, 4, 4)
	bomb[16], bomb[17], bomb[18], bomb[19] = 0, 1, 0, 0 // width 65536
	bomb[20], bomb[21], bomb[22], bomb[23] = 0, 1, 0, 0 // height 65536
	e.uploadRaw("administrator", "", bomb, "Content-Type", "image/png", "Content-Disposition", `attachment; filename="bomb.png"`).WantError(500, "rest_upload_sideload_error")
	if files := e.files(); len(files) != 0 {
		t.Errorf("refused uploads left files: %v", files)
	}
	// The allowlist is configurable: HTML opted in.
	e2 := newMediaEnv(t, func(c *config.Config) { c.Media.AllowedTypes = []string{"html", "txt"} })
	e2.uploadRaw("administrator", "", []byte("<html></html>"), "Content-Type", "text/html", "Content-Disposition", `attachment; filename="ok.html"`).WantStatus(201)
	e2.uploadRaw("administrator", "", pngOf(t, 4, 4), "Content-Type", "image/png", "Content-Disposition", `attachment; filename="a.png"`).WantError(500, "rest_upload_sideload_error")
}

// mediaIDs lists the ids of the media collection as login sees it.
func (e *mediaEnv) mediaIDs(login, query string) ([]int64, string) {
	e.T.Helper()
	r := e.do("GET", mediaPath+query, login)
	r.WantStatus(200)
	got := ids(r.Array())
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	return got, r.Header.Get("X-API-Total")
}

// TestMediaOfPrivateAndDraftPostsIsPrivate also checks the media collection's
// status rule: unknown statuses are discarded, private and trash need
// edit_posts.
func TestMediaOfPrivateAndDraftPostsIsPrivate(t *testing.T) {
	e := newMediaEnv(t)
	public := e.createPost("editor", "post", map[string]any{"title": "Public"})
	private := e.createPost("editor", "post", map[string]any{"title": "Private", "status": "private"})
	draft := e.createPost("editor", "post", map[string]any{"title": "Draft", "status": "draft"})
	ownDraft := e.createPost("author", "post", map[string]any{"title": "Own draft", "status": "draft"})
	id := func(m map[string]any) int64 { return int64(m["id"].(float64)) }
	free := id(e.png("editor", "free.png", 10, 10, ""))
	onPublic := id(e.png("editor", "pub.png", 10, 10, fmt.Sprintf("?post=%d", public.ID)))
	onPrivate := id(e.png("editor", "priv.png", 10, 10, fmt.Sprintf("?post=%d", private.ID)))
	onDraft := id(e.png("editor", "draft.png", 10, 10, fmt.Sprintf("?post=%d", draft.ID)))
	onOwnDraft := id(e.png("author", "own.png", 10, 10, fmt.Sprintf("?post=%d", ownDraft.ID)))
	all := []int64{free, onPublic, onPrivate, onDraft, onOwnDraft}
	visible := map[string][]int64{
		"administrator": all, "editor": all,
		"author":      {free, onPublic, onOwnDraft},
		"contributor": {free, onPublic},
		"subscriber":  {free, onPublic},
		"":            {free, onPublic},
	}
	for _, role := range allRoles {
		got, total := e.mediaIDs(role, "?per_page=100")
		if fmt.Sprint(got) != fmt.Sprint(visible[role]) || total != fmt.Sprint(len(visible[role])) {
			t.Errorf("%q: collection = %v (total %s), want %v", role, got, total, visible[role])
		}
		// A small page makes the total come from the count query.
		_, total = e.mediaIDs(role, "?per_page=1")
		if total != fmt.Sprint(len(visible[role])) {
			t.Errorf("%q: paged total = %s, want %d", role, total, len(visible[role]))
		}
		can := map[int64]bool{}
		for _, v := range visible[role] {
			can[v] = true
		}
		for _, m := range all {
			r := e.do("GET", fmt.Sprintf("%s/%d", mediaPath, m), role)
			switch {
			case can[m]:
				r.WantStatus(200)
			case role == "":
				r.WantError(401, "rest_forbidden")
			default:
				r.WantError(403, "rest_forbidden")
			}
		}
	}
	// Through _embed: a public post whose featured media belongs to a draft.
	shown := e.createPost("editor", "post", map[string]any{"title": "Shows a draft's image", "featured_media": onDraft})
	for _, role := range []string{"", "subscriber", "editor"} {
		r := e.do("GET", fmt.Sprintf("%s/%d?_embed", posts, shown.ID), role)
		r.WantStatus(200)
		emb := r.Object()["_embedded"].(map[string]any)["wp:featuredmedia"].([]any)[0].(map[string]any)
		if role == "editor" {
			if emb["id"] != float64(onDraft) {
				t.Errorf("editor embed = %v", emb)
			}
		} else if emb["code"] != "rest_forbidden" {
			t.Errorf("%q embed = %v, want an error object", role, emb)
		}
	}
	// Filters: parent, media_type, mime_type, status.
	if got, _ := e.mediaIDs("", fmt.Sprintf("?parent=%d", public.ID)); fmt.Sprint(got) != fmt.Sprint([]int64{onPublic}) {
		t.Errorf("parent filter = %v", got)
	}
	if got, _ := e.mediaIDs("", fmt.Sprintf("?parent=%d", private.ID)); len(got) != 0 {
		t.Errorf("parent filter shows private media: %v", got)
	}
	e.uploadRaw("editor", "", []byte("txt"), "Content-Type", "text/plain", "Content-Disposition", `attachment; filename="n.txt"`).WantStatus(201)
	if got, _ := e.mediaIDs("", "?media_type=image&per_page=100"); len(got) != 2 {
		t.Errorf("media_type=image = %v", got)
	}
	if got, _ := e.mediaIDs("", "?media_type=text"); len(got) != 1 {
		t.Errorf("media_type=text = %v", got)
	}
	if got, _ := e.mediaIDs("", "?mime_type=text/plain"); len(got) != 1 {
		t.Errorf("mime_type = %v", got)
	}
	e.do("GET", mediaPath+"?media_type=nope", "").WantError(400, "rest_invalid_param")
	// A status media cannot have is discarded: the inherit ones are
	// listed (reference §6), for everybody.
	for _, login := range []string{"", "editor"} {
		all, _ := e.mediaIDs(login, "")
		for _, st := range []string{"publish", "draft", "nonsense"} {
			if got, _ := e.mediaIDs(login, "?status="+st); !slices.Equal(got, all) {
				t.Errorf("status=%s as %q: %v, want the inherit ones %v", st, login, got, all)
			}
		}
	}
	e.do("GET", mediaPath+"?status=private", "").WantError(400, "rest_invalid_param")
	e.do("GET", mediaPath+"?status=private", "editor").WantStatus(200)
}

func TestMediaUpdateKeepsTitleAndCaption(t *testing.T) {
	e := newMediaEnv(t)
	m := e.png("author", "keep.png", 10, 10, "?title=Kept%20title&caption=Kept%20caption&description=Desc")
	path := fmt.Sprintf("%s/%v", mediaPath, m["id"])
	r := e.do("POST", path, "author", map[string]any{"alt_text": "<b>New</b> alt"})
	r.WantStatus(200)
	u := r.Object()
	if u["title"].(map[string]any)["raw"] != "Kept title" || u["caption"] != "Kept caption" {
		t.Errorf("update lost title/caption: %s", r.Body)
	}
	if u["alt_text"] != "New alt" {
		t.Errorf("alt_text = %v", u["alt_text"])
	}
	if d, _ := u["description"].(string); !strings.Contains(d, "Desc") || strings.Contains(d, "<script") {
		t.Errorf("description not filtered as content: %v", u["description"])
	}
	r = e.do("PUT", path, "author", map[string]any{"title": "T2", "caption": "C2", "description": "D2"})
	r.WantStatus(200)
	if g := e.do("GET", path+"?context=edit", "author").Object(); g["title"].(map[string]any)["raw"] != "T2" || g["caption"] != "C2" || g["alt_text"] != "New alt" {
		t.Errorf("after update: %v", g)
	}
}

func TestMediaDeleteRemovesEveryFile(t *testing.T) {
	e := newMediaEnv(t)
	m := e.png("author", "gone.png", 400, 300, "")
	path := fmt.Sprintf("%s/%v", mediaPath, m["id"])
	if len(e.files()) != 4 { // original, thumbnail, medium, (no medium_large: 400 < 768)... and
		t.Logf("files %v", e.files())
	}
	e.do("DELETE", path, "author").WantError(501, "rest_trash_not_supported")
	e.do("DELETE", path+"?force=false", "author").WantError(501, "rest_trash_not_supported")
	r := e.do("DELETE", path+"?force=true", "author")
	r.WantStatus(200)
	if r.Object()["id"] != m["id"] {
		t.Errorf("delete response = %s", r.Body)
	}
	if files := e.files(); len(files) != 0 {
		t.Errorf("files left after delete: %v", files)
	}
	e.do("GET", path, "author").WantError(404, "rest_post_invalid_id")
}

func TestMediaHooksFire(t *testing.T) {
	e := newMediaEnv(t)
	var inserts, prepares atomic.Int32
	var creatingSeen atomic.Bool
	e.site.Hooks().InsertPost.BindFor([]string{"attachment"}, func(ev *events.InsertPostEvent) error {
		inserts.Add(1)
		if ev.Creating && ev.Media != nil {
			creatingSeen.Store(true)
		}
		return ev.Next()
	})
	e.site.Hooks().PreparePost.BindFor([]string{"attachment"}, func(ev *events.PreparePostEvent) error {
		prepares.Add(1)
		ev.Response.Set("alt_text", "from the hook")
		return ev.Next()
	})
	m := e.png("author", "hook.png", 10, 10, "")
	if inserts.Load() != 1 || !creatingSeen.Load() {
		t.Errorf("rest_insert_attachment fired %d times (creating %v)", inserts.Load(), creatingSeen.Load())
	}
	if m["alt_text"] != "from the hook" {
		t.Errorf("rest_prepare_attachment did not change the response: %v", m["alt_text"])
	}
	e.do("POST", fmt.Sprintf("%s/%v", mediaPath, m["id"]), "author", map[string]any{"title": "x"}).WantStatus(200)
	if inserts.Load() != 2 {
		t.Errorf("update: rest_insert_attachment fired %d times", inserts.Load())
	}
	if prepares.Load() < 2 {
		t.Errorf("rest_prepare_attachment fired %d times", prepares.Load())
	}
}

// failingStore fails inserting attachments while fail is set.
type failingStore struct {
	store.Store
	fail *atomic.Bool
}

func (f failingStore) InsertPost(ctx context.Context, p *store.Post) error {
	if f.fail.Load() && p.Type == "attachment" {
		return errors.New("disk full")
	}
	return f.Store.InsertPost(ctx, p)
}

func (f failingStore) Tx(ctx context.Context, fn func(store.Store) error) error {
	return f.Store.Tx(ctx, func(tx store.Store) error { return fn(failingStore{tx, f.fail}) })
}

// pngUpload uploads data as a PNG named name as login.
func (e *env) pngUpload(login, name string, data []byte) *testkit.Response {
	e.T.Helper()
	return e.do("POST", mediaPath, login, data, "Content-Type", "image/png", "Content-Disposition", `attachment; filename="`+name+`"`)
}

func TestMediaStorageFailureLeavesNoRecordAndNoFile(t *testing.T) {
	e := newMediaEnv(t)
	var fail atomic.Bool
	fail.Store(true)
	failing := e.over(failingStore{e.db, &fail}, nil)
	failing.pngUpload("author", "a.png", pngOf(t, 400, 300)).WantError(500, "db_update_error")
	if files := e.files(); len(files) != 0 {
		t.Errorf("orphan files: %v", files)
	}
	if got, _ := e.mediaIDs("administrator", ""); len(got) != 0 {
		t.Errorf("records after failure: %v", got)
	}
	// The names were released: the next upload gets the plain name.
	fail.Store(false)
	r := failing.pngUpload("author", "a.png", pngOf(t, 40, 30))
	r.WantStatus(201)
	if f := r.Object()["media_details"].(map[string]any)["file"]; f != monthFolder()+"/a.png" {
		t.Errorf("file = %v", f)
	}

	// A blob storage failure (the uploads directory is a file).
	bad := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(bad, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	local, _ := media.NewLocal(bad)
	e.over(e.db, local).pngUpload("author", "b.png", pngOf(t, 40, 30)).WantError(500, "rest_upload_sideload_error")
	if got, _ := e.mediaIDs("administrator", ""); len(got) != 1 {
		t.Errorf("records after blob failure: %v", got)
	}
}

func TestMediaOnS3CompatibleStorage(t *testing.T) {
	e := newMediaEnv(t)
	backend := s3mem.New()
	if err := backend.CreateBucket("folio"); err != nil {
		t.Fatal(err)
	}
	s3srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(s3srv.Close)
	blobs, err := media.NewS3(context.Background(), media.S3Options{Endpoint: strings.TrimPrefix(s3srv.URL, "http://"),
		Region: "us-east-1", Bucket: "folio", Prefix: "site", AccessKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	e.site.SetBlobs(blobs)
	m := e.png("author", "cloud.png", 400, 300, "")
	file := m["media_details"].(map[string]any)["file"].(string)
	ctx := context.Background()
	for _, key := range []string{file, strings.TrimSuffix(file, ".png") + "-150x150.png", strings.TrimSuffix(file, ".png") + "-300x225.png"} {
		if ok, err := blobs.Exists(ctx, key); err != nil || !ok {
			t.Errorf("object %s missing (%v)", key, err)
		}
	}
	if len(e.files()) != 0 {
		t.Errorf("S3 upload wrote local files: %v", e.files())
	}
	// The same name in the bucket gets a unique name too.
	m2 := e.png("author", "cloud.png", 10, 10, "")
	if f := m2["media_details"].(map[string]any)["file"]; f != monthFolder()+"/cloud-1.png" {
		t.Errorf("second file = %v", f)
	}
	e.do("DELETE", fmt.Sprintf("%s/%v?force=true", mediaPath, m["id"]), "author").WantStatus(200)
	if ok, _ := blobs.Exists(ctx, file); ok {
		t.Error("object left after delete")
	}
}
