package rest

import (
	"strings"
)

// oaPathParam is a path variable of a route pattern.
type oaPathParam struct {
	name, expr string
}

// object describes the path parameter: integers for digit patterns, else
// a string with the route's pattern.
func (pp oaPathParam) object() *Keyed {
	p := NewKeyed()
	p.Add("name", pp.name)
	p.Add("in", "path")
	p.Add("required", true)
	s := NewKeyed()
	switch pp.expr {
	case `[\d]+`, `\d+`, `[0-9]+`:
		s.Add("type", "integer")
	default:
		s.Add("type", "string")
		if pat, ok := jsPattern(pp.expr); ok {
			s.Add("pattern", "^(?:"+pat+")$")
		}
	}
	p.Add("schema", s)
	return p
}

// jsPattern rewrites a route's RE2 group as an ECMA-262 pattern (the
// dialect of JSON Schema, with the u flag): a '-' next to a class escape in
// a character class is escaped. Groups with features JavaScript lacks
// give false.
func jsPattern(expr string) (string, bool) {
	for _, bad := range []string{"(?P", "(?i", "(?s", "(?m", "(?U", `\A`, `\z`, `\Q`, `\p`, `\P`, "[[:"} {
		if strings.Contains(expr, bad) {
			return "", false
		}
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			b.WriteByte(c)
			b.WriteByte(expr[i+1])
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case c == '-' && inClass:
			prevEscape := i >= 2 && expr[i-2] == '\\'
			nextEnd := i+1 < len(expr) && (expr[i+1] == ']' || expr[i+1] == '\\')
			if prevEscape || nextEnd || expr[i-1] == '[' {
				b.WriteString(`\-`)
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// pathTemplate turns a route pattern into an OpenAPI path template:
// `/svc/v2/posts/(?P<id>[\d]+)` is /svc/v2/posts/{id} with the variable id.
// A pattern with regular-expression syntax outside its named groups
// cannot be written as a template and gives false.
func pathTemplate(key string) (string, []oaPathParam, bool) {
	var b strings.Builder
	var params []oaPathParam
	for i := 0; i < len(key); {
		c := key[i]
		switch {
		case strings.HasPrefix(key[i:], "(?P<"):
			end := strings.IndexByte(key[i+4:], '>')
			if end <= 0 {
				return "", nil, false
			}
			name := key[i+4 : i+4+end]
			start := i + 4 + end + 1
			close, ok := groupEnd(key, start)
			if !ok {
				return "", nil, false
			}
			params = append(params, oaPathParam{name: name, expr: key[start:close]})
			b.WriteString("{" + name + "}")
			i = close + 1
		case c == '\\' && i+1 < len(key) && !isWordByte(key[i+1]):
			b.WriteByte(key[i+1])
			i += 2
		case strings.IndexByte(regexMeta, c) >= 0:
			return "", nil, false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), params, true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// groupEnd returns the index of the ')' that closes a group whose body
// starts at start, skipping escapes and character classes.
func groupEnd(s string, start int) (int, bool) {
	depth := 1
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i++
			if i < len(s) && s[i] == '^' {
				i++
			}
			if i < len(s) && s[i] == ']' {
				i++
			}
			for i < len(s) && s[i] != ']' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}
