package render

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxSlugBytes is the longest slug Slug returns, in bytes.
const maxSlugBytes = 200

// accents maps accented Latin letters (Latin-1 Supplement, Latin
// Extended-A and a few others) to ASCII.
var accents = map[rune]string{
	'ª': "a", 'º': "o",
	'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "A", 'Å': "A", 'Æ': "AE", 'Ç': "C",
	'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E", 'Ì': "I", 'Í': "I", 'Î': "I", 'Ï': "I",
	'Ð': "D", 'Ñ': "N", 'Ò': "O", 'Ó': "O", 'Ô': "O", 'Õ': "O", 'Ö': "O", 'Ø': "O",
	'Ù': "U", 'Ú': "U", 'Û': "U", 'Ü': "U", 'Ý': "Y", 'Þ': "TH", 'ß': "ss",
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'æ': "ae", 'ç': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i",
	'ð': "d", 'ñ': "n", 'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ý': "y", 'þ': "th", 'ÿ': "y",
	'Ā': "A", 'ā': "a", 'Ă': "A", 'ă': "a", 'Ą': "A", 'ą': "a",
	'Ć': "C", 'ć': "c", 'Ĉ': "C", 'ĉ': "c", 'Ċ': "C", 'ċ': "c", 'Č': "C", 'č': "c",
	'Ď': "D", 'ď': "d", 'Đ': "D", 'đ': "d",
	'Ē': "E", 'ē': "e", 'Ĕ': "E", 'ĕ': "e", 'Ė': "E", 'ė': "e", 'Ę': "E", 'ę': "e", 'Ě': "E", 'ě': "e",
	'Ĝ': "G", 'ĝ': "g", 'Ğ': "G", 'ğ': "g", 'Ġ': "G", 'ġ': "g", 'Ģ': "G", 'ģ': "g",
	'Ĥ': "H", 'ĥ': "h", 'Ħ': "H", 'ħ': "h",
	'Ĩ': "I", 'ĩ': "i", 'Ī': "I", 'ī': "i", 'Ĭ': "I", 'ĭ': "i", 'Į': "I", 'į': "i", 'İ': "I", 'ı': "i",
	'Ĳ': "IJ", 'ĳ': "ij", 'Ĵ': "J", 'ĵ': "j", 'Ķ': "K", 'ķ': "k", 'ĸ': "k",
	'Ĺ': "L", 'ĺ': "l", 'Ļ': "L", 'ļ': "l", 'Ľ': "L", 'ľ': "l", 'Ŀ': "L", 'ŀ': "l", 'Ł': "L", 'ł': "l",
	'Ń': "N", 'ń': "n", 'Ņ': "N", 'ņ': "n", 'Ň': "N", 'ň': "n", 'ŉ': "n", 'Ŋ': "N", 'ŋ': "n",
	'Ō': "O", 'ō': "o", 'Ŏ': "O", 'ŏ': "o", 'Ő': "O", 'ő': "o", 'Œ': "OE", 'œ': "oe",
	'Ŕ': "R", 'ŕ': "r", 'Ŗ': "R", 'ŗ': "r", 'Ř': "R", 'ř': "r",
	'Ś': "S", 'ś': "s", 'Ŝ': "S", 'ŝ': "s", 'Ş': "S", 'ş': "s", 'Š': "S", 'š': "s", 'ſ': "s",
	'Ţ': "T", 'ţ': "t", 'Ť': "T", 'ť': "t", 'Ŧ': "T", 'ŧ': "t",
	'Ũ': "U", 'ũ': "u", 'Ū': "U", 'ū': "u", 'Ŭ': "U", 'ŭ': "u", 'Ů': "U", 'ů': "u",
	'Ű': "U", 'ű': "u", 'Ų': "U", 'ų': "u",
	'Ŵ': "W", 'ŵ': "w", 'Ŷ': "Y", 'ŷ': "y", 'Ÿ': "Y",
	'Ź': "Z", 'ź': "z", 'Ż': "Z", 'ż': "z", 'Ž': "Z", 'ž': "z",
	'Ș': "S", 'ș': "s", 'Ț': "T", 'ț': "t",
	'€': "E",
}

