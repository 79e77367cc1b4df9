package render

import "strings"

// StripTags removes all HTML tags and comments from s, including the contents
// of script and style elements, and trims the result, like WordPress's
// wp_strip_all_tags. Entities are left as they are. A '<' followed by white
// space is kept as text.
func StripTags(s string) string {
	s = removeScriptStyle(s)
	s = phpStripTags(s)
	return phpTrim(s)
}

// TrimWords strips the tags from text and returns at most its first n words
// (runs of characters between spaces, tabs and line breaks) joined by single
// spaces. When words were dropped, more is appended. With n <= 0 only more is
// returned, or "" for text without words.
func TrimWords(text string, n int, more string) string {
	s := StripTags(text)
	n = max(n, 0)
	var b strings.Builder
	words := 0
	for i := 0; i < len(s); {
		for i < len(s) && isWordSpace(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		if words == n {
			return b.String() + more
		}
		j := i
		for j < len(s) && !isWordSpace(s[j]) {
			j++
		}
		if words > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[i:j])
		words++
		i = j
	}
	return b.String()
}

// isWordSpace reports whether c separates words for TrimWords. The
// separators are ASCII, which never occurs inside a UTF-8 sequence, so
// the text is scanned by bytes, and only as far as the words kept.
func isWordSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// PlainText sanitizes a single line of user text like WordPress's
// sanitize_text_field: invalid UTF-8 is dropped, a '<' that cannot start a
// tag is encoded, tags are stripped, line breaks, tabs and runs of spaces
// become single spaces, percent-encoded octets are removed and the result is
// trimmed.
func PlainText(s string) string {
	s = strings.ToValidUTF8(s, "")
	if strings.Contains(s, "<") {
		s = encodeLoneLessThan(s)
		s = StripTags(s)
		s = strings.ReplaceAll(s, "<\n", "&lt;\n")
	}
	s = collapseSpaces(s, func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' })
	s = phpTrim(s)
	found := false
	for {
		k := octetIndex(s)
		if k < 0 {
			break
		}
		s = strings.ReplaceAll(s, s[k:k+3], "")
		found = true
	}
	if found {
		s = phpTrim(collapseSpaces(s, func(c byte) bool { return c == ' ' }))
	}
	return s
}

// collapseSpaces replaces every run of bytes for which isSpace holds with a
// single space.
func collapseSpaces(s string, isSpace func(byte) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	in := false
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			if !in {
				b.WriteByte(' ')
				in = true
			}
			continue
		}
		in = false
		b.WriteByte(s[i])
	}
	return b.String()
}

// octetIndex returns the index of the first %xx (hex, any case) in s, or -1.
func octetIndex(s string) int {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2]) {
			return i
		}
	}
	return -1
}

func isHex(c byte) bool { return isDigit(c) || isHexLetter(c) }

// encodeLoneLessThan HTML-escapes every '<' that is not closed by a '>'
// before the next '<' or the end of s, like wp_pre_kses_less_than.
func encodeLoneLessThan(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	i := 0
	for i < len(s) {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			b.WriteString(s[i:])
			break
		}
		start := i + k
		b.WriteString(s[i:start])
		end := start + 1
		closed := false
		for end < len(s) && !atEnd(s, end) {
			if s[end] == '<' {
				break
			}
			if s[end] == '>' {
				end++
				closed = true
				break
			}
			end++
		}
		if closed {
			b.WriteString(s[start:end])
		} else {
			b.WriteString(escHTML(s[start:end]))
		}
		i = end
	}
	return b.String()
}

// escHTML encodes <, >, quotes and ampersands that do not start an entity.
func escHTML(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#039;")
		case '&':
			if entityAt(s, i+1) {
				b.WriteByte('&')
			} else {
				b.WriteString("&amp;")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// removeScriptStyle removes script and style elements with their contents:
// <(script|style)[^>]*?>.*?</\1> case-insensitively.
func removeScriptStyle(s string) string {
	lower := asciiLower(s)
	if !strings.Contains(lower, "<script") && !strings.Contains(lower, "<style") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(s); {
		k := strings.IndexByte(lower[i:], '<')
		if k < 0 {
			break
		}
		start := i + k
		var name string
		switch {
		case strings.HasPrefix(lower[start:], "<script"):
			name = "script"
		case strings.HasPrefix(lower[start:], "<style"):
			name = "style"
		default:
			i = start + 1
			continue
		}
		gt := strings.IndexByte(lower[start:], '>')
		if gt < 0 {
			break
		}
		closing := "</" + name + ">"
		c := strings.Index(lower[start+gt+1:], closing)
		if c < 0 {
			i = start + 1
			continue
		}
		end := start + gt + 1 + c + len(closing)
		b.WriteString(s[last:start])
		last = end
		i = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			if b == nil {
				b = []byte(s)
			}
			b[i] = c + 'a' - 'A'
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

// phpStripTags removes tags the way PHP's strip_tags state machine does:
// a tag runs to the first '>' outside quotes and nested '<'s, a comment to
// "-->", a processing instruction to "?>", and an unterminated tag to the end
// of the input.
func phpStripTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			b.WriteString(s[i:])
			break
		}
		start := i + k
		b.WriteString(s[i:start])
		if start+1 < len(s) && isPCRESpace(s[start+1]) {
			b.WriteByte('<')
			i = start + 1
			continue
		}
		i = phpTagEnd(s, start)
	}
	return b.String()
}

// phpTagEnd returns the end of the tag starting at s[start] ('<').
func phpTagEnd(s string, start int) int {
	p := start + 1
	if p < len(s) && s[p] == '!' {
		if strings.HasPrefix(s[p+1:], "--") {
			if k := strings.Index(s[start+2:], "-->"); k >= 0 {
				return start + 2 + k + 3
			}
			return len(s)
		}
		return quotedTagEnd(s, p+1, true)
	}
	if p < len(s) && s[p] == '?' {
		if k := strings.Index(s[p+1:], "?>"); k >= 0 {
			return p + 1 + k + 2
		}
		return len(s)
	}
	return quotedTagEnd(s, p, false)
}

// quotedTagEnd scans to the '>' that closes a tag, skipping quoted values and
// nested tags; it returns len(s) when there is none.
func quotedTagEnd(s string, p int, backslashEscapes bool) int {
	depth := 0
	var inQ byte
	for ; p < len(s); p++ {
		c := s[p]
		switch c {
		case '<':
			if inQ == 0 && !(p+1 < len(s) && isPCRESpace(s[p+1])) {
				depth++
			}
		case '>':
			if depth > 0 {
				depth--
				continue
			}
			if inQ == 0 {
				return p + 1
			}
		case '"', '\'':
			if backslashEscapes && s[p-1] == '\\' {
				continue
			}
			if inQ == 0 {
				inQ = c
			} else if inQ == c {
				inQ = 0
			}
		}
	}
	return len(s)
}
