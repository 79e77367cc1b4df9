package render

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The pieces random inputs are made of: the tags, breaks and white space
// the hand-written matchers of autop look for, and text between them.
var patternPieces = []string{
	"<p>", "</p>", "<li", "<li>", "</li>", "<p><li", "\n", "\n\n", "\n \n", " ", "\t", "\r", "\v", "x", "yz",
	"<pre wp-pre-tag-", "0", "1", "2", "10", "></pre>", "<blockquote", "<BlockQuote", "<P>", "<br />",
	"<param>", "<div>", "</div>", "<h2>", "<hr>", "<pre>", ">", "<", "é",
}

func randomPatternInput(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(24) {
		b.WriteString(patternPieces[rng.IntN(len(patternPieces))])
	}
	return b.String()
}

// TestHandWrittenMatchersAgreeWithPatterns checks each matcher autop runs
// by hand against the regular expression (or library call) it stands for,
// on random inputs.
func TestHandWrittenMatchersAgreeWithPatterns(t *testing.T) {
	wrappedLi := regexp.MustCompile(`<p>(<li.+?)</p>`)
	manyNewlines := regexp.MustCompile("\n\n+")
	paragraphSplit := regexp.MustCompile("\n" + ws + "*\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		s := randomPatternInput(rng)
		if got, want := unwrapListItems(s), wrappedLi.ReplaceAllString(s, "$1"); got != want {
			t.Fatalf("unwrapListItems(%q) = %q, want %q", s, got, want)
		}
		if got, want := collapseNewlines(s), manyNewlines.ReplaceAllLiteralString(s, "\n\n"); got != want {
			t.Fatalf("collapseNewlines(%q) = %q, want %q", s, got, want)
		}
		var got, want []string
		for p := range paragraphs(s) {
			got = append(got, p)
		}
		for _, p := range paragraphSplit.Split(s, -1) {
			if p != "" {
				want = append(want, p)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("paragraphs(%q) = %q, want %q", s, got, want)
		}
		pre := []string{"<pre>a</pre>", "<pre>\n\n</pre>", "<pre>c</pre>"}[:rng.IntN(4)]
		if len(pre) > 0 {
			var pairs []string
			for i, p := range pre {
				pairs = append(pairs, prePlaceholder+strconv.Itoa(i)+"></pre>", p)
			}
			if got, want := restorePreTags(s, pre), strings.NewReplacer(pairs...).Replace(s); got != want {
				t.Fatalf("restorePreTags(%q, %q) = %q, want %q", s, pre, got, want)
			}
		}
		for _, sub := range []string{"<blockquote", "blockquote", "P>"} {
			want := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(sub)).MatchString(s)
			if got := containsFoldASCII(s, sub); got != want {
				t.Fatalf("containsFoldASCII(%q, %q) = %v, want %v", s, sub, got, want)
			}
		}
		for i := range len(s) {
			if got, want := blockTagEnd(s, i), blockTagEndByNames(s, i); got != want {
				t.Fatalf("blockTagEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

// blockTagEndByNames is blockTagEnd trying every block name in turn.
func blockTagEndByNames(s string, i int) int {
	if i >= len(s) || s[i] != '<' {
		return -1
	}
	p := i + 1
	if p < len(s) && s[p] == '/' {
		p++
	}
	for _, n := range blockNames {
		if strings.HasPrefix(s[p:], n) {
			if k := strings.IndexByte(s[p:], '>'); k >= 0 {
				return p + k + 1
			}
			return -1
		}
	}
	return -1
}
