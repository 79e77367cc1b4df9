package render

import (
	"iter"
	"regexp"
	"strconv"
	"strings"
)

// ws is PCRE's \s without the u modifier; Go's \s lacks the vertical tab.
const ws = `[\t\n\v\f\r ]`

var (
	reDoubleBr         = regexp.MustCompile(`<br` + ws + `*/?>` + ws + `*<br` + ws + `*/?>`)
	reHr               = regexp.MustCompile(`(<hr` + ws + `*/?>)`)
	reOptionBefore     = regexp.MustCompile(ws + `*<option`)
	reOptionAfter      = regexp.MustCompile(`</option>` + ws + `*`)
	reObjectOpen       = regexp.MustCompile(`(<object[^>]*>)` + ws + `*`)
	reObjectClose      = regexp.MustCompile(ws + `*</object>`)
	reObjectParam      = regexp.MustCompile(ws + `*(</?(?:param|embed)[^>]*>)` + ws + `*`)
	reMediaOpen        = regexp.MustCompile(`([<\[](?:audio|video)[^>\]]*[>\]])` + ws + `*`)
	reMediaClose       = regexp.MustCompile(ws + `*([<\[]/(?:audio|video)[>\]])`)
	reMediaSource      = regexp.MustCompile(ws + `*(<(?:source|track)[^>]*>)` + ws + `*`)
	reFigcaptionOpen   = regexp.MustCompile(ws + `*(<figcaption[^>]*>)`)
	reFigcaptionClose  = regexp.MustCompile(`</figcaption>` + ws + `*`)
	reEmptyParagraph   = regexp.MustCompile(`<p>` + ws + `*</p>`)
	reUnclosedInDiv    = regexp.MustCompile(`<p>([^<]+)</(div|address|form)>`)
	reWrappedQuote     = regexp.MustCompile(`(?i)<p><blockquote([^>]*)>`)
	rePreserveNewlines = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<svg.*?</svg>`)
	reBrBeforeBlock    = regexp.MustCompile(`<br />(` + ws + `*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`)
)

// autop replaces double line breaks with paragraph elements and remaining
// single line breaks with <br />, like WordPress's wpautop: nothing is
// wrapped around or inserted into block-level elements, and the contents of
// <pre> elements and newlines inside tags are left alone.
func autop(text string) string {
	if phpTrim(text) == "" {
		return ""
	}
	s := text + "\n"

	// Pre elements must not be touched: swap them for placeholders.
	var preTags []string
	if strings.Contains(s, "<pre") {
		parts := strings.Split(s, "</pre>")
		last := parts[len(parts)-1]
		var b strings.Builder
		for _, part := range parts[:len(parts)-1] {
			start := strings.Index(part, "<pre")
			if start < 0 {
				b.WriteString(part)
				continue
			}
			name := prePlaceholder + strconv.Itoa(len(preTags)) + "></pre>"
			preTags = append(preTags, part[start:]+"</pre>")
			b.WriteString(part[:start])
			b.WriteString(name)
		}
		b.WriteString(last)
		s = b.String()
	}

	if strings.Contains(s, "<br") {
		s = reDoubleBr.ReplaceAllLiteralString(s, "\n\n")
	}
	s = spaceBlockTags(s)
	if strings.Contains(s, "<hr") {
		s = reHr.ReplaceAllString(s, "$1\n\n")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")

	// Newlines inside tags and comments are kept through a placeholder.
	s = replaceInHTMLTags(s, func(tag string) string {
		return strings.ReplaceAll(tag, "\n", " <!-- wpnl --> ")
	})

	if strings.Contains(s, "<option") {
		s = reOptionBefore.ReplaceAllLiteralString(s, "<option")
		s = reOptionAfter.ReplaceAllLiteralString(s, "</option>")
	}
	if strings.Contains(s, "</object>") {
		s = reObjectOpen.ReplaceAllString(s, "$1")
		s = reObjectClose.ReplaceAllLiteralString(s, "</object>")
		s = reObjectParam.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "<source") || strings.Contains(s, "<track") {
		s = reMediaOpen.ReplaceAllString(s, "$1")
		s = reMediaClose.ReplaceAllString(s, "$1")
		s = reMediaSource.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "<figcaption") {
		s = reFigcaptionOpen.ReplaceAllString(s, "$1")
		s = reFigcaptionClose.ReplaceAllLiteralString(s, "</figcaption>")
	}

	s = collapseNewlines(s)

	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for p := range paragraphs(s) {
		b.WriteString("<p>")
		b.WriteString(strings.Trim(p, "\n"))
		b.WriteString("</p>\n")
	}
	s = b.String()

	s = reEmptyParagraph.ReplaceAllLiteralString(s, "")
	if strings.Contains(s, "</div>") || strings.Contains(s, "</address>") || strings.Contains(s, "</form>") {
		s = reUnclosedInDiv.ReplaceAllString(s, "<p>$1</p></$2>")
	}
	s = unwrapBlockTags(s, true, "</p>")
	if strings.Contains(s, "<p><li") {
		s = unwrapListItems(s)
	}
	if containsFoldASCII(s, "<blockquote") {
		s = reWrappedQuote.ReplaceAllString(s, "<blockquote$1><p>")
	}
	s = strings.ReplaceAll(s, "</blockquote></p>", "</p></blockquote>")
	s = unwrapBlockTags(s, true, "")
	s = unwrapBlockTags(s, false, "</p>")

	// Line breaks.
	if strings.Contains(s, "<script") || strings.Contains(s, "<style") || strings.Contains(s, "<svg") {
		s = rePreserveNewlines.ReplaceAllStringFunc(s, func(m string) string {
			return strings.ReplaceAll(m, "\n", "<WPPreserveNewline />")
		})
	}
	s = strings.ReplaceAll(s, "<br>", "<br />")
	s = strings.ReplaceAll(s, "<br/>", "<br />")
	s = newlinesToBr(s)
	s = strings.ReplaceAll(s, "<WPPreserveNewline />", "\n")

	if strings.Contains(s, "<br />") {
		s = unwrapBlockTags(s, false, "<br />")
		s = reBrBeforeBlock.ReplaceAllString(s, "$1")
	}
	// PHP's "\n</p>$" also matches before a final newline.
	if strings.HasSuffix(s, "\n</p>") {
		s = s[:len(s)-len("\n</p>")] + "</p>"
	} else if strings.HasSuffix(s, "\n</p>\n") {
		s = s[:len(s)-len("\n</p>\n")] + "</p>\n"
	}

	if len(preTags) > 0 {
		s = restorePreTags(s, preTags)
	}
	if strings.Contains(s, "<!-- wpnl -->") {
		s = strings.ReplaceAll(s, " <!-- wpnl --> ", "\n")
		s = strings.ReplaceAll(s, "<!-- wpnl -->", "\n")
	}
	return s
}

// collapseNewlines replaces every run of two or more newlines with two
// (the replacement \n\n+ → \n\n).
func collapseNewlines(s string) string {
	if !strings.Contains(s, "\n\n\n") {
		return s
	}
	return replaceEach(s, '\n', func(s string, i int) (int, int, string, bool) {
		if !strings.HasPrefix(s[i:], "\n\n\n") {
			return 0, 0, "", false
		}
		end := i + 3
		for end < len(s) && s[end] == '\n' {
			end++
		}
		return i, end, "\n\n", true
	})
}

// paragraphs yields the non-empty pieces of s between its paragraph
// breaks, as the split on \n\s*\n does: a break runs from a newline to
// the last newline of the white space after it, when that holds one.
func paragraphs(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		beg := 0
		for i := 0; i < len(s); i++ {
			if s[i] != '\n' {
				continue
			}
			last := -1
			for j := i + 1; j < len(s) && isPCRESpace(s[j]); j++ {
				if s[j] == '\n' {
					last = j
				}
			}
			if last < 0 {
				continue
			}
			if i > beg && !yield(s[beg:i]) {
				return
			}
			beg = last + 1
			i = last
		}
		if beg < len(s) {
			yield(s[beg:])
		}
	}
}

// containsFoldASCII reports whether s holds sub, ignoring the case of
// ASCII letters.
func containsFoldASCII(s, sub string) bool {
	if sub == "" {
		return true
	}
	lo, up := sub[0], sub[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	} else if 'A' <= lo && lo <= 'Z' {
		lo = lo - 'A' + 'a'
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		c := s[i]
		if c != lo && c != up {
			continue
		}
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// unwrapListItems drops the paragraph around list items, the replacement
// <p>(<li.+?)</p> → $1: from each "<p><li", the shortest run of at least
// one more character on the same line up to "</p>".
func unwrapListItems(s string) string {
	return replaceEach(s, '<', func(s string, i int) (int, int, string, bool) {
		if !strings.HasPrefix(s[i:], "<p><li") {
			return 0, 0, "", false
		}
		body := i + len("<p><li")
		line := len(s)
		if n := strings.IndexByte(s[body:], '\n'); n >= 0 {
			line = body + n
		}
		// The character after "<li" is not a newline, and "</p>" (which
		// holds none) begins after it and before the line ends.
		if body >= line {
			return 0, 0, "", false
		}
		n := strings.Index(s[body+1:line], "</p>")
		if n < 0 {
			return 0, 0, "", false
		}
		end := body + 1 + n
		return i, end + len("</p>"), s[i+len("<p>") : end], true
	})
}

// prePlaceholder begins the placeholder autop puts in place of the i-th
// <pre> element: prePlaceholder + i + "></pre>".
const prePlaceholder = "<pre wp-pre-tag-"

// restorePreTags puts the <pre> elements back in place of their
// placeholders, in one pass from the left (what is put back is not
// searched again).
func restorePreTags(s string, preTags []string) string {
	return replaceEach(s, '<', func(s string, i int) (int, int, string, bool) {
		if !strings.HasPrefix(s[i:], prePlaceholder) {
			return 0, 0, "", false
		}
		digits := i + len(prePlaceholder)
		d := digits
		for d < len(s) && isDigit(s[d]) {
			d++
		}
		n, err := strconv.Atoi(s[digits:d])
		if err != nil || n >= len(preTags) || strconv.Itoa(n) != s[digits:d] || !strings.HasPrefix(s[d:], "></pre>") {
			return 0, 0, "", false
		}
		return i, d + len("></pre>"), preTags[n], true
	})
}

// newlinesToBr replaces every run of white space ending in a newline with
// "<br />\n", unless the run directly follows a "<br />" — the PCRE
// replacement (?<!<br />)\s*\n — including that pattern's quirk of retrying
// one character later when the look-behind fails.
func newlinesToBr(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	last := 0
	for i := 0; i < len(s); {
		if !isPCRESpace(s[i]) || strings.HasSuffix(s[:i], "<br />") {
			i++
			continue
		}
		j := i
		nl := -1
		for j < len(s) && isPCRESpace(s[j]) {
			if s[j] == '\n' {
				nl = j
			}
			j++
		}
		if nl < 0 {
			// No newline in this run; no position inside it can match.
			i = j
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString("<br />\n")
		i = nl + 1
		last = i
	}
	b.WriteString(s[last:])
	return b.String()
}

// replaceInHTMLTags applies fn to every tag, comment and CDATA section of s,
// leaving the text between them unchanged.
func replaceInHTMLTags(s string, fn func(tag string) string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	i := 0
	for {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			b.WriteString(s[i:])
			break
		}
		start := i + k
		b.WriteString(s[i:start])
		end := htmlTokenEnd(s, start, true)
		b.WriteString(fn(s[start:end]))
		i = end
		if i >= len(s) {
			break
		}
	}
	return b.String()
}

// htmlTokenEnd returns the end of the tag-like token that starts with '<' at
// s[start], splitting the way WordPress's HTML split pattern does: a comment
// runs to "-->", a CDATA section (when cdata is set) to "]]>", anything else
// to the next '>'; unterminated tokens run to the end of s.
func htmlTokenEnd(s string, start int, cdata bool) int {
	rest := s[start+1:]
	switch {
	case strings.HasPrefix(rest, "!--"):
		if k := strings.Index(s[start+2:], "-->"); k >= 0 {
			return start + 2 + k + 3
		}
		return len(s)
	case cdata && strings.HasPrefix(rest, "![CDATA["):
		if k := strings.Index(s[start+9:], "]]>"); k >= 0 {
			return start + 9 + k + 3
		}
		return len(s)
	}
	if k := strings.IndexByte(rest, '>'); k >= 0 {
		return start + 1 + k + 1
	}
	return len(s)
}

// blockNames are the names in allBlocks.
var blockNames = []string{
	"table", "thead", "tfoot", "caption", "col", "colgroup", "tbody", "tr", "td", "th",
	"div", "dl", "dd", "dt", "ul", "ol", "li", "pre", "form", "map", "area", "blockquote",
	"address", "math", "style", "p", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "fieldset",
	"legend", "section", "article", "aside", "hgroup", "header", "footer", "nav", "figure",
	"figcaption", "details", "menu", "summary",
}

// blockNamesByFirst holds the block names by their first byte, for the
// prefix match of blockTagEnd. Where a one-letter name ("p") is among
// them, it alone: every name it begins is a prefix match already.
var blockNamesByFirst = func() (by [256][]string) {
	for _, n := range blockNames {
		by[n[0]] = append(by[n[0]], n)
	}
	for c, names := range by {
		for _, n := range names {
			if len(n) == 1 {
				by[c] = []string{n}
				break
			}
		}
	}
	return by
}()

var blockNameSet = func() map[string]bool {
	m := make(map[string]bool, len(blockNames))
	for _, n := range blockNames {
		m[n] = true
	}
	return m
}()

// spaceBlockTags puts a blank line before every block-level start tag
// (<name followed by white space, / or >) and after every block-level end
// tag (</name>): the replacements (<allBlocks[\s/>]) → \n\n$1 and
// (</allBlocks>) → $1\n\n.
func spaceBlockTags(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		closing := i+1 < len(s) && s[i+1] == '/'
		p := i + 1
		if closing {
			p++
		}
		q := p
		for q < len(s) && (isLowerASCII(s[q]) || isDigit(s[q])) {
			q++
		}
		if q >= len(s) || !blockNameSet[s[p:q]] {
			continue
		}
		if closing {
			if s[q] != '>' {
				continue
			}
			b.WriteString(s[last : q+1])
			b.WriteString("\n\n")
			last = q + 1
			i = q
			continue
		}
		if s[q] != '/' && s[q] != '>' && !isPCRESpace(s[q]) {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString("\n\n")
		last = i
	}
	b.WriteString(s[last:])
	return b.String()
}

// blockTagEnd matches </?allBlocks[^>]*> at s[i] and returns its end, or -1.
// As in the pattern, a block name only has to be a prefix of the tag name,
// so <param> counts through "p".
func blockTagEnd(s string, i int) int {
	if i >= len(s) || s[i] != '<' {
		return -1
	}
	p := i + 1
	if p < len(s) && s[p] == '/' {
		p++
	}
	if p >= len(s) {
		return -1
	}
	ok := false
	for _, n := range blockNamesByFirst[s[p]] {
		if strings.HasPrefix(s[p:], n) {
			ok = true
			break
		}
	}
	if !ok {
		return -1
	}
	k := strings.IndexByte(s[p:], '>')
	if k < 0 {
		return -1
	}
	return p + k + 1
}

// unwrapBlockTags removes the text around block-level tags that automatic
// paragraphs must not leave there. With pBefore it matches <p>\s*(TAG)
// followed, when after is not empty, by \s*after; without pBefore it matches
// (TAG)\s*after. Each match is replaced by the tag alone.
func unwrapBlockTags(s string, pBefore bool, after string) string {
	open := "<"
	if pBefore {
		open = "<p>"
	}
	var b strings.Builder
	last := 0
	changed := false
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], open)
		if k < 0 {
			break
		}
		start := i + k
		tagStart := start
		if pBefore {
			tagStart = skipPCRESpace(s, start+3)
		}
		tagEnd := blockTagEnd(s, tagStart)
		if tagEnd < 0 {
			i = start + 1
			continue
		}
		end := tagEnd
		if after != "" {
			q := skipPCRESpace(s, tagEnd)
			if !strings.HasPrefix(s[q:], after) {
				i = start + 1
				continue
			}
			end = q + len(after)
		}
		if !changed {
			b.Grow(len(s))
			changed = true
		}
		b.WriteString(s[last:start])
		b.WriteString(s[tagStart:tagEnd])
		last = end
		i = end
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