// removedOctets are percent-encoded characters dropped from slugs: soft
// hyphens, inverted punctuation, angle and curly quotes, bullets, signs,
// lone accents and zero-width characters.
var removedOctets = []string{
	"%c2%ad",
	"%c2%a1", "%c2%bf",
	"%c2%ab", "%c2%bb", "%e2%80%b9", "%e2%80%ba",
	"%e2%80%98", "%e2%80%99", "%e2%80%9c", "%e2%80%9d",
	"%e2%80%9a", "%e2%80%9b", "%e2%80%9e", "%e2%80%9f",
	"%e2%80%a2",
	"%c2%a9", "%c2%ae", "%c2%b0", "%e2%80%a6", "%e2%84%a2",
	"%c2%b4", "%cb%8a", "%cc%81", "%cd%81",
	"%cc%80", "%cc%84", "%cc%8c",
	"%e2%80%8b", "%e2%80%8c", "%e2%80%8d", "%e2%80%8e", "%e2%80%8f",
	"%e2%80%aa", "%e2%80%ab", "%e2%80%ac", "%e2%80%ad", "%e2%80%ae",
	"%ef%bb%bf", "%ef%bf%bc",
}

// hyphenOctets are percent-encoded spaces and dashes that become hyphens.
var hyphenOctets = []string{
	"%c2%a0", "%e2%80%93", "%e2%80%94",
	"%e2%80%80", "%e2%80%81", "%e2%80%82", "%e2%80%83", "%e2%80%84", "%e2%80%85",
	"%e2%80%86", "%e2%80%87", "%e2%80%88", "%e2%80%89", "%e2%80%8a",
	"%e2%80%a8", "%e2%80%a9", "%e2%80%af", "%e2%81%9f", "%e3%80%80",
}

var (
	reOctet          = regexp.MustCompile(`%([a-fA-F0-9][a-fA-F0-9])`)
	reOctetMarker    = regexp.MustCompile(`---([a-fA-F0-9][a-fA-F0-9])---`)
	reEntity         = regexp.MustCompile(`&.+?;`)
	reSlugDisallowed = regexp.MustCompile(`[^%a-z0-9 _-]`)
	reSlugSpaces     = regexp.MustCompile(ws + `+`)
	reHyphens        = regexp.MustCompile(`-+`)
)

// Slug turns a title into a URL slug like WordPress's sanitize_title: tags
// are stripped, accented Latin letters become ASCII (é→e, ß→ss, æ→ae),
// letters are lower-cased, other non-ASCII characters are kept
// percent-encoded (lower-case hex), spaces, dots, slashes and dashes become
// '-', other punctuation is removed, runs of '-' collapse and leading and
// trailing '-' are trimmed. The result is at most 200 bytes.
func Slug(title string) string {
	s := strings.ToValidUTF8(title, "")
	s = RemoveAccents(s)
	s = phpStripTags(s)

	// Keep percent-encoded octets, drop other percent signs.
	s = reOctet.ReplaceAllString(s, "---$1---")
	s = strings.ReplaceAll(s, "%", "")
	s = reOctetMarker.ReplaceAllString(s, "%$1")

	s = strings.ToLower(s)
	s = uriEncode(s, maxSlugBytes)
	s = asciiLower(s)

	for _, o := range hyphenOctets {
		s = strings.ReplaceAll(s, o, "-")
	}
	for _, e := range []string{"&nbsp;", "&#160;", "&ndash;", "&#8211;", "&mdash;", "&#8212;"} {
		s = strings.ReplaceAll(s, e, "-")
	}
	s = strings.ReplaceAll(s, "/", "-")
	for _, o := range removedOctets {
		s = strings.ReplaceAll(s, o, "")
	}
	s = strings.ReplaceAll(s, "%c3%97", "x")

	s = reEntity.ReplaceAllLiteralString(s, "")
	s = strings.ReplaceAll(s, ".", "-")
	s = reSlugDisallowed.ReplaceAllLiteralString(s, "")
	s = reSlugSpaces.ReplaceAllLiteralString(s, "-")
	s = reHyphens.ReplaceAllLiteralString(s, "-")
	return strings.Trim(s, "-")
}

// RemoveAccents replaces accented Latin letters in s with their ASCII
// equivalents (é→e, ß→ss, Æ→AE, ø→o); other characters are kept.
func RemoveAccents(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if a, ok := accents[r]; ok {
			b.WriteString(a)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// uriEncode percent-encodes the non-ASCII bytes of s with lower-case hex and
// stops before the encoded length would exceed limit, never splitting a
// character, like utf8_uri_encode.
func uriEncode(s string, limit int) string {
	const hexDigits = "0123456789abcdef"
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if n+1 > limit {
				break
			}
			b.WriteByte(c)
			n++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if n+3*size > limit {
			break
		}
		for j := 0; j < size; j++ {
			o := s[i+j]
			b.WriteByte('%')
			b.WriteByte(hexDigits[o>>4])
			b.WriteByte(hexDigits[o&0x0f])
		}
		n += 3 * size
		i += size
	}
	return b.String()
}
