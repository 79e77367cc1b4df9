package render

import "testing"

func TestAutop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"only white space", " \n\t\n", ""},
		{"single line", "Hello", "<p>Hello</p>\n"},
		{"double newline makes paragraphs", "One\n\nTwo", "<p>One</p>\n<p>Two</p>\n"},
		{"single newline becomes br", "One\nTwo", "<p>One<br />\nTwo</p>\n"},
		{"many newlines collapse", "One\n\n\n\nTwo", "<p>One</p>\n<p>Two</p>\n"},
		{"crlf normalized", "One\r\n\r\nTwo\r\nThree", "<p>One</p>\n<p>Two<br />\nThree</p>\n"},
		{"double br makes paragraphs", "One<br><br>Two", "<p>One</p>\n<p>Two</p>\n"},
		{"br normalized", "One<br>Two<br/>Three", "<p>One<br />Two<br />Three</p>\n"},
		{"heading not wrapped", "<h2>Title</h2>\nbody", "<h2>Title</h2>\n<p>body</p>\n"},
		{"existing paragraph kept", "<p>Hi</p>", "<p>Hi</p>\n"},
		{"div text", "<div>text\nmore</div>", "<div>text<br />\nmore</div>\n"},
		{"table", "<table>\n<tr><td>1</td></tr>\n</table>", "<table>\n<tr>\n<td>1</td>\n</tr>\n</table>\n"},
		{"list", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"},
		{"nested list", "<ul>\n<li>one\n<ul><li>nested</li></ul></li>\n</ul>", "<ul>\n<li>one\n<ul>\n<li>nested</li>\n</ul>\n</li>\n</ul>\n"},
		{"ordered list after text", "Intro\n<ol><li>x</li></ol>", "<p>Intro</p>\n<ol>\n<li>x</li>\n</ol>\n"},
		{"blockquote gets inner paragraphs", "<blockquote>q\n\nr</blockquote>", "<blockquote><p>q</p>\n<p>r</p></blockquote>\n"},
		{"pre untouched", "<pre>a\n\nb\nc</pre>\n\ntext", "<pre>a\n\nb\nc</pre>\n<p>text</p>\n"},
		{"two pre blocks", "<pre>1\n\n1</pre>\nx\n<pre class=\"c\">2\n2</pre>", "<pre>1\n\n1</pre>\n<p>x</p>\n<pre class=\"c\">2\n2</pre>\n"},
		{"newline inside tag kept", "<a\nhref=\"x\">link</a> text", "<p><a\nhref=\"x\">link</a> text</p>\n"},
		{"hr", "a\n<hr>\nb", "<p>a</p>\n<hr>\n<p>b</p>\n"},
		{"inline elements wrapped", "<strong>bold</strong> and <em>em</em>", "<p><strong>bold</strong> and <em>em</em></p>\n"},
		{"shortcode left as is", "[gallery ids=\"1,2\"]\n\ntext", "<p>[gallery ids=\"1,2\"]</p>\n<p>text</p>\n"},
		{"script newlines kept", "<script>a\nb</script>", "<p><script>a\nb</script></p>\n"},
		{"figure with caption", "<figure><img src=\"a.png\">\n<figcaption>cap</figcaption></figure>", "<figure><img src=\"a.png\"><figcaption>cap</figcaption></figure>\n"},
		{"video sources collapse", "<video>\n<source src=\"a.mp4\">\n</video>", "<p><video><source src=\"a.mp4\"></video></p>\n"},
		{"utf8", "Ünïcödé\n\n日本語", "<p>Ünïcödé</p>\n<p>日本語</p>\n"},
		{"paragraph with attributes kept", "<p class=\"a\">x</p>\n\ny", "<p class=\"a\">x</p>\n<p>y</p>\n"},
		{"colgroup is block", "<table><colgroup><col></colgroup></table>", "<table>\n<colgroup>\n<col></colgroup>\n</table>\n"},
		{"div with text loses trailing br", "<div>\nHello\n</div>", "<div>\nHello\n</div>\n"},
		{"section with text keeps trailing br", "<section>\nHello\n</section>", "<section>\nHello<br />\n</section>\n"},
		{"span is inline", "<span>a</span>\n\n<span>b</span>", "<p><span>a</span></p>\n<p><span>b</span></p>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := autop(tt.in); got != tt.want {
				t.Errorf("autop(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewlinesToBr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"no newline", "a b", "a b"},
		{"newline", "a\nb", "a<br />\nb"},
		{"spaces before newline absorbed", "a  \nb", "a<br />\nb"},
		{"after br untouched", "a<br />\nb", "a<br />\nb"},
		{"space after br retried one later", "a<br /> \nb", "a<br /> <br />\nb"},
		{"run of newlines", "a\n \nb", "a<br />\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := newlinesToBr(tt.in); got != tt.want {
				t.Errorf("newlinesToBr(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
