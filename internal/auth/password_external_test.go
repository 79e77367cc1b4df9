package auth_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
)

func TestAccountPasswordRoundTrip(t *testing.T) {
	t.Parallel()
	hash, err := auth.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$2a$10$") {
		t.Errorf("hash %q is not bcrypt cost 10", hash)
	}
	other, err := auth.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if other == hash {
		t.Errorf("two hashes of one password are equal: no salt")
	}
	tests := []struct {
		hash, pw string
		want     bool
	}{
		{hash, "correct horse", true},
		{other, "correct horse", true},
		{hash, "correct horse ", false},
		{hash, "Correct horse", false},
		{hash, "", false},
		{"", "", false},
		{"not a hash", "correct horse", false},
		{auth.HashAppPassword("correct horse"), "correct horse", false},
	}
	for _, tt := range tests {
		if got := auth.CheckPassword(tt.hash, tt.pw); got != tt.want {
			t.Errorf("auth.CheckPassword(%q, %q) = %v, want %v", tt.hash, tt.pw, got, tt.want)
		}
	}
	if _, err := auth.HashPassword(strings.Repeat("x", 73)); err == nil {
		t.Errorf("auth.HashPassword accepted a password bcrypt would truncate")
	}
}

var appPasswordShape = regexp.MustCompile(`^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$`)

func TestGenerateAppPassword(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 200 {
		plain, hash, err := auth.GenerateAppPassword()
		if err != nil {
			t.Fatal(err)
		}
		if !appPasswordShape.MatchString(plain) {
			t.Fatalf("password %q is not 6 groups of 4 alphanumerics", plain)
		}
		if hash != auth.HashAppPassword(plain) {
			t.Errorf("hash %q != auth.HashAppPassword(%q)", hash, plain)
		}
		if seen[plain] {
			t.Fatalf("password %q generated twice", plain)
		}
		seen[plain] = true
		for _, r := range strings.ReplaceAll(plain, " ", "") {
			counts[r]++
		}
	}
	// 4800 draws over 62 symbols: every class of character shows up.
	var upper, lower, digit bool
	for r := range counts {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	if !upper || !lower || !digit || len(counts) < 55 {
		t.Errorf("poor character spread: %d distinct symbols", len(counts))
	}
}

func TestHashAppPassword(t *testing.T) {
	t.Parallel()
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // SHA-256("abc")
	tests := []struct {
		in   string
		want string
	}{
		{"abc", abc},
		{"a b c", abc},
		{" ab\tc\n", abc},
		{"abC", ""},
	}
	for _, tt := range tests {
		got := auth.HashAppPassword(tt.in)
		if tt.want != "" && got != tt.want {
			t.Errorf("auth.HashAppPassword(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if tt.want == "" && got == abc {
			t.Errorf("auth.HashAppPassword(%q) is case-insensitive", tt.in)
		}
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	e := &auth.Error{Code: "rest_authentication_failed", Message: "Bad.", Status: 401}
	if got, want := e.Error(), "rest_authentication_failed: Bad."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
