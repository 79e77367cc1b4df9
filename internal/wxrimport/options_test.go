package wxrimport_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
	"github.com/folio-server/folio/internal/wxrimport"
)

// crafted is a small export with a post whose featured image and an
// attachment (whose parent is the post) come after it, an attachment whose
// file is missing, two authors and a comment by one of them.
const crafted = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/">
<channel>
<title>Old site</title>
<link>https://old.example</link>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:base_blog_url>https://old.example</wp:base_blog_url>
<wp:author><wp:author_id>7</wp:author_id><wp:author_login>olduser</wp:author_login><wp:author_email>old@example.com</wp:author_email></wp:author>
<wp:author><wp:author_id>8</wp:author_id><wp:author_login>newbie</wp:author_login><wp:author_email>newbie@example.com</wp:author_email><wp:author_display_name>New Bie</wp:author_display_name></wp:author>
<item>
<title>With a picture</title>
<dc:creator>newbie</dc:creator>
<content:encoded><![CDATA[<p>Hello <script>alert(1)</script></p>]]></content:encoded>
<wp:post_id>10</wp:post_id>
<wp:post_date>2011-07-02 10:00:00</wp:post_date>
<wp:post_date_gmt>2011-07-02 08:00:00</wp:post_date_gmt>
<wp:post_name>with-a-picture</wp:post_name>
<wp:status>publish</wp:status>
<wp:post_type>post</wp:post_type>
<wp:postmeta><wp:meta_key>_thumbnail_id</wp:meta_key><wp:meta_value>11</wp:meta_value></wp:postmeta>
<wp:postmeta><wp:meta_key>custom_key</wp:meta_key><wp:meta_value>a:1:{i:0;s:1:"x";}</wp:meta_value></wp:postmeta>
<wp:comment><wp:comment_id>5</wp:comment_id><wp:comment_author>Old User</wp:comment_author><wp:comment_date>2011-07-03 10:00:00</wp:comment_date><wp:comment_date_gmt>2011-07-03 08:00:00</wp:comment_date_gmt><wp:comment_content>Nice</wp:comment_content><wp:comment_approved>1</wp:comment_approved><wp:comment_user_id>7</wp:comment_user_id></wp:comment>
<wp:comment><wp:comment_id>6</wp:comment_id><wp:comment_author>Spammer</wp:comment_author><wp:comment_date>2011-07-03 11:00:00</wp:comment_date><wp:comment_content>Buy</wp:comment_content><wp:comment_approved>spam</wp:comment_approved><wp:comment_parent>5</wp:comment_parent></wp:comment>
</item>
<item>
<title>Picture</title>
<dc:creator>olduser</dc:creator>
<wp:post_id>11</wp:post_id>
<wp:post_date>2011-07-02 09:00:00</wp:post_date>
<wp:post_date_gmt>2011-07-02 07:00:00</wp:post_date_gmt>
<wp:post_name>picture</wp:post_name>
<wp:status>inherit</wp:status>
<wp:post_parent>10</wp:post_parent>
<wp:post_type>attachment</wp:post_type>
<wp:attachment_url>https://old.example/wp-content/uploads/2011/07/picture.png</wp:attachment_url>
<wp:postmeta><wp:meta_key>_wp_attachment_image_alt</wp:meta_key><wp:meta_value>A red square</wp:meta_value></wp:postmeta>
</item>
<item>
<title>Lost</title>
<dc:creator>olduser</dc:creator>
<wp:post_id>12</wp:post_id>
<wp:status>inherit</wp:status>
<wp:post_type>attachment</wp:post_type>
<wp:attachment_url>https://old.example/wp-content/uploads/2011/08/lost.jpg</wp:attachment_url>
</item>
</channel>
</rss>
`

func writeCrafted(t *testing.T) (file, mediaDir string) {
	t.Helper()
	dir := t.TempDir()
	file = filepath.Join(dir, "old.xml")
	if err := os.WriteFile(file, []byte(crafted), 0o644); err != nil {
		t.Fatal(err)
	}
	mediaDir = filepath.Join(dir, "uploads")
	if err := os.MkdirAll(filepath.Join(mediaDir, "2011", "07"), 0o755); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := 0; y < 600; y++ {
		for x := 0; x < 800; x++ {
			img.Set(x, y, color.RGBA{R: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mediaDir, "2011", "07", "picture.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, mediaDir
}

func (e *env) importPath(opts wxrimport.Options, path string) *wxrimport.Summary {
	e.t.Helper()
	ctx := context.Background()
	im, err := wxrimport.New(ctx, e.site, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer fh.Close()
	if err := im.Import(ctx, path, fh, 0); err != nil {
		e.t.Fatal(err)
	}
	sum, err := im.Finish(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return sum
}

// TestMediaDirAuthorsAndForwardLinks imports the crafted export with
// --media-dir and --author-map: the file found is copied with its sizes,
// the missing one stays remote, the featured image and the attachment's
// parent (both forward references) are set, the mapped author is the
// existing user, the new one has the configured role and no usable
// password, the comment's user is remapped, the spam reply keeps its
// status and parent, and the content is sanitized.
func TestMediaDirAuthorsAndForwardLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	editor := e.AddUser("editor", "editor")
	file, mediaDir := writeCrafted(t)
	sum := e.importPath(wxrimport.Options{MediaDir: mediaDir, AuthorMap: map[string]string{"olduser": "editor"}, AuthorRole: "contributor"}, file)
	if c := sum.Kind("authors"); c.Created != 1 || c.Existing != 1 {
		t.Errorf("authors: %+v, want 1 created, 1 existing (mapped)", c)
	}
	if sum.Notes["attachment files copied from --media-dir"] != 1 || sum.Notes["attachment files not found in --media-dir"] != 1 {
		t.Errorf("notes = %v", sum.Notes)
	}

	newbie, err := e.db.GetUserByLogin(ctx, "newbie")
	if err != nil {
		t.Fatal(err)
	}
	if newbie.PassHash != "" || len(newbie.Roles) != 1 || newbie.Roles[0] != "contributor" || newbie.DisplayName != "New Bie" {
		t.Errorf("new author = %+v, want contributor without a password", newbie)
	}

	var post apiPost
	p := e.one("/posts?slug=with-a-picture")
	e.get(fmt.Sprintf("/posts/%d", p.ID), &post)
	if strings.Contains(post.Content.Rendered, "<script") {
		t.Errorf("content not sanitized: %q", post.Content.Rendered)
	}
	if post.Date != "2011-07-02T10:00:00" || post.DateGMT != "2011-07-02T08:00:00" {
		t.Errorf("dates = %s / %s", post.Date, post.DateGMT)
	}
	var media map[string]any
	e.get(fmt.Sprintf("/media/%d", post.FeaturedMedia), &media)
	if media["slug"] != "picture" || media["post"] != float64(post.ID) || media["alt_text"] != "A red square" {
		t.Errorf("featured media = slug %v, post %v (want %d), alt %v", media["slug"], media["post"], post.ID, media["alt_text"])
	}
	src, _ := media["source_url"].(string)
	if !strings.HasSuffix(src, "/2011/07/picture.png") || strings.HasPrefix(src, "https://old.example") {
		t.Errorf("copied source_url = %q", src)
	}
	details, _ := media["media_details"].(map[string]any)
	sizes, _ := details["sizes"].(map[string]any)
	if details["width"] != float64(800) || len(sizes) < 2 {
		t.Errorf("media_details = %v, want the sizes of an upload", details)
	}
	if ok, err := e.site.Blobs().Exists(ctx, "2011/07/picture.png"); err != nil || !ok {
		t.Errorf("the file is not in the upload storage: %v %v", ok, err)
	}
	var lost []map[string]any
	e.get("/media?slug=lost", &lost)
	if len(lost) != 1 || lost[0]["source_url"] != "https://old.example/wp-content/uploads/2011/08/lost.jpg" || lost[0]["mime_type"] != "image/jpeg" {
		t.Errorf("remote attachment = %v", lost)
	}

	comments, _ := e.db.ListComments(ctx, store.CommentQuery{Posts: []int64{post.ID}, OrderBy: "id"})
	if len(comments) != 2 {
		t.Fatalf("comments = %d", len(comments))
	}
	if comments[0].AuthorID != editor.ID || comments[0].Approved != "1" {
		t.Errorf("first comment: user %d (want %d), approved %q", comments[0].AuthorID, editor.ID, comments[0].Approved)
	}
	if comments[1].Approved != "spam" || comments[1].Parent != comments[0].ID {
		t.Errorf("spam reply: approved %q, parent %d", comments[1].Approved, comments[1].Parent)
	}
	stored, _ := e.db.GetPost(ctx, post.ID)
	if stored.CommentCount != 1 {
		t.Errorf("comment count = %d, want 1 (approved only)", stored.CommentCount)
	}
	meta, _ := e.db.PostMeta(ctx, []int64{post.ID}, nil)
	if got := meta[post.ID]["custom_key"]; len(got) != 1 || got[0] != `a:1:{i:0;s:1:"x";}` {
		t.Errorf("post meta = %v", meta[post.ID])
	}
	if _, ok := meta[post.ID]["_thumbnail_id"]; ok {
		t.Error("_thumbnail_id kept as meta with the old id")
	}

	// Again: nothing new, no second copy of the file.
	again := e.importPath(wxrimport.Options{MediaDir: mediaDir, AuthorMap: map[string]string{"olduser": "editor"}}, file)
	if c := again.Kind("attachments"); c.Created != 0 || c.Existing != 2 {
		t.Errorf("second import attachments = %+v", c)
	}
	if ok, _ := e.site.Blobs().Exists(ctx, "2011/07/picture-1.png"); ok {
		t.Error("the second import copied the file again")
	}
}

// TestCustomTypesImportOnlyWhenConfigured imports the WooCommerce sample
// with product and product_cat configured: products and their categories
// come in, variations (not configured) are skipped with a reason.
func TestCustomTypesImportOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testkit.Config(func(c *config.Config) {
		c.PostTypes = append(c.PostTypes, config.PostType{Name: "product", RestBase: "products",
			Supports: []string{"title", "editor", "excerpt", "thumbnail"}})
		c.Taxonomies = append(c.Taxonomies, config.Taxonomy{Name: "product_cat", RestBase: "product_cat",
			Hierarchical: true, ObjectTypes: []string{"product"}})
	}))
	sum := e.mustImport(wxrimport.Options{}, "woocommerce-sample-ko/sample_products.xml")
	if c := sum.Kind("product"); c.Created != 18 {
		t.Errorf("products created = %d, want 18", c.Created)
	}
	if c := sum.Kind("product_variation"); c.Skipped["post type not configured (add it to [[post_types]] in folio.toml)"] != 7 {
		t.Errorf("variations = %+v, want 7 skipped as not configured", c)
	}
	res := e.get("/products?per_page=1", nil)
	if got := res.Header.Get("X-API-Total"); got != "18" {
		t.Errorf("products total = %s, want 18", got)
	}
	var cats []map[string]any
	e.get("/product_cat?per_page=100", &cats)
	if len(cats) == 0 {
		t.Fatal("no product categories")
	}
	var withThumb int
	var products []apiPost
	e.get("/products?per_page=100", &products)
	for _, p := range products {
		if p.FeaturedMedia != 0 {
			withThumb++
		}
	}
	if withThumb == 0 {
		t.Error("no product has its featured image")
	}
}

// TestTrashedPostKeepsWhatUntrashRestores imports a trashed post as Folio's
// export writes it: it stays in the trash, remembers its status before,
// and its comments are post-trashed (not counted).
func TestTrashedPostKeepsWhatUntrashRestores(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc := `<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><link>https://t.example</link>
<item><title>Gone</title><wp:post_id>3</wp:post_id><wp:post_name>gone__trashed</wp:post_name><wp:status>trash</wp:status><wp:post_type>post</wp:post_type>
<wp:post_date>2020-01-01 00:00:00</wp:post_date><wp:post_date_gmt>2020-01-01 00:00:00</wp:post_date_gmt>
<wp:postmeta><wp:meta_key>_wp_trash_meta_status</wp:meta_key><wp:meta_value>publish</wp:meta_value></wp:postmeta>
<wp:postmeta><wp:meta_key>_wp_trash_meta_time</wp:meta_key><wp:meta_value>1700000000</wp:meta_value></wp:postmeta>
<wp:comment><wp:comment_id>1</wp:comment_id><wp:comment_author>A</wp:comment_author><wp:comment_content>hi</wp:comment_content><wp:comment_approved>1</wp:comment_approved><wp:comment_date>2020-01-02 00:00:00</wp:comment_date></wp:comment>
</item></channel></rss>`
	path := filepath.Join(t.TempDir(), "trash.xml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	e.importPath(wxrimport.Options{}, path)
	ctx := context.Background()
	posts, _ := e.db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}})
	if len(posts) != 1 || posts[0].Status != "trash" || posts[0].PreTrashStatus != "publish" || posts[0].CommentCount != 0 {
		t.Fatalf("trashed post = %+v", posts)
	}
	meta, _ := e.db.PostMeta(ctx, []int64{posts[0].ID}, nil)
	if len(meta[posts[0].ID]) != 0 {
		t.Errorf("trash bookkeeping kept as meta: %v", meta)
	}
	cs, _ := e.db.ListComments(ctx, store.CommentQuery{})
	if len(cs) != 1 || cs[0].Approved != store.CommentPostTrashed {
		t.Fatalf("comment of the trashed post = %+v", cs)
	}
}
