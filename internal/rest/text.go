package rest

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// reasonBadText is the rest_invalid_param reason for a parameter whose text
// is not valid UTF-8 or holds a NUL character: no store keeps such text the
// same way (PostgreSQL refuses it), so it is refused on every store alike.
func reasonBadText(name string) string {
	return name + " contains invalid characters (a NUL character or invalid UTF-8)"
}

// checkText refuses a request any of whose parameters, from the query, the
// form or the JSON body (keys and string values at any depth), is not
// valid UTF-8 text or holds a NUL character. Every bad parameter is named.
func (r *Request) checkText() *Error {
	var bad []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			bad = append(bad, name)
		}
	}
	scanValues := func(vals url.Values) {
		for k, vs := range vals {
			if !goodText(k) {
				add(paramName(k))
				continue
			}
			for _, v := range vs {
				if !goodText(v) {
					add(paramName(k))
					break
				}
			}
		}
	}
	scanValues(r.Query)
	scanValues(r.Form)
	for k, v := range r.JSON {
		if !goodText(k) || !goodJSON(v) {
			add(k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	params := NewKeyed()
	for _, name := range bad {
		params.Add(name, reasonBadText(name))
	}
	return NewError("rest_invalid_param", http.StatusBadRequest,
		"Invalid parameter(s): "+strings.Join(bad, ", ")).WithData("params", params)
}

// paramName is the parameter a form key belongs to: "filter" for
// "filter[s]", "tags" for "tags[]", the key itself otherwise; invalid bytes
// are replaced so the name can be shown.
func paramName(k string) string {
	if i := strings.IndexByte(k, '['); i > 0 {
		k = k[:i]
	}
	return strings.ToValidUTF8(strings.ReplaceAll(k, "\x00", ""), "\uFFFD")
}

// goodText reports whether s is valid UTF-8 without NUL characters.
func goodText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// goodJSON reports whether every key and string in a decoded JSON value is
// good text. The JSON decoder bounds the nesting it walks.
func goodJSON(v any) bool {
	switch x := v.(type) {
	case string:
		return goodText(x)
	case []any:
		for _, e := range x {
			if !goodJSON(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if !goodText(k) || !goodJSON(e) {
				return false
			}
		}
	}
	return true
}
