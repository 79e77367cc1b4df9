package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// passwordCost is the bcrypt cost of account passwords.
const passwordCost = 10

// HashPassword hashes an account password with bcrypt.
func HashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), passwordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether pw matches the bcrypt hash.
func CheckPassword(hash, pw string) bool {
	if hash == "" {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}

const (
	appPasswordAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	appPasswordLen      = 24
	appPasswordGroup    = 4
)

// GenerateAppPassword returns a new application password and its hash. The
// password is 24 characters drawn uniformly from [A-Za-z0-9] with
// crypto/rand (about 143 bits), shown as six groups of four separated by
// spaces; hash is HashAppPassword(plain).
func GenerateAppPassword() (plain, hash string, err error) {
	chars := make([]byte, 0, appPasswordLen)
	buf := make([]byte, 64)
	// Rejection sampling keeps the choice uniform: 248 is the largest
	// multiple of 62 that fits in a byte.
	const limit = 256 - 256%len(appPasswordAlphabet)
	for len(chars) < appPasswordLen {
		if _, err := rand.Read(buf); err != nil {
			return "", "", fmt.Errorf("generate application password: %w", err)
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			chars = append(chars, appPasswordAlphabet[int(b)%len(appPasswordAlphabet)])
			if len(chars) == appPasswordLen {
				break
			}
		}
	}
	var sb strings.Builder
	for i := 0; i < appPasswordLen; i += appPasswordGroup {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.Write(chars[i : i+appPasswordGroup])
	}
	plain = sb.String()
	return plain, HashAppPassword(plain), nil
}

// HashAppPassword returns the stored form of an application password: the
// SHA-256 hex digest of the password with its spaces removed, so that it
// matches whether or not the client keeps the grouping.
//
// A fast hash is deliberate. Slow hashes such as bcrypt protect low-entropy,
// human-chosen secrets from guessing; application passwords are ~143-bit
// random secrets, which no amount of hashing speed makes guessable, so
// SHA-256 is as safe as bcrypt here and keeps the check that runs on every
// Basic-authenticated request cheap.
func HashAppPassword(plain string) string {
	clean := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r':
			return -1
		}
		return r
	}, plain)
	sum := sha256.Sum256([]byte(clean))
	return hex.EncodeToString(sum[:])
}
