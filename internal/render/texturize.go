package render

import "strings"

// Typographic replacements, written as the numeric entities the platform
// emits.
const (
	openingQuote       = "&#8220;"
	closingQuote       = "&#8221;"
	apostrophe         = "&#8217;"
	prime              = "&#8242;"
	doublePrime        = "&#8243;"
	openingSingleQuote = "&#8216;"
	closingSingleQuote = "&#8217;"
	enDash             = "&#8211;"
	emDash             = "&#8212;"
	ellipsis           = "&#8230;"
	timesSign          = "&#215;"
	escapedAmpersand   = "&#038;"
)

// Temporary markers used between texturize passes. They are HTML comments,
// which the text passes never produce themselves.
const (
	openQuoteFlag       = "<!--oq-->"
	openSingleQuoteFlag = "<!--osq-->"
	apostropheFlag      = "<!--apos-->"
	primeOrQuoteFlag    = "<!--wp-prime-or-quote-->"
)

// noTexturizeTags are the elements whose contents keep straight quotes.
var noTexturizeTags = map[string]bool{
	"pre": true, "code": true, "kbd": true, "style": true, "script": true, "tt": true,
}

// staticReplacements are applied in order, each over the whole text.
var staticReplacements = [][2]string{
	{"...", ellipsis},
	{"``", openingQuote},
	{"''", closingQuote},
	{" (tm)", " &#8482;"},
	{"'tain't", "&#8217;tain&#8217;t"},
	{"'twere", "&#8217;twere"},
	{"'twas", "&#8217;twas"},
	{"'tis", "&#8217;tis"},
	{"'twill", "&#8217;twill"},
	{"'til", "&#8217;til"},
	{"'bout", "&#8217;bout"},
	{"'nuff", "&#8217;nuff"},
	{"'round", "&#8217;round"},
	{"'cause", "&#8217;cause"},
	{"'em", "&#8217;em"},
}

// texturize replaces straight quotes, dashes, ellipses and the like with
// their typographic forms, like WordPress's wptexturize. Tags, comments and
// registered shortcodes are not changed (except that stray ampersands in tags
// are encoded), and nothing inside pre, code, kbd, style, script or tt
// elements is.
func texturize(text string) string {
	if text == "" {
		return text
	}
	names := foundShortcodes(text)
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	var stack []string
	i := 0
	for i < len(text) {
		j, end := nextTexturizeDelimiter(text, i, names)
		if j > i {
			seg := text[i:j]
			if len(stack) == 0 && phpTrim(seg) != "" {
				seg = texturizeText(seg)
			}
			b.WriteString(seg)
		}
		if j >= len(text) {
			break
		}
		tok := text[j:end]
		if text[j] == '<' && !strings.HasPrefix(tok, "<!--") {
			tok = escapeAmpersands(tok)
			stack = pushPopElement(tok, stack)
		}
		b.WriteString(tok)
		i = end
	}
	return b.String()
}

// nextTexturizeDelimiter finds the next tag, comment or registered shortcode
// at or after i and returns its start and end; without one it returns
// len(text) twice.
func nextTexturizeDelimiter(text string, i int, names []string) (int, int) {
	for j := i; j < len(text); j++ {
		switch text[j] {
		case '<':
			return j, htmlTokenEnd(text, j, false)
		case '[':
			if len(names) == 0 {
				continue
			}
			if end := shortcodeTokenEnd(text, j, names); end > 0 {
				return j, end
			}
		}
	}
	return len(text), len(text)
}

