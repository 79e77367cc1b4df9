package rest

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendStringBytewise is the byte-at-a-time JSON string encoder that
// appendString's word-at-a-time scan must agree with.
func appendStringBytewise(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028':
			b = append(b, `\u2028`...)
		case r == '\u2029':
			b = append(b, `\u2029`...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func TestAppendStringEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"": `""`,
		"plain ascii text, long enough for words": `"plain ascii text, long enough for words"`,
		`say "hi" \ bye`:              `"say \"hi\" \\ bye"`,
		"tab\there\nnew\rline":        `"tab\there\nnew\rline"`,
		"\x00\x01\x1f\x7f":            `"\u0000\u0001\u001f` + "\x7f" + `"`,
		"é, ü and 日本語 in text":        `"é, ü and 日本語 in text"`,
		"line\u2028para\u2029end":     `"line\u2028para\u2029end"`,
		"bad \xff byte, cut \xe6\x97": `"bad \ufffd byte, cut \ufffd\ufffd"`,
		"<p>html & stays</p>":         `"<p>html & stays</p>"`,
		"12345678\"2345678\\":         `"12345678\"2345678\\"`,
	} {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestAppendStringMatchesBytewise compares the two encoders on random
// strings mixing plain runs with every kind of byte that needs care, at
// every alignment.
func TestAppendStringMatchesBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "plain text ", "01234567", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f",
		"é", "日本", "\u2028", "\u2029", "\xff", "\xe6\x97", "\xc3", "<b>", " ", "\U0001F600"}
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := rng.IntN(40); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := sb.String()
		for off := 0; off < 8 && off <= len(s); off++ {
			got, want := appendString(nil, s[off:]), appendStringBytewise(nil, s[off:])
			if string(got) != string(want) {
				t.Fatalf("appendString(%q) = %s, want %s", s[off:], got, want)
			}
		}
	}
	// Every single byte value in every position of a word.
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 9; pos++ {
			s := strings.Repeat("x", pos) + string([]byte{byte(c)}) + strings.Repeat("y", 9-pos)
			got, want := appendString(nil, s), appendStringBytewise(nil, s)
			if string(got) != string(want) {
				t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
			}
		}
	}
}
