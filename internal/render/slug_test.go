package render

import (
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"lower-case and spaces", "Hello World", "hello-world"},
		{"punctuation removed", "Hello, World! (Really?)", "hello-world-really"},
		{"accents", "Café Déjà vu", "cafe-deja-vu"},
		{"sharp s", "Straße", "strasse"},
		{"ligatures and slashed o", "Ærøskøbing æble", "aeroskobing-aeble"},
		{"latin extended-a", "Łódź Ţară Œuvre", "lodz-tara-oeuvre"},
		{"cyrillic percent-encoded", "Привет мир", "%d0%bf%d1%80%d0%b8%d0%b2%d0%b5%d1%82-%d0%bc%d0%b8%d1%80"},
		{"cjk percent-encoded", "日本", "%e6%97%a5%e6%9c%ac"},
		{"dots slashes and dashes", "a.b/c  d---e", "a-b-c-d-e"},
		{"tags stripped", "<b>Bold</b> title", "bold-title"},
		{"stray percent removed", "100% sure", "100-sure"},
		{"existing octet kept", "a%C3%A9b", "a%c3%a9b"},
		{"en dash becomes hyphen", "a – b", "a-b"},
		{"curly quotes removed", "“Quoted” it’s", "quoted-its"},
		{"entities killed", "Tom &amp; Jerry", "tom-jerry"},
		{"times sign", "2×4", "2x4"},
		{"trim hyphens", "--x--", "x"},
		{"underscore kept", "snake_case", "snake_case"},
		{"invalid utf8 dropped", "a\xffb", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Slug(tt.in); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSlugMaxLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		wantLen  int
	}{
		{"ascii cut at 200", strings.Repeat("a", 300), 200},
		{"encoded never split", strings.Repeat("я", 100), 198},
		{"mixed", "x" + strings.Repeat("日", 100), 199},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Slug(tt.in)
			if len(got) != tt.wantLen {
				t.Errorf("len(Slug) = %d, want %d (%q)", len(got), tt.wantLen, got)
			}
		})
	}
}
