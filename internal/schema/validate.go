package schema

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Rule is what the shared validator and sanitizer know about a value: its
// type, format, enum, element type (for arrays) and numeric range.
type Rule struct {
	Type, Format     string
	Items            string // element type of an array: "integer" makes an id list
	Enum             []string
	Minimum, Maximum *int64
	ExclusiveMinimum bool
	ExclusiveMaximum bool
	// MaxLength, when positive, bounds a string's length in characters.
	MaxLength int
}

// Reasons produced by the shared validator.
const (
	ReasonInvalidDate  = "The date you provided is invalid."
	ReasonInvalidEmail = "The email address you provided is invalid."
)

// ValidateValue validates v against the property's rule and returns the
// reason it is invalid, or "".
func ValidateValue(p *Property, name string, v any) string {
	return Validate(p.Rule(), name, v)
}

// SanitizeValue runs the default sanitizer of the property's rule.
func SanitizeValue(p *Property, name string, v any) (any, string) {
	return Sanitize(p.Rule(), name, v)
}

// Validate checks an already sanitized value against r and returns the
// reason it is invalid, or "" when it is valid. The checks and their texts
// are those of the original's shared validator: enum, integer type,
// string type, date-time and email formats, then numeric range. Booleans,
// arrays, objects and uri formats are not validated here.
func Validate(r Rule, name string, v any) string {
	if v == nil {
		return ""
	}
	if len(r.Enum) > 0 && !inEnum(r.Enum, v) {
		return name + " is not one of " + strings.Join(r.Enum, ", ")
	}
	if r.Type == "integer" && !IsNumeric(v) {
		return name + " is not of type integer"
	}
	if r.Type == "string" {
		s, ok := v.(string)
		if !ok {
			return name + " is not of type string"
		}
		if r.MaxLength > 0 && utf8.RuneCountInString(s) > r.MaxLength {
			return fmt.Sprintf("%s must be at most %d characters long", name, r.MaxLength)
		}
	}
	switch r.Format {
	case "date-time":
		s, _ := v.(string)
		if _, ok := ParseDate(s); !ok {
			return ReasonInvalidDate
		}
	case "email":
		s, _ := v.(string)
		if !IsEmail(s) {
			return ReasonInvalidEmail
		}
	}
	if (r.Type == "integer" || r.Type == "number") && (r.Minimum != nil || r.Maximum != nil) {
		return rangeReason(r, name, v)
	}
	return ""
}

func incl(exclusive bool) string {
	if exclusive {
		return "exclusive"
	}
	return "inclusive"
}

func rangeReason(r Rule, name string, v any) string {
	f, ok := ToFloat(v)
	if !ok {
		return ""
	}
	low := false
	if r.Minimum != nil {
		m := float64(*r.Minimum)
		low = f < m || (r.ExclusiveMinimum && f == m)
	}
	high := false
	if r.Maximum != nil {
		m := float64(*r.Maximum)
		high = f > m || (r.ExclusiveMaximum && f == m)
	}
	if !low && !high {
		return ""
	}
	switch {
	case r.Minimum != nil && r.Maximum != nil:
		return fmt.Sprintf("%s must be between %d (%s) and %d (%s)", name, *r.Minimum, incl(r.ExclusiveMinimum), *r.Maximum, incl(r.ExclusiveMaximum))
	case r.Minimum != nil:
		return fmt.Sprintf("%s must be greater than %d (%s)", name, *r.Minimum, incl(r.ExclusiveMinimum))
	default:
		return fmt.Sprintf("%s must be less than %d (%s)", name, *r.Maximum, incl(r.ExclusiveMaximum))
	}
}

func inEnum(enum []string, v any) bool {
	switch x := v.(type) {
	case []string:
		for _, s := range x {
			if !inEnum(enum, s) {
				return false
			}
		}
		return true
	case []any:
		for _, s := range x {
			if !inEnum(enum, s) {
				return false
			}
		}
		return true
	}
	s, ok := ScalarString(v)
	if !ok {
		return false
	}
	for _, e := range enum {
		if e == s {
			return true
		}
	}
	return false
}

