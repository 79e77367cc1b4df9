package auth

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MinPasswordLength is the shortest account password Folio accepts where
// a person chooses one (the command line and the first-administrator
// page), in characters: twelve characters of any kind resist guessing far
// better than short "complex" ones.
const MinPasswordLength = 12

// MaxPasswordBytes is the longest account password accepted: bcrypt uses
// only the first 72 bytes.
const MaxPasswordBytes = 72

// CheckNewPassword reports why pw cannot be a new account password: too
// short, too long for bcrypt, or only white space at its ends.
func CheckNewPassword(pw string) error {
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength {
		return fmt.Errorf("the password must be at least %d characters long (it has %d); a few unrelated words make a good one", MinPasswordLength, n)
	}
	if len(pw) > MaxPasswordBytes {
		return fmt.Errorf("the password must be at most %d bytes long (it has %d)", MaxPasswordBytes, len(pw))
	}
	if strings.TrimSpace(pw) != pw {
		return fmt.Errorf("the password must not start or end with white space")
	}
	return nil
}
