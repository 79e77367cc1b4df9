package render

import "strings"

// shortcodeTags are the shortcodes the platform registers out of the box.
// Only these count as shortcodes: they are kept away from smart quotes and
// removed from generated excerpts; any other bracketed text is plain text.
var shortcodeTags = map[string]bool{
	"audio":      true,
	"caption":    true,
	"embed":      true,
	"gallery":    true,
	"playlist":   true,
	"video":      true,
	"wp_caption": true,
}

// RemoveBlockDelimiters removes block comment delimiters such as
// <!-- wp:paragraph -->, <!-- wp:image {"id":5} -->, <!-- /wp:paragraph -->
// and the self-closing <!-- wp:spacer /--> from s. Everything between the
// delimiters, other comments and malformed delimiters are kept as they are.
func RemoveBlockDelimiters(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for {
		k := strings.Index(s[i:], "<!--")
		if k < 0 {
			b.WriteString(s[i:])
			break
		}
		start := i + k
		if end := blockDelimiterEnd(s, start); end > 0 {
			b.WriteString(s[i:start])
			i = end
			continue
		}
		b.WriteString(s[i : start+4])
		i = start + 4
	}
	return b.String()
}

// blockDelimiterEnd returns the end of the block delimiter starting at
// s[start] ("<!--"), or -1 when none starts there. It follows the block
// parser's grammar:
// <!--\s+/?wp:(namespace/)?name\s+({json}\s+)?/?-->.
func blockDelimiterEnd(s string, start int) int {
	p := start + 4
	q := skipPCRESpace(s, p)
	if q == p {
		return -1
	}
	p = q
	if p < len(s) && s[p] == '/' {
		p++
	}
	if !strings.HasPrefix(s[p:], "wp:") {
		return -1
	}
	p += 3
	if p = blockNameEnd(s, p); p < 0 {
		return -1
	}
	if p+1 < len(s) && s[p] == '/' && isLowerASCII(s[p+1]) {
		p = blockNameEnd(s, p+1)
	}
	q = skipPCRESpace(s, p)
	if q == p {
		return -1
	}
	p = q
	if p < len(s) && s[p] == '{' {
		return blockAttrsEnd(s, p)
	}
	return voidCloseEnd(s, p)
}

// blockNameEnd returns the end of a name matching [a-z][a-z0-9_-]* at s[p],
// or -1.
func blockNameEnd(s string, p int) int {
	if p >= len(s) || !isLowerASCII(s[p]) {
		return -1
	}
	p++
	for p < len(s) {
		c := s[p]
		if !isLowerASCII(c) && !isDigit(c) && c != '_' && c != '-' {
			break
		}
		p++
	}
	return p
}

// blockAttrsEnd finds the first '}' that is followed by white space and
// "/-->" or "-->", and returns the end of the delimiter, or -1.
func blockAttrsEnd(s string, p int) int {
	for k := p; k < len(s); k++ {
		if s[k] != '}' {
			continue
		}
		q := skipPCRESpace(s, k+1)
		if q == k+1 {
			continue
		}
		if end := voidCloseEnd(s, q); end > 0 {
			return end
		}
	}
	return -1
}

// voidCloseEnd matches "/?-->" at s[p] and returns its end, or -1.
func voidCloseEnd(s string, p int) int {
	if p < len(s) && s[p] == '/' {
		p++
	}
	if strings.HasPrefix(s[p:], "-->") {
		return p + 3
	}
	return -1
}

func skipPCRESpace(s string, p int) int {
	for p < len(s) && isPCRESpace(s[p]) {
		p++
	}
	return p
}

func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

// Placeholders used while brackets inside HTML tags are hidden from the
// shortcode scanner. They are private-use characters.
const (
	openBracketMark  = "\uE000"
	closeBracketMark = "\uE001"
)

// StripShortcodes removes the registered shortcodes (gallery, caption, audio,
// video, playlist, embed) from s, together with the content of enclosing
// ones. Escaped shortcodes ([[gallery]]) become their literal text
// ([gallery]); shortcodes inside HTML tags are kept.
func StripShortcodes(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	hide := !strings.Contains(s, openBracketMark) && !strings.Contains(s, closeBracketMark)
	if hide {
		s = replaceInHTMLTags(s, func(tag string) string {
			if !strings.ContainsAny(tag, "[]") {
				return tag
			}
			tag = strings.ReplaceAll(tag, "[", openBracketMark)
			return strings.ReplaceAll(tag, "]", closeBracketMark)
		})
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		k := strings.IndexByte(s[i:], '[')
		if k < 0 {
			b.WriteString(s[i:])
			break
		}
		start := i + k
		b.WriteString(s[i:start])
		end, repl, ok := matchShortcode(s, start)
		if !ok {
			b.WriteByte('[')
			i = start + 1
			continue
		}
		b.WriteString(repl)
		i = end
	}
	out := b.String()
	if hide {
		out = strings.ReplaceAll(out, openBracketMark, "[")
		out = strings.ReplaceAll(out, closeBracketMark, "]")
	}
	return out
}

// matchShortcode matches a registered shortcode at s[start] ('[') the way the
// platform's shortcode pattern does, and returns its end and what stripping
// replaces it with.
func matchShortcode(s string, start int) (end int, repl string, ok bool) {
	p := start + 1
	escOpen := p < len(s) && s[p] == '['
	if escOpen {
		p++
	}
	nameStart := p
	for p < len(s) && (isWordByte(s[p]) || s[p] == '-') {
		p++
	}
	name := s[nameStart:p]
	if !shortcodeTags[name] {
		return 0, "", false
	}
	k := strings.IndexByte(s[p:], ']')
	if k < 0 {
		return 0, "", false
	}
	k += p
	end = k + 1
	selfClosing := k-1 >= p && s[k-1] == '/'
	if !selfClosing {
		closing := "[/" + name + "]"
		if c := strings.Index(s[end:], closing); c >= 0 {
			end += c + len(closing)
		}
	}
	escClose := end < len(s) && s[end] == ']'
	if escClose {
		end++
	}
	if escOpen && escClose {
		return end, s[start+1 : end-1], true
	}
	return end, "", true
}
