package media

import (
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseDisposition extracts the file name from Content-Disposition header
// values (RFC 6266). Every value is examined and the last one that names a
// file wins. A value without ";" is skipped (a bare filename="x" gives no
// name, as in the original). The disposition type may be anything
// (attachment, inline, form-data, unknown). Parameters are split on ";"
// outside quotes and on the first "="; keys and values are trimmed of
// spaces and tabs. A quoted value has its quotes removed and its
// backslash escapes resolved; an unquoted value keeps inner spaces
// ("attachment; filename = my foo picture.jpg"). filename* (RFC 8187:
// charset'lang'percent-encoded, UTF-8 or ISO-8859-1) takes precedence over
// filename within a value. The result is not yet safe: pass it through
// SanitizeFileName.
func ParseDisposition(values []string) string {
	name := ""
	for _, v := range values {
		if !strings.Contains(v, ";") {
			continue
		}
		_, rest, _ := strings.Cut(v, ";")
		plain, ext := "", ""
		for _, part := range splitParams(rest) {
			key, val, ok := strings.Cut(part, "=")
			if !ok {
				continue
			}
			key = strings.ToLower(strings.Trim(key, " \t"))
			val = strings.Trim(val, " \t")
			switch key {
			case "filename":
				plain = unquote(val)
			case "filename*":
				if dec, ok := decodeExtValue(unquote(val)); ok {
					ext = dec
				}
			}
		}
		switch {
		case ext != "":
			name = ext
		case plain != "":
			name = plain
		}
	}
	return name
}

// splitParams splits s on ";" outside double quotes.
func splitParams(s string) []string {
	var out []string
	inQuote, esc := false, false
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case c == '\\' && inQuote:
			esc = true
		case c == '"':
			inQuote = !inQuote
		case c == ';' && !inQuote:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unquote removes surrounding double quotes and resolves \x escapes.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	v = v[1 : len(v)-1]
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// decodeExtValue decodes an RFC 8187 ext-value: charset'language'pct-text.
func decodeExtValue(v string) (string, bool) {
	charset, rest, ok := strings.Cut(v, "'")
	if !ok {
		return "", false
	}
	_, text, ok := strings.Cut(rest, "'")
	if !ok {
		return "", false
	}
	raw, err := url.PathUnescape(text)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(charset) {
	case "utf-8":
		if !utf8.ValidString(raw) {
			return "", false
		}
		return raw, true
	case "iso-8859-1":
		var b strings.Builder
		for i := 0; i < len(raw); i++ {
			b.WriteRune(rune(raw[i]))
		}
		return b.String(), true
	}
	return "", false
}

// MultipartFileName returns the file name of a multipart part's
// Content-Disposition as a browser form sends it (filename="..."), with
// filename* honoured too.
func MultipartFileName(disposition string) string {
	if n := ParseDisposition([]string{disposition}); n != "" {
		return n
	}
	if _, params, err := mime.ParseMediaType(disposition); err == nil {
		return params["filename"]
	}
	return ""
}

// SanitizeFileName makes name safe to store: path parts are stripped (both
// slash kinds), control characters and the characters the original
// removes (? [ ] / \ = < > : ; , ' " & $ # * ( ) | ~ ` ! { } % + and
// non-breaking space) are dropped, white space runs become "-", leading
// and trailing dots, dashes and underscores are trimmed, and the extension
// is lower-cased. Letters of any script are kept. It returns "" when
// nothing usable is left.
func SanitizeFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base("/" + name)
	if name == "/" || name == "." {
		return ""
	}
	var b strings.Builder
	lastDash := false
	for _, r := range name {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), strings.ContainsRune("?[]/\\=<>:;,'\"&$#*()|~`!{}%+\u00a0\u00ad", r):
			continue
		case unicode.IsSpace(r) || r == '-':
			if !lastDash {
				b.WriteByte('-')
			}
			lastDash = true
			continue
		}
		lastDash = false
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), ".-_")
	ext := Ext(out)
	if ext == "" {
		return out
	}
	base := strings.TrimRight(out[:len(out)-len(ext)-1], ".-_")
	if base == "" {
		// ".htaccess"-like names: nothing before the extension.
		return ""
	}
	if len(base) > 200 {
		base = truncateUTF8(base, 200)
	}
	return base + "." + strings.ToLower(ext)
}

func truncateUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Candidate returns the n-th candidate for a file name in a folder: the
// name itself for n == 0, then "base-1.ext", "base-2.ext", ...
func Candidate(name string, n int) string {
	if n == 0 {
		return name
	}
	ext := Ext(name)
	if ext == "" {
		return fmt.Sprintf("%s-%d", name, n)
	}
	return fmt.Sprintf("%s-%d.%s", strings.TrimSuffix(name, "."+ext), n, ext)
}

// SizedName returns the file name of a resized copy: "base-WxH.ext".
func SizedName(name, ext string, w, h int) string {
	base := strings.TrimSuffix(name, "."+Ext(name))
	return fmt.Sprintf("%s-%dx%d.%s", base, w, h, ext)
}
