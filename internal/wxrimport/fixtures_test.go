package wxrimport_test

import (
	"context"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/wxrimport"
)

// fixtureCounts is a row of testdata/wxr/README.md's counts table: the
// declared authors (wp:author), categories (wp:category) and tags (wp:tag)
// and the posts, pages, attachments and comments of each file.
type fixtureCounts struct {
	file                               string
	authors, posts, pages, attachments int
	comments, categories, tags         int
	skippedTypes                       map[string]int // post type → items skipped
}

var fixtureTable = []fixtureCounts{
	{file: "blueprints/kanso-rich-tabor-blueprint-content.xml", authors: 1, posts: 3, pages: 4, categories: 4, tags: 11,
		skippedTypes: map[string]int{"wp_global_styles": 5, "wp_navigation": 1, "wp_template": 1, "wp_template_part": 1}},
	{file: "blueprints/starter-content.xml", authors: 1, posts: 1},
	{file: "jekyll-import/sitetitle.wordpress.2025-01-19.000.xml", authors: 1, posts: 7, pages: 1, attachments: 6, categories: 2, tags: 4,
		skippedTypes: map[string]int{"wp_global_styles": 1, "wp_navigation": 1}},
	{file: "theme-test-data/64-block-test-data.xml", authors: 2, posts: 61, pages: 1, attachments: 9, comments: 2, categories: 7, tags: 4,
		skippedTypes: map[string]int{"wp_navigation": 1}},
	{file: "theme-test-data/theme-preview.xml", posts: 7, comments: 2},
	{file: "theme-test-data/themeunittestdata.wordpress.xml", authors: 2, posts: 58, pages: 21, attachments: 37, comments: 33, categories: 68, tags: 110,
		skippedTypes: map[string]int{"nav_menu_item": 70}},
	{file: "tryghost-migrate/co-authors-plus.xml", authors: 3, posts: 4},
	{file: "tryghost-migrate/has-meta.xml", authors: 2, categories: 1, skippedTypes: map[string]int{"enmse_message": 1}},
	{file: "tryghost-migrate/has-yoast-meta.xml", authors: 1, posts: 2},
	{file: "tryghost-migrate/sample.xml", authors: 2, posts: 3, pages: 1, attachments: 1, categories: 1, skippedTypes: map[string]int{"customcpt": 1}},
	{file: "woocommerce-sample-ko/sample_products.xml", authors: 1, attachments: 22, skippedTypes: map[string]int{"product": 18, "product_variation": 7}},
	{file: "wordpress-importer/a11y-unit-test-data.xml", authors: 1, posts: 47, pages: 17, attachments: 39, comments: 29, categories: 27, tags: 61,
		skippedTypes: map[string]int{"nav_menu_item": 50}},
	// The README counts elements of the document's own wp namespace (1.2)
	// only: 1 author, no wp:category. The file also declares the author
	// "version_conflict" and the category "old-version" in the WXR 1.1
	// and 1.0 namespaces, which are wp namespaces too and are imported;
	// the rebound "wp" prefixes (fake, malicious, hijack) are not.
	{file: "wordpress-importer/namespace-edge-cases.xml", authors: 2, posts: 5, categories: 2,
		skippedTypes: map[string]int{"": 1}},
	{file: "wordpress-importer/slashes.xml", authors: 1, posts: 1, comments: 1, categories: 1, tags: 1},
	{file: "wordpress-importer/small-export.xml", authors: 3, posts: 6, pages: 5, comments: 1, categories: 30, tags: 3},
	{file: "wordpress-importer/term-formats.xml", categories: 2, tags: 3},
	{file: "wordpress-importer/test-serialized-comment-meta.xml", posts: 1, comments: 1},
	{file: "wordpress-importer/test-serialized-postmeta-with-cdata.xml", posts: 1},
	{file: "wordpress-importer/test-serialized-term-meta.xml", posts: 1, categories: 1, tags: 1},
	{file: "wordpress-importer/valid-wxr-1.0.xml", posts: 3, pages: 3, comments: 1, categories: 5, tags: 4},
	{file: "wordpress-importer/valid-wxr-1.1.xml", authors: 1, posts: 1, pages: 1, comments: 1, categories: 1, tags: 1},
	{file: "wordpress-importer/wxr-comprehensive.xml", authors: 2, posts: 1, pages: 1, comments: 1, categories: 2, tags: 2},
	{file: "wordpress-importer/wxr-utf-8-challenges.xml", authors: 1, posts: 1},
	{file: "wordpress-importer/wxr-with-sub-data.xml", posts: 1, comments: 1},
}

// declared returns the records of kind the file declares: those found or
// created, less those created only because items use them.
func declared(sum *wxrimport.Summary, kind, undeclaredNote string) int {
	c := sum.Kind(kind)
	return c.Created + c.Existing - sum.Notes[undeclaredNote]
}

// TestEveryFixtureImportsWithTheREADMECounts imports each fixture into a
// fresh site and checks the summary and the stored records against the
// fixture README's counts, then imports it again and checks that nothing
// new was created.
func TestEveryFixtureImportsWithTheREADMECounts(t *testing.T) {
	for _, fc := range fixtureTable {
		t.Run(fc.file, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			ctx := context.Background()
			sum := e.mustImport(wxrimport.Options{}, fc.file)
			check := func(what string, got, want int) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %d, want %d", what, got, want)
				}
			}
			check("declared authors", declared(sum, "authors", wxrimport.NoteCreatorAuthors), fc.authors)
			check("declared categories", declared(sum, "categories", wxrimport.NoteUndeclared("categories")), fc.categories)
			check("declared tags", declared(sum, "tags", wxrimport.NoteUndeclared("tags")), fc.tags)
			check("posts created", sum.Kind("posts").Created, fc.posts)
			check("pages created", sum.Kind("pages").Created, fc.pages)
			check("attachments created", sum.Kind("attachments").Created, fc.attachments)
			check("comments created", sum.Kind("comments").Created, fc.comments)
			for typ, n := range fc.skippedTypes {
				kind := typ
				if typ == "" {
					kind = "items without a post type"
				}
				check("skipped "+kind, sum.Kind(kind).SkippedTotal(), n)
			}
			for typ, want := range map[string]int{"post": fc.posts, "page": fc.pages, "attachment": fc.attachments} {
				n, err := e.db.CountPosts(ctx, store.PostQuery{Types: []string{typ}})
				if err != nil {
					t.Fatal(err)
				}
				check("stored "+typ, int(n), want)
			}
			n, err := e.db.CountComments(ctx, store.CommentQuery{})
			if err != nil {
				t.Fatal(err)
			}
			check("stored comments", int(n), fc.comments)

			// Importing the same file again creates nothing.
			again := e.mustImport(wxrimport.Options{}, fc.file)
			for _, k := range again.Kinds() {
				if c := again.Kind(k); c.Created != 0 {
					t.Errorf("second import created %d %s", c.Created, k)
				}
			}
			check("second import: existing posts", again.Kind("posts").Existing, fc.posts)
			check("second import: existing comments", again.Kind("comments").Existing, fc.comments)
			n2, _ := e.db.CountComments(ctx, store.CommentQuery{})
			check("stored comments after the second import", int(n2), fc.comments)
			for typ, want := range map[string]int{"post": fc.posts, "page": fc.pages, "attachment": fc.attachments} {
				n, _ := e.db.CountPosts(ctx, store.PostQuery{Types: []string{typ}})
				check("stored "+typ+" after the second import", int(n), want)
			}
		})
	}
}