// Sanitize runs the default sanitizer for the rule's type and format and
// returns the new value, or a reason when the value cannot be converted
// (only booleans fail: decisions #2). Integers become int64 when numeric
// (non-numeric values are left for Validate to reject), numbers float64,
// booleans bool, id lists []int64, string lists []string; date-time and
// email values are stripped to plain text and uri values URL-cleaned.
func Sanitize(r Rule, name string, v any) (any, string) {
	if v == nil {
		return nil, ""
	}
	switch r.Type {
	case "integer":
		if n, ok := ToInt(v); ok && IsNumeric(v) {
			return n, ""
		}
		return v, ""
	case "number":
		if f, ok := ToFloat(v); ok && IsNumeric(v) {
			return f, ""
		}
		return v, ""
	case "boolean":
		b, ok := ParseBool(v)
		if !ok {
			return v, name + " is not of type boolean"
		}
		return b, ""
	case "array":
		switch r.Items {
		case "integer":
			return IDList(v), ""
		case "string":
			return StringList(v), ""
		}
		return v, ""
	}
	s, ok := v.(string)
	if !ok {
		return v, ""
	}
	switch r.Format {
	case "date-time", "email":
		return SanitizeTextField(s), ""
	case "uri":
		return EscURLRaw(s), ""
	}
	return v, ""
}

// ParseBool converts v to a boolean per decisions #2: true, false, 1, 0 in
// any case and the empty string (false) are accepted; JSON booleans and
// the numbers 0 and 1 too.
func ParseBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1":
			return true, true
		case "false", "0", "":
			return false, true
		}
		return false, false
	case int:
		return x != 0, x == 0 || x == 1
	case int64:
		return x != 0, x == 0 || x == 1
	case float64:
		return x != 0, x == 0 || x == 1
	}
	return false, false
}

// IsNumeric reports whether v is a number or a string holding one
// (PHP is_numeric: optional surrounding white space, sign, decimals,
// exponent).
func IsNumeric(v any) bool {
	switch x := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case float32:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case string:
		s := strings.TrimLeft(x, " \t\n\r\v\f")
		s = strings.TrimRight(s, " \t\n\r\v\f")
		if s == "" || strings.ContainsAny(s, "xXpP_") || strings.EqualFold(s, "nan") || strings.Contains(strings.ToLower(s), "inf") {
			return false
		}
		_, err := strconv.ParseFloat(s, 64)
		return err == nil
	}
	return false
}

// ToInt converts v to an integer the way a PHP (int) cast does: numbers
// are truncated, strings use their leading integer part ("12abc" is 12,
// "abc" is 0), booleans are 0 or 1. The flag is false for values that are
// not scalars.
func ToInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case uint:
		return int64(x), true
	case uint64:
		return int64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, true
		}
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		return leadingInt(x), true
	}
	return 0, false
}

func leadingInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	if IsNumeric(s) {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			if f > math.MaxInt64 || f < math.MinInt64 {
				if f > 0 {
					return math.MaxInt64
				}
				return math.MinInt64
			}
			return int64(f)
		}
	}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start {
		return 0
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		if s[0] == '-' {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return n
}

// ToFloat converts a number or numeric string to float64.
func ToFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case string:
		if !IsNumeric(x) {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	if n, ok := ToInt(v); ok {
		if _, isBool := v.(bool); !isBool {
			return float64(n), true
		}
	}
	return 0, false
}

// AbsInt converts v to a non-negative integer (absint): "12abc" is 12,
// "-5" is 5, anything else 0.
func AbsInt(v any) int64 {
	n, _ := ToInt(v)
	if n < 0 {
		if n == math.MinInt64 {
			return math.MaxInt64
		}
		return -n
	}
	return n
}

// ScalarString returns the text of a scalar value (string, number, bool).
func ScalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		if x {
			return "1", true
		}
		return "", true
	}
	return "", false
}

