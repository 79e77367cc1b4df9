package auth_test

import (
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/auth"
)

func TestNewPasswordsNeedTwelveCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pw   string
		want string // "" = accepted
	}{
		{"Hook-pass-1234", ""},
		{"correct horse battery staple", ""},
		{"twelve chars", ""},
		{"ünïcödé-pwd!", ""}, // 12 characters, more bytes
		{"eleven char", "at least 12 characters"},
		{"", "at least 12 characters"},
		{"pw", "it has 2"},
		{strings.Repeat("x", 73), "at most 72 bytes"},
		{" leading space", "white space"},
	}
	for _, tt := range tests {
		err := auth.CheckNewPassword(tt.pw)
		if tt.want == "" {
			if err != nil {
				t.Errorf("auth.CheckNewPassword(%q) = %v, want nil", tt.pw, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("auth.CheckNewPassword(%q) = %v, want an error with %q", tt.pw, err, tt.want)
		}
	}
}
