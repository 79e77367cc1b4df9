// Package render turns stored post text into the HTML that the API shows:
// the display pipeline for content, titles and excerpts (block delimiter
// removal, smart quotes, automatic paragraphs), the post HTML allow-list
// filter applied on write, and the text helpers for slugs and plain text.
//
// Every function is pure: no I/O, no global state that changes, and the same
// input always gives the same output, so rendered HTML can be cached with the
// record it was rendered from.
package render

import "strings"

// excerptLength is the number of words a generated excerpt keeps.
const excerptLength = 55

// excerptMore is appended to a generated excerpt that was cut short.
const excerptMore = " [&hellip;]"

// Content renders a post body for content.rendered: block comment delimiters
// are removed, smart quotes and dashes are applied outside code-like elements,
// tags and shortcodes, and the text is given automatic paragraphs and line
// breaks. Shortcodes are left as they are.
func Content(raw string) string {
	s := RemoveBlockDelimiters(raw)
	s = texturize(s)
	return autop(s)
}

// Title renders a title for title.rendered: smart quotes, stray ampersands
// encoded, surrounding white space trimmed. The caller adds the "Protected: "
// and "Private: " prefixes.
func Title(raw string) string {
	s := texturize(raw)
	s = convertChars(s)
	return phpTrim(s)
}

// Excerpt renders excerpt.rendered. A non-empty raw excerpt is used as it is;
// an empty one is generated from the content: block delimiters and shortcodes
// are removed, the content is rendered, its tags are stripped and it is cut to
// 55 words with the suffix " [&hellip;]" when something was cut. The result
// gets smart quotes and automatic paragraphs.
func Excerpt(rawExcerpt, rawContent string) string {
	if rawExcerpt == "" {
		return ExcerptOfContent(Content(StripShortcodes(rawContent)))
	}
	return formatExcerpt(rawExcerpt)
}

// ExcerptOfContent returns the excerpt generated from content rendered by
// Content: Excerpt("", raw) is ExcerptOfContent(Content(raw)) for raw
// content that StripShortcodes leaves as it is, so that a caller holding
// content.rendered does not render the content twice.
func ExcerptOfContent(rendered string) string {
	t := strings.ReplaceAll(rendered, "]]>", "]]&gt;")
	return formatExcerpt(TrimWords(t, excerptLength, excerptMore))
}

// formatExcerpt gives an excerpt's text smart quotes, encoded ampersands
// and automatic paragraphs.
func formatExcerpt(text string) string {
	text = texturize(text)
	text = convertChars(text)
	return autop(text)
}

// phpTrim trims the characters PHP's trim removes by default.
func phpTrim(s string) string {
	return strings.Trim(s, " \t\n\r\x00\x0b")
}

// convertChars encodes ampersands that do not start an entity, like
// WordPress's convert_chars display filter.
func convertChars(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		c := s[i]
		// Pattern: &([^#])(?![a-z1-4]{1,8};) case-insensitively.
		if c == '&' && i+1 < len(s) && s[i+1] != '#' && !entityNameAt(s, i+2) {
			b.WriteString("&#038;")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// entityNameAt reports whether s[i:] starts with one to eight characters of
// [a-z1-4] (case-insensitive) followed by a semicolon.
func entityNameAt(s string, i int) bool {
	n := 0
	for i+n < len(s) && n < 8 && isEntityNameChar(s[i+n]) {
		n++
	}
	return n > 0 && i+n < len(s) && s[i+n] == ';'
}

func isEntityNameChar(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '1' && c <= '4')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte reports whether c is a regular-expression word character in the
// byte-oriented sense PHP's PCRE uses without the u modifier.
func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// isPCRESpace reports whether c matches \s in PCRE without the u modifier.
func isPCRESpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
