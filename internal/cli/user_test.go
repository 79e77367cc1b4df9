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

// TestHintsNameTheCommandAsThePersonRunsIt: hints printed by serve and
// import can be copied as they are: `go run ./cmd/folio` under go run
// (whose binary lives in a temporary build directory), else the program
// name as typed.
func TestHintsNameTheCommandAsThePersonRunsIt(t *testing.T) {
	t.Parallel()
	tests := []struct{ exe, arg0, want string }{
		{"/tmp/go-build3829/b001/exe/folio", "/tmp/go-build3829/b001/exe/folio", "go run ./cmd/folio"},
		{"/home/ann/go/bin/folio", "folio", "folio"},
		{"/srv/folio/folio", "./folio", "./folio"},
		{"/opt/my tools/folio", "/opt/my tools/folio", "'/opt/my tools/folio'"},
		{"", "", "folio"},
	}
	for _, tt := range tests {
		if got := commandNameFor(tt.exe, tt.arg0); got != tt.want {
			t.Errorf("commandNameFor(%q, %q) = %q, want %q", tt.exe, tt.arg0, got, tt.want)
		}
	}
}
