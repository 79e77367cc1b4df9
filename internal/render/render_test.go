package render

import (
	"strings"
	"testing"
)

func TestContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain text gets paragraph", "Hello world", "<p>Hello world</p>\n"},
		{"paragraphs and line breaks", "Line one\nLine two\n\nPara two", "<p>Line one<br />\nLine two</p>\n<p>Para two</p>\n"},
		{
			"block delimiters removed",
			"<!-- wp:paragraph -->\n<p>Hi \"there\"</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:list -->\n<ul><li>a</li><li>b</li></ul>\n<!-- /wp:list -->",
			"<p>Hi &#8220;there&#8221;</p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n",
		},
		{
			"block delimiters with json attributes",
			"<!-- wp:image {\"id\":5,\"sizeSlug\":\"large\",\"caption\":\"a } -- b\"} -->\n<figure class=\"wp-block-image\"><img src=\"a.jpg\" alt=\"\"/></figure>\n<!-- /wp:image -->\n\n<!-- wp:spacer {\"height\":20} /-->",
			"<figure class=\"wp-block-image\"><img src=\"a.jpg\" alt=\"\"/></figure>\n",
		},
		{"smart quotes and dashes", "He said \"hello\" -- and 'bye'... it's '99", "<p>He said &#8220;hello&#8221; &#8212; and &#8216;bye&#8217;&#8230; it&#8217;s &#8217;99</p>\n"},
		{"pre kept verbatim", "<pre>a\n\nb \"q\" --</pre>\n\ntext \"q\"", "<pre>a\n\nb \"q\" --</pre>\n<p>text &#8220;q&#8221;</p>\n"},
		{"code kept", "<code>\"x\" -- y</code> \"y\"", "<p><code>\"x\" -- y</code> &#8220;y&#8221;</p>\n"},
		{"shortcode kept", "[gallery ids=\"1,2\" columns='3']\n\nSome \"text\"", "<p>[gallery ids=\"1,2\" columns='3']</p>\n<p>Some &#8220;text&#8221;</p>\n"},
		{"quotes in attributes unchanged", "<a href=\"x\" title='a \"b\"'>it's</a>", "<p><a href=\"x\" title='a \"b\"'>it&#8217;s</a></p>\n"},
		{"other comments kept", "<!-- note -->text", "<p><!-- note -->text</p>\n"},
		{"utf8", "Grüße, 世界 — \"ok\"", "<p>Grüße, 世界 — &#8220;ok&#8221;</p>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Content(tt.in)
			if got != tt.want {
				t.Errorf("Content(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Content(tt.in); again != got {
				t.Errorf("Content is not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"trimmed", "  Hello  \n", "Hello"},
		{"smart quotes", `"Hi" it's`, "&#8220;Hi&#8221; it&#8217;s"},
		{"ampersand encoded", "Tom & Jerry", "Tom &#038; Jerry"},
		{"entity kept", "Tom &amp; Jerry", "Tom &amp; Jerry"},
		{"dash", "a -- b", "a &#8212; b"},
		{"code untouched except ampersand", "<code>'x' & y</code>", "<code>'x' &#038; y</code>"},
		{"utf8", "Ça va?", "Ça va?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Title(tt.in); got != tt.want {
				t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = "w"
		}
		return strings.Join(w, " ")
	}
	tests := []struct {
		name, excerpt, content, want string
	}{
		{"both empty", "", "", ""},
		{"raw excerpt used", "Manual \"excerpt\"", "ignored content", "<p>Manual &#8220;excerpt&#8221;</p>\n"},
		{"raw excerpt line breaks", "a\nb", "", "<p>a<br />\nb</p>\n"},
		{"raw excerpt not cut", words(60), "", "<p>" + words(60) + "</p>\n"},
		{"generated from content", "", "<p>Hello <strong>world</strong></p>", "<p>Hello world</p>\n"},
		{
			"generated from blocks",
			"",
			"<!-- wp:paragraph -->\n<p>One.</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>Two \"q\".</p>\n<!-- /wp:paragraph -->",
			"<p>One. Two &#8220;q&#8221;.</p>\n",
		},
		{"exactly 55 words not suffixed", "", words(55), "<p>" + words(55) + "</p>\n"},
		{"56 words cut to 55 with suffix", "", words(56), "<p>" + words(55) + " [&hellip;]</p>\n"},
		{"shortcodes stripped", "", "[gallery ids=\"1\"]Text [caption]cap[/caption]end", "<p>Text end</p>\n"},
		{"unregistered shortcode kept", "", "[foo] text", "<p>[foo] text</p>\n"},
		{"script content dropped", "", "a<script>var x;</script> b", "<p>a b</p>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Excerpt(tt.excerpt, tt.content); got != tt.want {
				t.Errorf("Excerpt(%q, %q)\n got %q\nwant %q", tt.excerpt, tt.content, got, tt.want)
			}
			// From the rendered content, where no shortcode is stripped.
			if tt.excerpt == "" && StripShortcodes(tt.content) == tt.content {
				if got := ExcerptOfContent(Content(tt.content)); got != tt.want {
					t.Errorf("ExcerptOfContent(Content(%q))\n got %q\nwant %q", tt.content, got, tt.want)
				}
			}
		})
	}
}

// benchmarkPost is a block-editor post of about 3 KB.
var benchmarkPost = func() string {
	var b strings.Builder
	for b.Len() < 3000 {
		b.WriteString("<!-- wp:paragraph -->\n<p>It's a \"quoted\" paragraph -- with <a href=\"https://example.com/?a=1&b=2\">a link</a>, some <em>emphasis</em> and an ellipsis...</p>\n<!-- /wp:paragraph -->\n\n")
		b.WriteString("<!-- wp:list -->\n<ul><li>First item</li><li>Second 'item'</li></ul>\n<!-- /wp:list -->\n\n")
		b.WriteString("<!-- wp:code -->\n<pre class=\"wp-block-code\"><code>if a -- b { \"x\" }</code></pre>\n<!-- /wp:code -->\n\n")
		b.WriteString("Plain text line one\nline two\n\n[gallery ids=\"1,2,3\"]\n\n")
	}
	return b.String()
}()

func BenchmarkContent(b *testing.B) {
	b.SetBytes(int64(len(benchmarkPost)))
	b.ReportAllocs()
	for b.Loop() {
		Content(benchmarkPost)
	}
}

func BenchmarkExcerpt(b *testing.B) {
	b.SetBytes(int64(len(benchmarkPost)))
	b.ReportAllocs()
	for b.Loop() {
		Excerpt("", benchmarkPost)
	}
}

// BenchmarkExcerptOfContent is the excerpt of a post whose content is
// rendered already (content.rendered of the same response).
func BenchmarkExcerptOfContent(b *testing.B) {
	rendered := Content(benchmarkPost)
	b.SetBytes(int64(len(benchmarkPost)))
	b.ReportAllocs()
	for b.Loop() {
		ExcerptOfContent(rendered)
	}
}
