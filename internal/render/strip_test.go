package render

import "testing"

func TestStripTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "  text  ", "text"},
		{"tags removed", "<p>Hello <b>world</b></p>", "Hello world"},
		{"script and style with content", "a<script type=\"x\">var a = '<b>';</script>b<STYLE>p{}</STYLE>c", "abc"},
		{"comment removed", "a<!-- c > d -->b", "ab"},
		{"quoted greater-than in attribute", `<a title="a>b">x</a>`, "x"},
		{"less-than before space kept", "a < b", "a < b"},
		{"unterminated tag removes rest", "a <b", "a"},
		{"entities kept", "&amp; &lt;", "&amp; &lt;"},
		{"processing instruction", "a<?php echo 1; ?>b", "ab"},
		{"doctype", "<!DOCTYPE html>x", "x"},
		{"utf8", "<i>naïve</i> 日本", "naïve 日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := StripTags(tt.in); got != tt.want {
				t.Errorf("StripTags(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTrimWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		n    int
		more string
		want string
	}{
		{"empty", "", 3, "…", ""},
		{"fewer words", "a b", 3, "…", "a b"},
		{"exact", "a b c", 3, "…", "a b c"},
		{"cut", "a b c d", 3, "…", "a b c…"},
		{"white space collapsed", " a\n\tb  c ", 5, "…", "a b c"},
		{"tags stripped first without adding spaces", "<p>a <b>b</b></p><p>c</p> d", 2, " [&hellip;]", "a bc [&hellip;]"},
		{"zero", "a b", 0, "…", "…"},
		{"zero empty", "", 0, "…", ""},
		{"utf8 words", "éé üü ßß", 2, "", "éé üü"},
		{"exact with trailing space", "a b c \r\n\t", 3, "…", "a b c"},
		{"negative", "a", -1, "…", "…"},
		{"non-breaking space is not a separator", "a\u00a0b c", 1, "…", "a\u00a0b…"},
		{"invalid utf-8 kept inside a word", "a\xffb c", 1, "…", "a\xffb…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := TrimWords(tt.in, tt.n, tt.more); got != tt.want {
				t.Errorf("TrimWords(%q, %d, %q) = %q, want %q", tt.in, tt.n, tt.more, got, tt.want)
			}
		})
	}
}

func TestPlainText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"trim and collapse", "  a \n\t b  ", "a b"},
		{"tags stripped", "<p>Hello</p>\n<b>world</b>", "Hello world"},
		{"lone less-than encoded", "a < b", "a &lt; b"},
		{"less-than before letter encoded", "1 <2 and x<y", "1 &lt;2 and x&lt;y"},
		{"script removed", "a<script>alert(1)</script>b", "ab"},
		{"octets removed", "50%41 off %zz", "50 off %zz"},
		{"invalid utf8 dropped", "bad\xff\xfeutf", "badutf"},
		{"valid utf8 kept", "Grüße 世界", "Grüße 世界"},
		{"entities kept", "Tom &amp; Jerry", "Tom &amp; Jerry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := PlainText(tt.in); got != tt.want {
				t.Errorf("PlainText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
