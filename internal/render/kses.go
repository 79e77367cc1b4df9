package render

import (
	"html"
	"strings"
)

// allowedPostTags maps the elements KSESPost keeps to the attributes each may
// carry besides the global ones (see isGlobalAttr). It follows the
// platform's post allow-list.
var allowedPostTags = map[string]map[string]bool{
	"a":          attrs("href", "rel", "rev", "name", "target", "download", "hreflang", "referrerpolicy", "type"),
	"abbr":       attrs(),
	"acronym":    attrs(),
	"address":    attrs(),
	"area":       attrs("alt", "coords", "href", "nohref", "shape", "target"),
	"article":    attrs("align"),
	"aside":      attrs("align"),
	"audio":      attrs("autoplay", "controls", "loop", "muted", "preload", "src"),
	"b":          attrs(),
	"bdi":        attrs(),
	"bdo":        attrs(),
	"big":        attrs(),
	"blockquote": attrs("cite"),
	"br":         attrs(),
	"button":     attrs("disabled", "name", "type", "value"),
	"caption":    attrs("align"),
	"cite":       attrs(),
	"code":       attrs(),
	"col":        attrs("align", "char", "charoff", "span", "valign", "width"),
	"colgroup":   attrs("align", "char", "charoff", "span", "valign", "width"),
	"dd":         attrs(),
	"del":        attrs("datetime", "cite"),
	"details":    attrs("align", "open"),
	"dfn":        attrs(),
	"div":        attrs("align"),
	"dl":         attrs(),
	"dt":         attrs(),
	"em":         attrs(),
	"fieldset":   attrs(),
	"figcaption": attrs("align"),
	"figure":     attrs("align"),
	"font":       attrs("color", "face", "size"),
	"footer":     attrs("align"),
	"h1":         attrs("align"),
	"h2":         attrs("align"),
	"h3":         attrs("align"),
	"h4":         attrs("align"),
	"h5":         attrs("align"),
	"h6":         attrs("align"),
	"header":     attrs("align"),
	"hgroup":     attrs("align"),
	"hr":         attrs("align", "noshade", "size", "width"),
	"i":          attrs(),
	"img":        attrs("alt", "align", "border", "height", "hspace", "loading", "decoding", "longdesc", "vspace", "src", "usemap", "width"),
	"ins":        attrs("datetime", "cite"),
	"kbd":        attrs(),
	"label":      attrs("for"),
	"legend":     attrs("align"),
	"li":         attrs("align", "value"),
	"main":       attrs("align"),
	"map":        attrs("name"),
	"mark":       attrs(),
	"menu":       attrs("type"),
	"nav":        attrs("align"),
	"ol":         attrs("start", "type", "reversed"),
	"p":          attrs("align"),
	"pre":        attrs("width"),
	"q":          attrs("cite"),
	"rb":         attrs(),
	"rp":         attrs(),
	"rt":         attrs(),
	"rtc":        attrs(),
	"ruby":       attrs(),
	"s":          attrs(),
	"samp":       attrs(),
	"section":    attrs("align"),
	"small":      attrs(),
	"source":     attrs("src", "type", "media"),
	"span":       attrs("align"),
	"strike":     attrs(),
	"strong":     attrs(),
	"sub":        attrs(),
	"summary":    attrs("align"),
	"sup":        attrs(),
	"table":      attrs("align", "bgcolor", "border", "cellpadding", "cellspacing", "rules", "summary", "width"),
	"tbody":      attrs("align", "char", "charoff", "valign"),
	"td":         attrs("abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"),
	"tfoot":      attrs("align", "char", "charoff", "valign"),
	"th":         attrs("abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"),
	"thead":      attrs("align", "char", "charoff", "valign"),
	"time":       attrs("datetime"),
	"tr":         attrs("align", "bgcolor", "char", "charoff", "valign"),
	"track":      attrs("default", "kind", "label", "src", "srclang"),
	"tt":         attrs(),
	"u":          attrs(),
	"ul":         attrs("type"),
	"var":        attrs(),
	"video":      attrs("autoplay", "controls", "height", "loop", "muted", "playsinline", "poster", "preload", "src", "width"),
}

