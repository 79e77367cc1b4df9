package wxrexport

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// xmlChar reports whether r may appear in an XML 1.0 document (the Char
// production): tab, line feed, carriage return and everything from space
// up, except the surrogates, U+FFFE and U+FFFF.
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// clean returns s as valid UTF-8 made only of XML characters: a byte that
// is not part of a UTF-8 sequence is read as Latin-1 (what the original's
// utf8_encode does with text that is not UTF-8), and characters XML cannot
// carry (NUL and the other C0 controls but tab, line feed and carriage
// return; U+FFFE and U+FFFF) are dropped. Text that is already clean is
// returned as is, without allocating.
func clean(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !xmlChar(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = rune(s[i]) // Latin-1
		}
		if xmlChar(r) {
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// cdataReplacer splits a CDATA section around what it cannot hold: "]]>"
// ends the section between "]]" and ">" (as the original's wxr_cdata
// does), and a carriage return is written as the character reference
// &#13; between two sections, because parsers turn a literal CR (and
// CR LF) into LF.
var cdataReplacer = strings.NewReplacer(
	"]]>", "]]]]><![CDATA[>",
	"\r", "]]>&#13;<![CDATA[",
)

// textReplacer escapes character data outside CDATA.
var textReplacer = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	"\r", "&#13;",
)

// attrReplacer escapes an attribute value in double quotes; whitespace
// other than space is written as references so that attribute value
// normalization keeps it.
var attrReplacer = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"\t", "&#9;",
	"\n", "&#10;",
	"\r", "&#13;",
)

// cdata returns s as one or more CDATA sections, cleaned.
func cdata(s string) string {
	return "<![CDATA[" + cdataReplacer.Replace(clean(s)) + "]]>"
}

// escText returns s as escaped character data, cleaned.
func escText(s string) string { return textReplacer.Replace(clean(s)) }

// escAttr returns s as an escaped attribute value, cleaned.
func escAttr(s string) string { return attrReplacer.Replace(clean(s)) }

// phpKV is one entry of a PHP array: Key is an int or a string.
type phpKV struct {
	Key   any
	Value any
}

// phpArray is an ordered PHP array.
type phpArray []phpKV

// phpSerialize returns v in PHP's serialize() format, the way WordPress
// stores arrays in meta values (_wp_attachment_metadata and the like).
// It knows strings (lengths in bytes), integers, floats, booleans, nil,
// []string (a list) and phpArray; any other value is written as null.
func phpSerialize(v any) string {
	var b strings.Builder
	writePHP(&b, v)
	return b.String()
}

func writePHP(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("N;")
	case bool:
		if x {
			b.WriteString("b:1;")
		} else {
			b.WriteString("b:0;")
		}
	case int:
		b.WriteString("i:" + strconv.Itoa(x) + ";")
	case int64:
		b.WriteString("i:" + strconv.FormatInt(x, 10) + ";")
	case float64:
		b.WriteString("d:" + strconv.FormatFloat(x, 'g', -1, 64) + ";")
	case string:
		b.WriteString("s:" + strconv.Itoa(len(x)) + `:"` + x + `";`)
	case []string:
		arr := make(phpArray, len(x))
		for i, s := range x {
			arr[i] = phpKV{i, s}
		}
		writePHP(b, arr)
	case phpArray:
		b.WriteString("a:" + strconv.Itoa(len(x)) + ":{")
		for _, kv := range x {
			writePHP(b, kv.Key)
			writePHP(b, kv.Value)
		}
		b.WriteString("}")
	default:
		// Only the types above are ever passed; anything else is
		// written as null rather than as a malformed value.
		b.WriteString("N;")
	}
}
