package render

import "testing"

// Cases come from the platform's own wptexturize tests.
func TestTexturize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"spaced double dash is em dash", "Hey -- boo?", "Hey &#8212; boo?"},
		{"dash in attribute untouched", `<a href="http://xx--xx">Hey -- boo?</a>`, `<a href="http://xx--xx">Hey &#8212; boo?</a>`},
		{"triple dash is em dash", "a---b", "a&#8212;b"},
		{"double dash in word is en dash", "1--2", "1&#8211;2"},
		{"punycode double dash kept", "xn--bcher-kva", "xn--bcher-kva"},
		{"spaced single dash is en dash", "a - b", "a &#8211; b"},
		{"hyphen kept", "well-known", "well-known"},
		{"pre untouched", "<pre>---&</pre>", "<pre>---&</pre>"},
		{"nested code in pre untouched", "<pre><code></code>--&</pre>", "<pre><code></code>--&</pre>"},
		{"code untouched", "<code>---&</code>", "<code>---&</code>"},
		{"kbd untouched", "<kbd>---&</kbd>", "<kbd>---&</kbd>"},
		{"style untouched", "<style>---&</style>", "<style>---&</style>"},
		{"script untouched", "<script>---&</script>", "<script>---&</script>"},
		{"tt untouched", "<tt>---&</tt>", "<tt>---&</tt>"},
		{"after code texturized", `<code>href="baba"</code> "baba"`, `<code>href="baba"</code> &#8220;baba&#8221;`},
		{"double nesting", `<pre>"baba"<code>"baba"<pre></pre></code>"baba"</pre>`, `<pre>"baba"<code>"baba"<pre></pre></code>"baba"</pre>`},
		{"invalid nesting", `<pre></code>"baba"</pre>`, `<pre></code>"baba"</pre>`},
		{"bracketed double quotes", `("test")`, "(&#8220;test&#8221;)"},
		{"bracketed single quotes", "('test')", "(&#8216;test&#8217;)"},
		{"cockney", "('twas)", "(&#8217;twas)"},
		{"apostrophe", "test's", "test&#8217;s"},
		{"single quoted", "'quoted'", "&#8216;quoted&#8217;"},
		{"double quoted", `"quoted"`, "&#8220;quoted&#8221;"},
		{"quotes with spaces", "space before 'quoted' space after", "space before &#8216;quoted&#8217; space after"},
		{"apostrophe inside quotes", ` "test's quoted" `, ` &#8220;test&#8217;s quoted&#8221; `},
		{"single with apostrophe inside", ` 'test's quoted' `, ` &#8216;test&#8217;s quoted&#8217; `},
		{"sentence", "you're working it's dying.", "you&#8217;re working it&#8217;s dying."},
		{"finishing number", `A test with a finishing number, "like 23".`, "A test with a finishing number, &#8220;like 23&#8221;."},
		{"number in middle", `A test with a number, "like 62", is nice to have.`, "A test with a number, &#8220;like 62&#8221;, is nice to have."},
		{"year apostrophe", "Class of '99", "Class of &#8217;99"},
		{"year possessive", "Class of '99's", "Class of &#8217;99&#8217;s"},
		{"quoted year", "'Class of '99'", "&#8216;Class of &#8217;99&#8217;"},
		{"quoted year comma", "'Class of '99', she said", "&#8216;Class of &#8217;99&#8217;, she said"},
		{"double quoted year", `"Class of '99"`, "&#8220;Class of &#8217;99&#8221;"},
		{"between quotations", `}"Class of '99"{`, "}&#8221;Class of &#8217;99&#8243;{"},
		{"times", "14x24", "14&#215;24"},
		{"hex not times", "0x1234", "0x1234"},
		{"prime", "9'", "9&#8242;"},
		{"double prime", `9"`, "9&#8243;"},
		{"primes in quotes", `"a 9' b"`, "&#8220;a 9&#8242; b&#8221;"},
		{"double prime in single quotes", `'a 9" b'`, "&#8216;a 9&#8243; b&#8217;"},
		{"quoted number", `"12345"`, "&#8220;12345&#8221;"},
		{"single quoted number", "'12345'", "&#8216;12345&#8217;"},
		{"mixed primes and quotes", `"a 9' plus a '9', maybe a 9' '9'"`, "&#8220;a 9&#8242; plus a &#8216;9&#8217;, maybe a 9&#8242; &#8216;9&#8217;&#8221;"},
		{"ellipsis", "wait...", "wait&#8230;"},
		{"trademark", "Brand (tm)", "Brand &#8482;"},
		{"ampersand encoded", "a & b", "a &#038; b"},
		{"entity kept", "a &amp; b &#8217; &#x41;", "a &amp; b &#8217; &#x41;"},
		{"ampersand in attribute encoded", `<a href="?a=1&b=2">x</a>`, `<a href="?a=1&#038;b=2">x</a>`},
		{"quotes in attributes unchanged", `<a title="it's "x"">"y"</a>`, `<a title="it's "x"">&#8220;y&#8221;</a>`},
		{"comment untouched", `<!-- "x" -- -->"y"`, `<!-- "x" -- -->&#8220;y&#8221;`},
		{"registered shortcode untouched", `[gallery ids="1,2" link='file'] "x"`, `[gallery ids="1,2" link='file'] &#8220;x&#8221;`},
		{"escaped shortcode untouched", `[[caption title="a"]]`, `[[caption title="a"]]`},
		{"unregistered shortcode texturized", `[foo bar="x"]`, `[foo bar=&#8221;x&#8221;]`},
		{"utf8 text", `Ünïcödé "quoted" – ok`, `Ünïcödé &#8220;quoted&#8221; – ok`},
		{"non-breaking space before quote", "a\u00a0\"b\"", "a\u00a0&#8220;b&#8221;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := texturize(tt.in); got != tt.want {
				t.Errorf("texturize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}