// foundShortcodes returns the registered shortcode names that appear in
// text after '[' or "[/".
func foundShortcodes(text string) []string {
	var names []string
	for i := 0; i < len(text); i++ {
		if text[i] != '[' {
			continue
		}
		p := i + 1
		if p < len(text) && text[p] == '/' {
			p++
		}
		start := p
		for p < len(text) && isShortcodeNameByte(text[p]) {
			p++
		}
		name := text[start:p]
		if shortcodeTags[name] && !containsString(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// isShortcodeNameByte matches [^<>&/\[\]\x00-\x20=].
func isShortcodeNameByte(c byte) bool {
	switch c {
	case '<', '>', '&', '/', '[', ']', '=':
		return false
	}
	return c > 0x20
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// shortcodeTokenEnd matches a shortcode tag of one of names at text[j] ('[')
// and returns its end, or -1: \[[/\[]?name(?:[^\[\]<>]+|<[^\[\]>]*>)*+\]\]?
func shortcodeTokenEnd(text string, j int, names []string) int {
	p := j + 1
	if p < len(text) && (text[p] == '/' || text[p] == '[') {
		p++
	}
	matched := false
	for _, n := range names {
		if strings.HasPrefix(text[p:], n) {
			p += len(n)
			matched = true
			break
		}
	}
	if !matched {
		return -1
	}
	for p < len(text) {
		c := text[p]
		if c == '[' || c == ']' {
			break
		}
		if c != '<' {
			if c == '>' {
				break
			}
			p++
			continue
		}
		q := p + 1
		for q < len(text) && text[q] != '[' && text[q] != ']' && text[q] != '>' {
			q++
		}
		if q >= len(text) || text[q] != '>' {
			break
		}
		p = q + 1
	}
	if p >= len(text) || text[p] != ']' {
		return -1
	}
	p++
	if p < len(text) && text[p] == ']' {
		p++
	}
	return p
}

// pushPopElement keeps the stack of open no-texturize elements up to date
// for the tag tok, as wptexturize does.
func pushPopElement(tok string, stack []string) []string {
	opening := len(tok) > 1 && tok[1] != '/'
	off := 1
	if !opening {
		if len(stack) == 0 {
			return stack
		}
		off = 2
	}
	var tag string
	if sp := strings.IndexByte(tok, ' '); sp >= 0 {
		if sp > off {
			tag = tok[off:sp]
		}
	} else if off < len(tok)-1 {
		tag = tok[off : len(tok)-1]
	}
	if !noTexturizeTags[tag] {
		return stack
	}
	if opening {
		return append(stack, tag)
	}
	if stack[len(stack)-1] == tag {
		return stack[:len(stack)-1]
	}
	return stack
}

// texturizeText applies the typographic replacements to a text segment that
// contains no tags.
func texturizeText(s string) string {
	for _, r := range staticReplacements {
		if strings.Contains(s, r[0]) {
			s = strings.ReplaceAll(s, r[0], r[1])
		}
	}
	if strings.IndexByte(s, '\'') >= 0 {
		s = replaceEach(s, '\'', matchQuotedYear('\'', closingSingleQuote))
		s = replaceEach(s, '\'', matchQuotedYear('"', closingQuote))
		s = replaceEach(s, '\'', matchYearApostrophe)
		s = replaceEach(s, '\'', matchQuotedNumber('\'', openSingleQuoteFlag, closingSingleQuote))
		s = replaceEach(s, '\'', matchOpeningSingleQuote)
		s = replaceEach(s, '\'', matchWordApostrophe)
		s = texturizePrimes(s, '\'', prime, openSingleQuoteFlag, closingSingleQuote)
		s = strings.ReplaceAll(s, apostropheFlag, apostrophe)
		s = strings.ReplaceAll(s, openSingleQuoteFlag, openingSingleQuote)
	}
	if strings.IndexByte(s, '"') >= 0 {
		s = replaceEach(s, '"', matchQuotedNumber('"', openQuoteFlag, closingQuote))
		s = replaceEach(s, '"', matchOpeningDoubleQuote)
		s = texturizePrimes(s, '"', doublePrime, openQuoteFlag, closingQuote)
		s = strings.ReplaceAll(s, openQuoteFlag, openingQuote)
	}
	if strings.IndexByte(s, '-') >= 0 {
		s = strings.ReplaceAll(s, "---", emDash)
		s = replaceEach(s, '-', matchSpacedDoubleDash)
		s = replaceEach(s, '-', matchDoubleDash)
		s = replaceEach(s, '-', matchSpacedDash)
	}
	if strings.IndexByte(s, 'x') >= 0 {
		s = replaceEach(s, 'x', matchTimes)
	}
	return escapeAmpersands(s)
}

// matcher tries a pattern at s[i], whose byte is the trigger byte, and
// returns the start and end of the replaced span and its replacement. Look
// behinds and look aheads are evaluated against s, the unchanged subject.
type matcher func(s string, i int) (start, end int, repl string, ok bool)

// replaceEach replaces every non-overlapping match, scanning left to right
// like a global PCRE replacement whose matches start at (or, for matchTimes,
// are anchored on) the trigger byte.
func replaceEach(s string, trigger byte, m matcher) string {
	var b strings.Builder
	last := 0
	pos := 0
	changed := false
	for pos < len(s) {
		k := strings.IndexByte(s[pos:], trigger)
		if k < 0 {
			break
		}
		i := pos + k
		start, end, repl, ok := m(s, i)
		if !ok || start < last {
			pos = i + 1
			continue
		}
		if !changed {
			b.Grow(len(s) + 32)
			changed = true
		}
		b.WriteString(s[last:start])
		b.WriteString(repl)
		last = end
		pos = end
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// spaceBefore reports whether the text just before s[i] matches
// [\r\n\t ]|\xC2\xA0|&nbsp;.
func spaceBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	switch s[i-1] {
	case '\r', '\n', '\t', ' ':
		return true
	}
	return strings.HasSuffix(s[:i], "\xC2\xA0") || strings.HasSuffix(s[:i], "&nbsp;")
}

// spaceAt reports whether s[i:] starts with [\r\n\t ]|\xC2\xA0|&nbsp;.
func spaceAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case '\r', '\n', '\t', ' ':
		return true
	}
	return strings.HasPrefix(s[i:], "\xC2\xA0") || strings.HasPrefix(s[i:], "&nbsp;")
}

// atEnd reports whether PCRE's \Z (or $ without the m modifier) matches at i.
func atEnd(s string, i int) bool {
	return i == len(s) || (i == len(s)-1 && s[i] == '\n')
}

// closingContext is (?=\Z|[.,:;!?)}\-\]]|&gt;|spaces) at i.
func closingContext(s string, i int) bool {
	if atEnd(s, i) {
		return true
	}
	if i < len(s) && strings.IndexByte(".,:;!?)}-]", s[i]) >= 0 {
		return true
	}
	return strings.HasPrefix(s[i:], "&gt;") || spaceAt(s, i)
}

func digitAt(s string, i int) bool { return i >= 0 && i < len(s) && isDigit(s[i]) }

// matchQuotedYear returns the matcher for '(\d\d)<close>(?=closing
// context): '99' and '99" at the end of a quotation.
func matchQuotedYear(close byte, closeEntity string) matcher {
	return func(s string, i int) (int, int, string, bool) {
		if digitAt(s, i+1) && digitAt(s, i+2) && i+3 < len(s) && s[i+3] == close && closingContext(s, i+4) {
			return i, i + 4, apostropheFlag + s[i+1:i+3] + closeEntity, true
		}
		return 0, 0, "", false
	}
}

// matchYearApostrophe is '(?=\d\d(?:\Z|(?![%\d]|[.,]\d))): the apostrophe
// of '99, '99s and '99's, but never '9, '99%, '999 or '99.0.
func matchYearApostrophe(s string, i int) (int, int, string, bool) {
	if !digitAt(s, i+1) || !digitAt(s, i+2) {
		return 0, 0, "", false
	}
	p := i + 3
	if p < len(s) && (s[p] == '%' || isDigit(s[p])) {
		return 0, 0, "", false
	}
	if p < len(s) && (s[p] == '.' || s[p] == ',') && digitAt(s, p+1) {
		return 0, 0, "", false
	}
	return i, i + 1, apostropheFlag, true
}

// matchQuotedNumber returns the matcher for (?<=\A|spaces)q(\d[.,\d]*)q:
// quoted numbers like '0.42' and "42".
func matchQuotedNumber(q byte, openFlag, closeEntity string) matcher {
	return func(s string, i int) (int, int, string, bool) {
		if (i != 0 && !spaceBefore(s, i)) || !digitAt(s, i+1) {
			return 0, 0, "", false
		}
		j := i + 2
		for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == ',') {
			j++
		}
		if j >= len(s) || s[j] != q {
			return 0, 0, "", false
		}
		return i, j + 1, openFlag + s[i+1:j] + closeEntity, true
	}
}

// matchOpeningSingleQuote is (?<=\A|[([{"\-]|&lt;|spaces)'.
func matchOpeningSingleQuote(s string, i int) (int, int, string, bool) {
	if i == 0 || strings.IndexByte("([{\"-", s[i-1]) >= 0 || strings.HasSuffix(s[:i], "&lt;") || spaceBefore(s, i) {
		return i, i + 1, openSingleQuoteFlag, true
	}
	return 0, 0, "", false
}

// matchWordApostrophe is (?<!spaces)'(?!\Z|[.,:;!?"'(){}[\]\-]|&[lg]t;|spaces):
// an apostrophe inside a word.
func matchWordApostrophe(s string, i int) (int, int, string, bool) {
	if spaceBefore(s, i) {
		return 0, 0, "", false
	}
	p := i + 1
	if atEnd(s, p) || strings.IndexByte(".,:;!?\"'(){}[]-", s[p]) >= 0 ||
		strings.HasPrefix(s[p:], "&lt;") || strings.HasPrefix(s[p:], "&gt;") || spaceAt(s, p) {
		return 0, 0, "", false
	}
	return i, i + 1, apostropheFlag, true
}

// matchOpeningDoubleQuote is (?<=\A|[([{\-]|&lt;|spaces)"(?!spaces).
func matchOpeningDoubleQuote(s string, i int) (int, int, string, bool) {
	if !(i == 0 || strings.IndexByte("([{-", s[i-1]) >= 0 || strings.HasSuffix(s[:i], "&lt;") || spaceBefore(s, i)) {
		return 0, 0, "", false
	}
	if spaceAt(s, i+1) {
		return 0, 0, "", false
	}
	return i, i + 1, openQuoteFlag, true
}

// matchSpacedDoubleDash is (?<=^|spaces)--(?=$|spaces).
func matchSpacedDoubleDash(s string, i int) (int, int, string, bool) {
	if !strings.HasPrefix(s[i:], "--") || (i != 0 && !spaceBefore(s, i)) {
		return 0, 0, "", false
	}
	if !atEnd(s, i+2) && !spaceAt(s, i+2) {
		return 0, 0, "", false
	}
	return i, i + 2, emDash, true
}

// matchDoubleDash is (?<!xn)--.
func matchDoubleDash(s string, i int) (int, int, string, bool) {
	if !strings.HasPrefix(s[i:], "--") || strings.HasSuffix(s[:i], "xn") {
		return 0, 0, "", false
	}
	return i, i + 2, enDash, true
}

// matchSpacedDash is (?<=^|spaces)-(?=$|spaces).
func matchSpacedDash(s string, i int) (int, int, string, bool) {
	if i != 0 && !spaceBefore(s, i) {
		return 0, 0, "", false
	}
	if !atEnd(s, i+1) && !spaceAt(s, i+1) {
		return 0, 0, "", false
	}
	return i, i + 1, enDash, true
}

// matchTimes is \b(\d(?(?<=0)[\d\.,]+|[\d\.,]*))x(\d[\d\.,]*)\b anchored on
// the x: 9x9 becomes 9&#215;9, but 0x9999 stays.
func matchTimes(s string, x int) (int, int, string, bool) {
	// Walk back over [\d.,] to the first digit that starts a word.
	start := -1
	for k := x - 1; k >= 0 && (isDigit(s[k]) || s[k] == '.' || s[k] == ','); k-- {
		if isDigit(s[k]) && (k == 0 || !isWordByte(s[k-1])) {
			start = k
		}
	}
	if start < 0 {
		return 0, 0, "", false
	}
	if s[start] == '0' && x-start < 2 {
		return 0, 0, "", false
	}
	if !digitAt(s, x+1) {
		return 0, 0, "", false
	}
	m := x + 2
	for m < len(s) && (isDigit(s[m]) || s[m] == '.' || s[m] == ',') {
		m++
	}
	for p := m; p >= x+2; p-- {
		if wordBoundary(s, p) {
			return x, x + 1, timesSign, true
		}
	}
	return 0, 0, "", false
}

// wordBoundary reports whether \b matches at p.
func wordBoundary(s string, p int) bool {
	before := p > 0 && isWordByte(s[p-1])
	after := p < len(s) && isWordByte(s[p])
	return before != after
}

// texturizePrimes turns the remaining needles (' or ") into closing quotes
// or primes, sentence by sentence, like wptexturize_primes.
func texturizePrimes(s string, needle byte, primeEntity, openFlag, closeEntity string) string {
	sentences := strings.Split(s, openFlag)
	for k, sent := range sentences {
		if strings.IndexByte(sent, needle) < 0 {
			continue
		}
		if k != 0 && !strings.Contains(sent, closeEntity) {
			var count int
			sent, count = replaceCount(sent, needle, quoteEnd, primeOrQuoteFlag)
			switch {
			case count > 1:
				var count2 int
				sent, count2 = replaceFlag(sent, false, closeEntity)
				if count2 == 0 {
					pos := strings.LastIndex(sent, primeOrQuoteFlag+".")
					if pos < 0 {
						pos = strings.LastIndex(sent, primeOrQuoteFlag)
					}
					sent = sent[:pos] + closeEntity + sent[pos+len(primeOrQuoteFlag):]
				}
				sent, _ = replaceCount(sent, needle, afterDigit, primeEntity)
				sent, _ = replaceFlag(sent, true, primeEntity)
				sent = strings.ReplaceAll(sent, primeOrQuoteFlag, closeEntity)
			case count == 1:
				sent = strings.ReplaceAll(sent, primeOrQuoteFlag, closeEntity)
				sent, _ = replaceCount(sent, needle, afterDigit, primeEntity)
			default:
				sent, _ = replaceCount(sent, needle, afterDigit, primeEntity)
			}
			sentences[k] = sent
		} else {
			sent, _ = replaceCount(sent, needle, afterDigit, primeEntity)
			sent, _ = replaceCount(sent, needle, quoteEnd, closeEntity)
			sentences[k] = sent
		}
		if needle == '"' && strings.IndexByte(sentences[k], '"') >= 0 {
			sentences[k] = strings.ReplaceAll(sentences[k], "\"", closeEntity)
		}
	}
	return strings.Join(sentences, openFlag)
}

func afterDigit(s string, i int) bool { return digitAt(s, i-1) }

// quoteEnd reports whether the quote at s[i] is followed by a closing
// context.
func quoteEnd(s string, i int) bool { return closingContext(s, i+1) }

// replaceCount replaces each occurrence of needle for which cond holds
// (evaluated on the unchanged s) with repl and counts the replacements.
func replaceCount(s string, needle byte, cond func(s string, i int) bool, repl string) (string, int) {
	var b strings.Builder
	n := 0
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != needle || !cond(s, i) {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		last = i + 1
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// replaceFlag replaces the prime-or-quote flags that follow a digit (when
// afterDigitWanted) or that do not, and counts the replacements.
func replaceFlag(s string, afterDigitWanted bool, repl string) (string, int) {
	var b strings.Builder
	n := 0
	last := 0
	for i := 0; ; {
		k := strings.Index(s[i:], primeOrQuoteFlag)
		if k < 0 {
			break
		}
		at := i + k
		i = at + len(primeOrQuoteFlag)
		if digitAt(s, at-1) != afterDigitWanted {
			continue
		}
		b.WriteString(s[last:at])
		b.WriteString(repl)
		last = i
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// escapeAmpersands replaces each & that does not start an entity with &#038;:
// &(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};) case-insensitively.
func escapeAmpersands(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		if s[i] == '&' && !entityAt(s, i+1) {
			b.WriteString(escapedAmpersand)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// entityAt reports whether s[i:] (just after an &) is #\d+;, #x[0-9a-f]+; or
// [a-z1-4]{1,8}; case-insensitively.
func entityAt(s string, i int) bool {
	if i < len(s) && s[i] == '#' {
		p := i + 1
		hex := p < len(s) && (s[p] == 'x' || s[p] == 'X')
		if hex {
			p++
		}
		q := p
		for q < len(s) && (isDigit(s[q]) || (hex && isHexLetter(s[q]))) {
			q++
		}
		return q > p && q < len(s) && s[q] == ';'
	}
	return entityNameAt(s, i)
}

func isHexLetter(c byte) bool { return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }
