package sqlstore

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sortedSet is SearchWords of every field, sorted byte-wise, each once.
func sortedSet(fields ...string) []string {
	var ws []string
	for _, f := range fields {
		ws = append(ws, SearchWords(f)...)
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

var postWordCases = [][]string{
	{"Garden notes", "", "<p>Tomatoes in the <strong>garden</strong>.</p>"},
	{"", "", ""},
	{"A<b c>D", "a < b > c", "<p>left <open and 1<2</p> <unclosed"},
	{"Hyphen-ated WORDS words Words", "it's x_y x2 2x", "<!-- wp:paragraph -->\n<p>CamelCase</p>"},
	{strings.Repeat("Ab", 40) + " " + strings.Repeat("ab", 40) + "C", strings.Repeat("z", 64) + "Z", strings.Repeat("q", 65)},
	{strings.Repeat("w ", MaxSearchChars/2-1) + "Tail end", "", strings.Repeat("<i>x</i>", MaxSearchChars) + " after"},
	{strings.Repeat("a", MaxSearchChars+10), "", ""},
	{"“Curly” Quotes — dashes…", "no\u00a0break\u2009thin «guillemets» ©2024 ×3 ½ ¹²³ ÷", "<p>it’s x·y</p>"},
}

// TestPostWordsAreSearchWords: on text the database splits as Go does,
// the index rows' splitter gives SearchWords' words, sorted, each once.
func TestPostWordsAreSearchWords(t *testing.T) {
	t.Parallel()
	var words postWords
	for _, c := range postWordCases {
		got, want := words.Set(c...), sortedSet(c...)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("words.Set(%.60q) = %.200q, SearchWords gives %.200q", c, got, want)
		}
	}
}

// TestSplitAlike: ASCII, and the punctuation, spaces and symbols beyond it
// that are no letter or digit in any Unicode version, split alike; a
// letter or digit beyond ASCII (which the database's Unicode decides) or
// a byte that is not UTF-8 does not.
func TestSplitAlike(t *testing.T) {
	t.Parallel()
	for _, c := range postWordCases {
		if !splitAlike(c...) {
			t.Errorf("splitAlike(%.60q) = false, want true", c)
		}
	}
	for _, s := range []string{"Äpfel", "naïve", "ΣΟΦΙΑΣ", "東京", "İstanbul", "x\u00aay", "µs", "n\u00bao", "٣", "\xff", "ﬁ"} {
		if splitAlike("plain", s) {
			t.Errorf("splitAlike(%q) = true, want false", s)
		}
	}
}

func FuzzPostWords(f *testing.F) {
	for _, c := range postWordCases {
		if len(c[0]) < 1000 {
			f.Add(c[0], c[1], c[2])
		}
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if !splitAlike(a, b, c) {
			return
		}
		var words postWords
		got, want := words.Set(a, b, c), sortedSet(a, b, c)
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("words.Set(%q, %q, %q) = %q, SearchWords gives %q", a, b, c, got, want)
		}
	})
}
