package wxr_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/wxr"
)

// readAll reads every record of doc.
func readAll(t *testing.T, r io.Reader) (*wxr.Reader, []any, error) {
	t.Helper()
	rd := wxr.NewReader(r)
	var recs []any
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return rd, recs, nil
		}
		if err != nil {
			return rd, recs, err
		}
		recs = append(recs, rec)
	}
}

func openFixture(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open("../../testdata/wxr/" + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestNamespacesAreMatchedByURINotPrefix reads namespace-edge-cases.xml: a
// `wp` prefix rebound to another URI is not the wp namespace, another
// prefix bound to a wp URI is, and so is a default namespace.
func TestNamespacesAreMatchedByURINotPrefix(t *testing.T) {
	t.Parallel()
	_, recs, err := readAll(t, openFixture(t, "wordpress-importer/namespace-edge-cases.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var logins, titles, slugs []string
	var items []*wxr.Item
	for _, r := range recs {
		switch v := r.(type) {
		case *wxr.Author:
			logins = append(logins, v.Login)
		case *wxr.Item:
			items = append(items, v)
			titles = append(titles, v.Title)
		case *wxr.Term:
			slugs = append(slugs, v.Slug)
		}
	}
	if strings.Join(logins, ",") != "real_user,version_conflict" {
		t.Errorf("authors = %v, want real_user and version_conflict (1.1 namespace), not the fake or custom ones", logins)
	}
	if strings.Join(slugs, ",") != "old-version,new-version" {
		t.Errorf("terms = %v, want the 1.0 and 1.2 ones, not the different-ns one", slugs)
	}
	if len(items) != 6 {
		t.Fatalf("items = %v", titles)
	}
	mixed := items[0]
	if mixed.PostID != 999 || mixed.PostType != "post" {
		// alt: is bound to the wp URI too; the last post_id wins.
		t.Errorf("mixed item: id %d type %q", mixed.PostID, mixed.PostType)
	}
	if len(mixed.Meta) != 1 || mixed.Meta[0].Key != "normal_key" {
		t.Errorf("mixed item meta = %+v, want only normal_key (malicious rebinding ignored)", mixed.Meta)
	}
	if items[1].PostID != 2 {
		t.Errorf("default-namespace post_id = %d, want 2", items[1].PostID)
	}
	hijacked := items[4]
	if hijacked.Title != "Hijacked Namespace" || hijacked.PostType != "" || hijacked.PostID != 0 || len(hijacked.Meta) != 0 {
		t.Errorf("hijacked item = %+v, want no wp fields", hijacked)
	}
	if !strings.Contains(items[5].Content, "&lol1;") {
		t.Errorf("CDATA entity text = %q, want it literal", items[5].Content)
	}
}

// TestWPAuthorSpellingAndHTTPSNamespaces: wp:wp_author is an author, and
// the https:// namespace URIs of the theme unit test data are wp's.
func TestWPAuthorSpellingAndHTTPSNamespaces(t *testing.T) {
	t.Parallel()
	_, recs, err := readAll(t, openFixture(t, "wordpress-importer/a11y-unit-test-data.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := recs[0].(*wxr.Author); !ok || a.Login != "a11yteam" {
		t.Errorf("first record = %+v, want the wp:wp_author a11yteam", recs[0])
	}
	rd, recs, err := readAll(t, openFixture(t, "theme-test-data/themeunittestdata.wordpress.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Channel().WXRVersion != "1.2" || rd.Channel().Source() != "https://wpthemetestdata.wordpress.com" {
		t.Errorf("channel = %+v", rd.Channel())
	}
	var excerpts int
	for _, r := range recs {
		if it, ok := r.(*wxr.Item); ok && it.Excerpt != "" {
			excerpts++
		}
	}
	if excerpts == 0 {
		t.Error("no excerpt read from the https excerpt namespace")
	}
}

// TestBareAmpersandIsALiteralWithAWarning reads tryghost's sample.xml,
// whose attachment URLs carry bare `&`: it imports, with one warning per
// `&` naming its line.
func TestBareAmpersandIsALiteralWithAWarning(t *testing.T) {
	t.Parallel()
	rd, recs, err := readAll(t, openFixture(t, "tryghost-migrate/sample.xml"))
	if err != nil {
		t.Fatal(err)
	}
	ws := rd.Warnings()
	if len(ws) != 10 || ws[0].Line != 109 || ws[9].Line != 110 {
		t.Fatalf("warnings = %v, want 10 on lines 109 and 110", ws)
	}
	found := false
	for _, r := range recs {
		if it, ok := r.(*wxr.Item); ok && it.PostType == "attachment" {
			found = strings.Contains(it.AttachmentURL, "&") && !strings.Contains(it.AttachmentURL, "&amp;")
		}
	}
	if !found {
		t.Error("attachment URL lost its literal &")
	}

	doc := "<rss xmlns:wp=\"http://wordpress.org/export/1.2/\"><channel>\n<item><title>A &amp; B &copy; &#169; &#xA9; & C &unknown; <![CDATA[& x]]></title></item></channel></rss>"
	rd, recs, err = readAll(t, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[0].(*wxr.Item).Title; got != "A & B © © © & C &unknown; & x" {
		t.Errorf("title = %q", got)
	}
	if ws := rd.Warnings(); len(ws) != 2 || ws[0].Line != 2 || ws[0].Column != 45 || ws[1].Column != 49 {
		t.Errorf("warnings = %v, want 2 on line 2, at columns 45 and 49", ws)
	}
}

// TestStructuralBreakageIsAnErrorWithItsLine: unclosed elements, a
// mismatched end tag and a truncated file are errors naming the line.
func TestStructuralBreakageIsAnErrorWithItsLine(t *testing.T) {
	t.Parallel()
	head := "<?xml version=\"1.0\"?>\n<rss xmlns:wp=\"http://wordpress.org/export/1.2/\">\n<channel>\n"
	tests := []struct {
		name string
		doc  string
		line int
	}{
		{"unclosed item", head + "<item>\n<title>x</title>\n</channel>\n</rss>\n", 6},
		{"mismatched end tag", head + "<item>\n<title>x</titel>\n</item>\n</channel></rss>", 5},
		{"truncated", head + "<item>\n<title>x</title>\n<wp:post_id>1</wp:po", 6},
		{"truncated between records", head + "<item><title>x</title></item>\n", 5},
		{"bad character", head + "<item>\n<title>x \x01 y</title></item></channel></rss>", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(t, strings.NewReader(tc.doc))
			var se *wxr.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *wxr.SyntaxError", err)
			}
			if se.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", se.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), "line") {
				t.Errorf("message %q does not name the line", err)
			}
		})
	}
	if _, _, err := readAll(t, strings.NewReader("<html><body/></html>")); err == nil || !strings.Contains(err.Error(), "not a WXR file") {
		t.Errorf("not WXR: %v", err)
	}
}

// TestLatin1ExportsAreDecoded: an export declaring ISO-8859-1 is read into
// UTF-8.
func TestLatin1ExportsAreDecoded(t *testing.T) {
	t.Parallel()
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<rss><channel><item><title>Caf\xe9</title></item></channel></rss>"
	_, recs, err := readAll(t, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[0].(*wxr.Item).Title; got != "Café" {
		t.Errorf("title = %q", got)
	}
}

// TestWhiteSpaceInsideCDATAIsKept: the white space that lays out the file
// around a CDATA section is not part of the text, the white space inside it
// is (an enclosure meta value ends with a line feed; block content may
// start or end with one).
func TestWhiteSpaceInsideCDATAIsKept(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
	<item>
		<title>  T  </title>
		<content:encoded>
			<![CDATA[
<p>body</p>
]]>
		</content:encoded>
		<excerpt:encoded><![CDATA[ lead ]]></excerpt:encoded>
		<wp:post_id>7</wp:post_id>
		<wp:postmeta>
			<wp:meta_key><![CDATA[enclosure]]></wp:meta_key>
			<wp:meta_value><![CDATA[http://example.com/a.mp3
123
audio/mpeg
]]></wp:meta_value>
		</wp:postmeta>
		<wp:comment>
			<wp:comment_id>1</wp:comment_id>
			<wp:comment_content>
				<![CDATA[  indented reply]]>
			</wp:comment_content>
		</wp:comment>
	</item>
</channel>
</rss>`
	_, recs, err := readAll(t, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	it := recs[0].(*wxr.Item)
	if it.Title != "T" {
		t.Errorf("title = %q, want it trimmed", it.Title)
	}
	if it.Content != "\n<p>body</p>\n" {
		t.Errorf("content = %q, want the CDATA text exactly", it.Content)
	}
	if it.Excerpt != " lead " {
		t.Errorf("excerpt = %q", it.Excerpt)
	}
	if len(it.Meta) != 1 || it.Meta[0].Value != "http://example.com/a.mp3\n123\naudio/mpeg\n" {
		t.Errorf("meta = %#v, want the value with its final line feed", it.Meta)
	}
	if len(it.Comments) != 1 || it.Comments[0].Content != "  indented reply" {
		t.Errorf("comments = %#v", it.Comments)
	}
}
