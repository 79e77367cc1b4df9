package content

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestDatedPermalinkMatchesSprintf checks the hand-built post permalink
// against the format it replaces.
func TestDatedPermalinkMatchesSprintf(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 4))
	years := []int{0, 7, 42, 999, 2024, 9999, 10000, -5}
	for n := 0; n < 2000; n++ {
		y := years[n%len(years)]
		if n%2 == 1 {
			y = rng.IntN(10000)
		}
		d := time.Date(y, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
		root, slug := "http://example.test/blog", fmt.Sprintf("post-%d", n)
		want := fmt.Sprintf("%s/%04d/%02d/%02d/%s/", root, d.Year(), int(d.Month()), d.Day(), slug)
		if got := datedPermalink(root, d, slug); got != want {
			t.Fatalf("datedPermalink(%v) = %q, want %q", d, got, want)
		}
	}
}
