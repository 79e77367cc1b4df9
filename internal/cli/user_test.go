package cli

import "testing"

func TestSlugify(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"admin":         "admin",
		"Jane.Doe":      "jane-doe",
		"john smith":    "john-smith",
		"a@b.com":       "ab-com",
		"under_score":   "under_score",
		"--x--":         "x",
		"@@@":           "user",
		"Mixed  Spaces": "mixed-spaces",
	}
	for in, want := range tests {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}
