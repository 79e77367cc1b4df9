package content

import (
	"strconv"
	"strings"
	"testing"
)

// TestSlugStemIsSharedByEveryCandidate: every candidate finishSlug makes
// of a slug (slug, slug-2, …, cut to make room for the suffix) has the
// slug's stem, so two creates that could pick the same candidate lock the
// same key; slugs that cannot meet get different stems.
func TestSlugStemIsSharedByEveryCandidate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefghij-", 25) // 275 bytes
	for _, tt := range []struct{ slug, want string }{
		{"hello", "hello"},
		{"hello-2", "hello"},
		{"hello-2-3", "hello"},
		{"hello-world", "hello-world"},
		{"2024", "2024"},
		{"2024-11", "2024"},
		{"trailing-", "trailing-"},
		{"-7", "-7"},
		{long, long[:120]},
	} {
		if got := slugStem(tt.slug, 120); got != tt.want {
			t.Errorf("slugStem(%q) = %q, want %q", tt.slug, got, tt.want)
		}
	}
	for _, base := range []string{"hello", "hello-2", "2024-11", long, long[:119] + "-5", strings.Repeat("x", 195)} {
		stem := slugStem(base, 120)
		for _, n := range []int{2, 9, 10, 99, 1000, 123456789} {
			suffix := "-" + strconv.Itoa(n)
			cand := truncateSlug(base, 200-len(suffix)) + suffix
			if got := slugStem(cand, 120); got != stem {
				t.Errorf("candidate %q of %q has stem %q, the base %q", cand, base, got, stem)
			}
		}
	}
	if slugStem("hello", 120) == slugStem("help", 120) {
		t.Error("unrelated slugs share a stem")
	}
	// Nicenames are cut to 50 bytes before a suffix: stems of 40.
	nice := strings.Repeat("n", 60)
	for _, n := range []int{2, 1000} {
		suffix := "-" + strconv.Itoa(n)
		if got := slugStem(truncateSlug(nice, 50-len(suffix))+suffix, 40); got != slugStem(nice, 40) {
			t.Errorf("nicename candidate %d has stem %q", n, got)
		}
	}
}