func attrs(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// globalAttrs may appear on every allowed element.
var globalAttrs = attrs("class", "id", "style", "title", "role", "dir", "lang", "xml:lang", "hidden")

// droppedWithContent are elements removed together with everything up to
// their end tag: scripts, styles, embedded documents and the elements whose
// contents a browser does not parse as markup.
var droppedWithContent = attrs(
	"script", "style", "iframe", "frame", "frameset", "object", "applet", "embed",
	"noscript", "noembed", "noframes", "template", "textarea", "title", "xmp",
	"plaintext", "svg", "math",
)

// uriAttrs hold URLs and have their protocol checked.
var uriAttrs = attrs(
	"action", "background", "cite", "classid", "codebase", "data", "formaction",
	"href", "icon", "longdesc", "manifest", "poster", "profile", "src", "usemap", "xmlns",
)

// allowedProtocols are the URL schemes KSESPost accepts.
var allowedProtocols = attrs(
	"http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs", "gopher",
	"nntp", "feed", "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp",
	"webcal", "urn",
)

// KSESPost filters post HTML through the post allow-list, as applied on
// write for every role. Allowed elements keep their allowed attributes
// (rewritten as name="value" with <, > and " encoded in values); other
// elements lose their tags but keep their text; script, style, iframe,
// object, svg and the like are removed together with their contents; event
// handler attributes and URLs with a scheme outside the allowed protocols
// (javascript:, data:, vbscript: …) are dropped; HTML comments, and so block
// delimiters, are kept. Text is left as it is, except that a '<' that does
// not start a tag becomes &lt; and NUL bytes are removed.
func KSESPost(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			b.WriteString(s[i:])
			break
		}
		start := i + k
		b.WriteString(s[i:start])
		i = ksesMarkup(&b, s, start)
	}
	return b.String()
}

// ksesMarkup handles the markup starting with '<' at s[start], writes what
// survives to b and returns where scanning resumes.
func ksesMarkup(b *strings.Builder, s string, start int) int {
	p := start + 1
	switch {
	case strings.HasPrefix(s[p:], "!--"):
		return ksesComment(b, s, p+3)
	case p < len(s) && (s[p] == '!' || s[p] == '?'):
		// Bogus comments (doctype, CDATA, processing instructions): drop.
		return tokenGT(s, p)
	case p < len(s) && s[p] == '/':
		if p+1 < len(s) && isASCIIAlpha(s[p+1]) {
			t, end, ok := parseTag(s, p+1)
			if !ok {
				return len(s)
			}
			if _, allowed := allowedPostTags[strings.ToLower(t.name)]; allowed {
				b.WriteString("</")
				b.WriteString(t.name)
				b.WriteByte('>')
			}
			return end
		}
		// "</>" is ignored, "</ x>" is a bogus comment: drop either.
		return tokenGT(s, p)
	case p < len(s) && isASCIIAlpha(s[p]):
		t, end, ok := parseTag(s, p)
		if !ok {
			return len(s)
		}
		name := strings.ToLower(t.name)
		if droppedWithContent[name] {
			return skipElement(s, end, name)
		}
		allowed, ok := allowedPostTags[name]
		if !ok {
			return end
		}
		writeTag(b, t, allowed)
		return end
	}
	b.WriteString("&lt;")
	return p
}

// ksesComment keeps the comment whose text starts at s[p], ending it where a
// browser would, and returns where scanning resumes.
func ksesComment(b *strings.Builder, s string, p int) int {
	var text string
	end := len(s)
	switch {
	case strings.HasPrefix(s[p:], ">"):
		end = p + 1
	case strings.HasPrefix(s[p:], "->"):
		end = p + 2
	default:
		text = s[p:]
		for q := p; q < len(s); q++ {
			if strings.HasPrefix(s[q:], "-->") {
				text, end = s[p:q], q+3
				break
			}
			if strings.HasPrefix(s[q:], "--!>") {
				text, end = s[p:q], q+4
				break
			}
		}
	}
	b.WriteString("<!--")
	b.WriteString(text)
	b.WriteString("-->")
	return end
}

// tokenGT returns the position after the first '>' at or after p, or len(s).
func tokenGT(s string, p int) int {
	if k := strings.IndexByte(s[p:], '>'); k >= 0 {
		return p + k + 1
	}
	return len(s)
}

// skipElement skips the contents of the dropped element name that begin at
// s[p] and its end tag, returning where scanning resumes.
func skipElement(s string, p int, name string) int {
	if name == "plaintext" {
		return len(s)
	}
	closing := "</" + name
	for q := p; ; {
		k := strings.Index(s[q:], "</")
		if k < 0 {
			return len(s)
		}
		at := q + k
		q = at + 2
		if len(s)-at < len(closing) || !strings.EqualFold(s[at:at+len(closing)], closing) {
			continue
		}
		n := at + len(closing)
		if n >= len(s) || isHTMLSpace(s[n]) || s[n] == '/' || s[n] == '>' {
			_, end, ok := parseTag(s, at+2)
			if !ok {
				return len(s)
			}
			return end
		}
	}
}

// tagAttr is one attribute as written.
type tagAttr struct {
	name     string
	value    string
	hasValue bool
}

