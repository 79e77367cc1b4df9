package render

import "testing"

func TestRemoveBlockDelimiters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"no comments", "<p>x</p>", "<p>x</p>"},
		{"open and close", "<!-- wp:paragraph -->\n<p>x</p>\n<!-- /wp:paragraph -->", "\n<p>x</p>\n"},
		{"namespaced", "<!-- wp:core/quote --><q>x</q><!-- /wp:core/quote -->", "<q>x</q>"},
		{"plugin block", "<!-- wp:my-plugin/box-1 {\"a\":1} -->x<!-- /wp:my-plugin/box-1 -->", "x"},
		{"self-closing", "a<!-- wp:spacer /-->b", "ab"},
		{"self-closing with attributes", "a<!-- wp:spacer {\"height\":\"20px\"} /-->b", "ab"},
		{"json with braces and arrows", "<!-- wp:x {\"a\":{\"b\":\"}-->\"}} -->y<!-- /wp:x -->", "y"},
		{"multi-line attributes", "<!-- wp:x {\n\"a\": 1\n} -->y", "y"},
		{"other comments kept", "<!-- note --><!--more-->", "<!-- note --><!--more-->"},
		{"missing space kept", "<!--wp:paragraph-->x", "<!--wp:paragraph-->x"},
		{"upper-case name kept", "<!-- wp:Para -->x", "<!-- wp:Para -->x"},
		{"unterminated attributes kept", "<!-- wp:x {\"a\":1 -->y", "<!-- wp:x {\"a\":1 -->y"},
		{"utf8 around", "é<!-- wp:p -->ü", "éü"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := RemoveBlockDelimiters(tt.in); got != tt.want {
				t.Errorf("RemoveBlockDelimiters(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripShortcodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"no brackets", "text", "text"},
		{"self-contained", `a[gallery ids="1,2"]b`, "ab"},
		{"self-closing", "a[gallery /]b", "ab"},
		{"enclosing with content", `a[caption id="x"]<img src="i.png"> cap[/caption]b`, "ab"},
		{"escaped kept literally", "[[gallery]]", "[gallery]"},
		{"unregistered kept", "[foo]x[/foo]", "[foo]x[/foo]"},
		{"name prefix is not a match", "[gallery-x]", "[gallery-x]"},
		{"inside tag attribute kept", `<a title="[gallery]">x</a>[video src="v.mp4"]`, `<a title="[gallery]">x</a>`},
		{"unterminated kept", "[gallery ids=1", "[gallery ids=1"},
		{"several", "[audio src=a][embed]http://x[/embed] ok", " ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := StripShortcodes(tt.in); got != tt.want {
				t.Errorf("StripShortcodes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
