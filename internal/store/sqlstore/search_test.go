package sqlstore

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// referenceWords is SearchWords written as its rules read (search.go):
// tags replaced by spaces first, the text cut, then a pass over the
// characters. The tokenizer does all of it in one pass; both must agree
// on every input.
func referenceWords(s string) []string {
	s = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, " ")
	if utf8.RuneCountInString(s) > MaxSearchChars {
		n := 0
		for i := range s {
			if n == MaxSearchChars {
				s = s[:i]
				break
			}
			n++
		}
	}
	var out []string
	var b strings.Builder
	chars := 0
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
		chars = 0
	}
	for _, r := range s {
		switch {
		case r == 'İ':
			if chars < MaxWordChars {
				b.WriteByte('i')
			}
			flush()
			continue
		case unicode.IsLetter(r) || unicode.Is(unicode.Nd, r):
		default:
			flush()
			continue
		}
		if chars == MaxWordChars {
			continue
		}
		r = unicode.ToLower(r)
		if r == 'ς' {
			r = 'σ'
		}
		b.WriteRune(r)
		chars++
	}
	flush()
	return out
}

var searchWordsCases = []string{
	"",
	"garden",
	"Garden GARDEN gArDeN",
	"<p>Hello <strong>world</strong></p>",
	"a<b>c",
	"a < b and c > d",
	"unclosed <tag and more words",
	"<<>>x<y<z>w",
	"<!-- wp:paragraph -->\n<p>Text.</p>\n<!-- /wp:paragraph -->",
	"İstanbul İ İİ xİy",
	"ΣΟΦΙΑΣ σοφίας ς",
	"Äpfel ÜNÏCODE straße",
	"東京 の 庭園",
	"٣٤٥ ١٢ 3.14 2024-05",
	"e\u0301te cafe\u0301",
	"bad \xff\xfe utf8 \xc3",
	"it's well-known; a.b@example.com",
	strings.Repeat("x", 70) + " " + strings.Repeat("Y", 70) + " " + strings.Repeat("é", 65) + "É",
	strings.Repeat("ab", 40) + "İ",
	strings.Repeat("a", 63) + "İ",
	strings.Repeat("a", 64) + "İb",
	strings.Repeat("word ", MaxSearchChars/5) + "tail",
	strings.Repeat("w", MaxSearchChars-1) + "<b>" + "after",
	strings.Repeat("é", MaxSearchChars-2) + " Zed more",
	strings.Repeat("<i>", 5) + "x" + strings.Repeat("<", 3),
}

func TestSearchWordsFollowTheRules(t *testing.T) {
	for _, s := range searchWordsCases {
		if got, want := SearchWords(s), referenceWords(s); !reflect.DeepEqual(got, want) {
			t.Errorf("SearchWords(%.60q) = %.200q, want %.200q", s, got, want)
		}
	}
}

func FuzzSearchWords(f *testing.F) {
	for _, s := range searchWordsCases {
		if len(s) < 1000 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SearchWords(s), referenceWords(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("SearchWords(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestSearchText: distinct words of every field, in order of first use.
func TestSearchText(t *testing.T) {
	got := SearchText("The <b>Garden</b> garden", "", "GARDENS the İ end")
	if want := "the garden gardens i end"; got != want {
		t.Errorf("SearchText = %q, want %q", got, want)
	}
}

func BenchmarkSearchText(b *testing.B) {
	content := strings.Repeat("<!-- wp:paragraph -->\n<p>Lorem ipsum dolor sit amet, Consectetur adipiscing elit garden river.</p>\n<!-- /wp:paragraph -->\n\n", 30)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		SearchText("Notes on Building Quiet Gardens", "", content)
	}
}