// tag is a parsed start or end tag.
type tag struct {
	name        string
	attrs       []tagAttr
	selfClosing bool
}

// parseTag tokenizes a tag whose name starts at s[p] like a browser does and
// returns it with the position after its '>'. ok is false when the input
// ends inside the tag, which a browser then discards.
func parseTag(s string, p int) (t tag, end int, ok bool) {
	q := p
	for q < len(s) && !isHTMLSpace(s[q]) && s[q] != '/' && s[q] != '>' {
		q++
	}
	t.name = s[p:q]
	for q < len(s) {
		c := s[q]
		switch {
		case isHTMLSpace(c):
			q++
			continue
		case c == '>':
			return t, q + 1, true
		case c == '/':
			q++
			if q < len(s) && s[q] == '>' {
				t.selfClosing = true
			}
			continue
		}
		// Attribute name: the first character may be '='.
		n := q + 1
		for n < len(s) && !isHTMLSpace(s[n]) && s[n] != '/' && s[n] != '>' && s[n] != '=' {
			n++
		}
		a := tagAttr{name: s[q:n]}
		q = n
		for q < len(s) && isHTMLSpace(s[q]) {
			q++
		}
		if q < len(s) && s[q] == '=' {
			q++
			for q < len(s) && isHTMLSpace(s[q]) {
				q++
			}
			a.hasValue = true
			if q < len(s) && (s[q] == '"' || s[q] == '\'') {
				k := strings.IndexByte(s[q+1:], s[q])
				if k < 0 {
					return t, len(s), false
				}
				a.value = s[q+1 : q+1+k]
				q += k + 2
			} else {
				v := q
				for q < len(s) && !isHTMLSpace(s[q]) && s[q] != '>' {
					q++
				}
				a.value = s[v:q]
			}
		}
		t.attrs = append(t.attrs, a)
	}
	return t, len(s), false
}

// writeTag writes an allowed start tag with its allowed, safe attributes.
func writeTag(b *strings.Builder, t tag, allowed map[string]bool) {
	b.WriteByte('<')
	b.WriteString(t.name)
	seen := make(map[string]bool, len(t.attrs))
	for _, a := range t.attrs {
		name := strings.ToLower(a.name)
		if seen[name] {
			continue
		}
		seen[name] = true
		if !allowed[name] && !isGlobalAttr(name) {
			continue
		}
		if uriAttrs[name] && !safeURL(a.value) {
			continue
		}
		if name == "style" && !safeCSS(a.value) {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(a.name)
		if a.hasValue {
			b.WriteString(`="`)
			b.WriteString(attrValueEscaper.Replace(a.value))
			b.WriteByte('"')
		}
	}
	if t.selfClosing {
		b.WriteString(" /")
	}
	b.WriteByte('>')
}

var attrValueEscaper = strings.NewReplacer(`"`, "&quot;", "<", "&lt;", ">", "&gt;")

// isGlobalAttr reports whether name is allowed on every element: the common
// attributes, data-* and aria-*.
func isGlobalAttr(name string) bool {
	if globalAttrs[name] {
		return true
	}
	for _, prefix := range []string{"data-", "aria-"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok && rest != "" {
			for i := 0; i < len(rest); i++ {
				c := rest[i]
				if !isLowerASCII(c) && !isDigit(c) && c != '-' && c != '_' {
					return false
				}
			}
			return true
		}
	}
	return false
}

// safeURL reports whether the attribute value, as a browser reads it, is a
// relative URL or uses an allowed protocol.
func safeURL(v string) bool {
	u := html.UnescapeString(v)
	u = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
	u = strings.TrimLeft(u, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	colon := strings.IndexByte(u, ':')
	if colon < 0 {
		return true
	}
	scheme := u[:colon]
	if scheme == "" || !isASCIIAlpha(scheme[0]) {
		return true
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !isASCIIAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			// Not a scheme: a relative URL with a colon later on.
			return true
		}
	}
	return allowedProtocols[strings.ToLower(scheme)]
}

// safeCSS reports whether a style attribute value is free of constructs that
// can run script or load other code.
func safeCSS(v string) bool {
	u := strings.ToLower(html.UnescapeString(v))
	if strings.ContainsAny(u, `\<>`) {
		return false
	}
	u = strings.Join(strings.FieldsFunc(u, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	}), "")
	for _, bad := range []string{"expression(", "javascript:", "vbscript:", "behavior:", "-moz-binding", "@import", "/*"} {
		if strings.Contains(u, bad) {
			return false
		}
	}
	return true
}

func isASCIIAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// isHTMLSpace reports whether c is white space to the HTML tokenizer.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