// splitList splits a comma or white space separated list, dropping empty
// elements.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// IDList converts a JSON array, a repeated form field or a comma/space
// separated string to a de-duplicated list of non-negative integers, in
// first-seen order. The result is never nil.
func IDList(v any) []int64 {
	out := []int64{}
	seen := map[int64]bool{}
	add := func(x any) {
		n := AbsInt(x)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	var each func(x any)
	each = func(x any) {
		switch t := x.(type) {
		case string:
			for _, p := range splitList(t) {
				add(p)
			}
		case []string:
			for _, s := range t {
				each(s)
			}
		case []any:
			for _, e := range t {
				each(e)
			}
		case []int64:
			for _, e := range t {
				add(e)
			}
		case map[string]any:
			for _, e := range t {
				each(e)
			}
		case nil:
		default:
			add(t)
		}
	}
	each(v)
	return out
}

// StringList converts an array or a comma/space separated string to a list
// of strings. The result is never nil.
func StringList(v any) []string {
	out := []string{}
	switch t := v.(type) {
	case string:
		out = append(out, splitList(t)...)
	case []string:
		for _, s := range t {
			out = append(out, splitList(s)...)
		}
	case []any:
		for _, e := range t {
			if s, ok := ScalarString(e); ok {
				out = append(out, splitList(s)...)
			}
		}
	default:
		if s, ok := ScalarString(t); ok {
			out = append(out, splitList(s)...)
		}
	}
	return out
}

var dateRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$`)

// ParseDate parses an RFC 3339 date-time the way the original did: the
// offset is optional (no offset means the caller decides the zone; UTC is
// returned), fractional seconds are allowed, and "T" may be a space.
func ParseDate(s string) (time.Time, bool) {
	m := dateRE.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	year, mon, day := atoi(m[1]), atoi(m[2]), atoi(m[3])
	hour, min, sec := atoi(m[4]), atoi(m[5]), atoi(m[6])
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if m[7] != "" {
		frac := (m[7][1:] + "000000000")[:9]
		nsec = atoi(frac)
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" && z != "z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(z[1:], ":", "")
		hh, mm := atoi(digits[:2]), 0
		if len(digits) == 4 {
			mm = atoi(digits[2:])
		}
		if hh > 23 || mm > 59 {
			return time.Time{}, false
		}
		off := hh*3600 + mm*60
		loc = time.FixedZone("", sign*off)
	}
	t := time.Date(year, time.Month(mon), day, hour, min, sec, nsec, loc)
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}

var emailLocalRE = regexp.MustCompile(`^[a-zA-Z0-9!#$%&'*+/=?^_` + "`" + `{|}~.-]+$`)
var emailSubRE = regexp.MustCompile(`^[a-zA-Z0-9-]+$`)

// IsEmail reports whether s is an e-mail address by the original's rules
// (at least 6 characters, a local part of allowed characters, a domain of
// at least two dot-separated labels of letters, digits and hyphens).
func IsEmail(s string) bool {
	if len(s) < 6 {
		return false
	}
	at := strings.IndexByte(s, '@')
	if at < 1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !emailLocalRE.MatchString(local) {
		return false
	}
	if strings.Contains(domain, "..") {
		return false
	}
	if strings.Trim(domain, " \t\n\r\x00\x0b.") != domain {
		return false
	}
	subs := strings.Split(domain, ".")
	if len(subs) < 2 {
		return false
	}
	for _, sub := range subs {
		if strings.Trim(sub, " \t\n\r\x00\x0b-") != sub || !emailSubRE.MatchString(sub) {
			return false
		}
	}
	return true
}

var tagRE = regexp.MustCompile(`<[^>]*>?`)

// SanitizeTextField strips tags, line breaks and tabs, collapses runs of
// white space, trims and drops invalid UTF-8 (sanitize_text_field).
func SanitizeTextField(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = tagRE.ReplaceAllString(s, "")
	}
	s = strings.Join(strings.Fields(s), " ")
	return s
}

var allowedSchemes = map[string]bool{
	"http": true, "https": true, "ftp": true, "ftps": true, "mailto": true, "news": true,
	"irc": true, "gopher": true, "nntp": true, "feed": true, "telnet": true, "mms": true,
	"rtsp": true, "svn": true, "tel": true, "fax": true, "xmpp": true, "webcal": true, "urn": true,
}

// EscURLRaw cleans a URL for storage (esc_url_raw): it trims it, drops
// characters that cannot appear in a URL, returns "" for a scheme that is
// not allowed and prefixes "http://" when a host-like URL has no scheme.
func EscURLRaw(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, " ", "%20")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-~+_.?#=!&;,/:%@$|*'()[]", c) >= 0 {
			b.WriteByte(c)
		}
	}
	s = b.String()
	if colon := strings.IndexByte(s, ':'); colon > 0 && !strings.ContainsAny(s[:colon], "/?#") {
		if !allowedSchemes[strings.ToLower(s[:colon])] {
			return ""
		}
		return s
	}
	if s[0] != '/' && s[0] != '#' && s[0] != '?' && !strings.HasSuffix(strings.SplitN(s, "?", 2)[0], ".php") {
		s = "http://" + s
	}
	return s
}
