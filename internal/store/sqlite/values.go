package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// timeLayout is how dates are stored: naive wall-clock text.
const timeLayout = "2006-01-02 15:04:05"

// zeroDate is how the zero time.Time is stored.
const zeroDate = "0000-00-00 00:00:00"

// fmtTime formats t's wall clock without zone; the zero time becomes
// zeroDate.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return zeroDate
	}
	return t.Format(timeLayout)
}

// parseTime reads a stored date back as a time.UTC wall-clock value; the
// zero date (or an empty value) becomes the zero time.Time.
func parseTime(s string) (time.Time, error) {
	if s == "" || s == zeroDate {
		return time.Time{}, nil
	}
	if t, ok := parseStoredTime(s); ok {
		return t, nil
	}
	t, err := time.ParseInLocation(timeLayout, s, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("sqlite: bad stored date %q: %w", s, err)
	}
	return t, nil
}

// parseStoredTime reads a well-formed timeLayout value without parsing the
// layout (every post row carries four dates). ok is false for anything
// time.ParseInLocation would have to judge: it gives the error.
func parseStoredTime(s string) (time.Time, bool) {
	if len(s) != len(timeLayout) || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(i, width int) int {
		n := 0
		for _, c := range []byte(s[i : i+width]) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day { // past the end of the month
		return time.Time{}, false
	}
	return t, true
}

// jsonList encodes a list as one JSON array parameter; queries expand it
// with json_each, so a filter has one SQL shape whatever its length (and
// the prepared statement cache stays small).
func jsonList[T int64 | string](xs []T) string {
	b, err := json.Marshal(xs)
	if err != nil {
		// Marshalling int64s and strings cannot fail.
		panic(err)
	}
	return string(b)
}

// likeEscape escapes s for a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// likeAny returns a condition that is true when any of cols contains word
// case-insensitively, and appends its arguments. ASCII words use LIKE,
// which folds ASCII case; others compare folio_lower() of both sides.
func likeAny(word string, cols []string, args *[]any) string {
	var parts []string
	if isASCII(word) {
		pat := "%" + likeEscape(word) + "%"
		for _, c := range cols {
			parts = append(parts, c+` LIKE ? ESCAPE '\'`)
			*args = append(*args, pat)
		}
	} else {
		pat := "%" + likeEscape(strings.ToLower(word)) + "%"
		for _, c := range cols {
			parts = append(parts, `folio_lower(`+c+`) LIKE ? ESCAPE '\'`)
			*args = append(*args, pat)
		}
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

// foldFunc implements folio_lower(x): Unicode lower case of a text value.
func foldFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	switch v := args[0].(type) {
	case nil:
		return nil, nil
	case string:
		return strings.ToLower(v), nil
	case []byte:
		return strings.ToLower(string(v)), nil
	default:
		return v, nil
	}
}

// orderDir returns "ASC" or "DESC" for an Order value, def when empty or
// unknown.
func orderDir(order, def string) string {
	switch strings.ToLower(order) {
	case "asc":
		return "ASC"
	case "desc":
		return "DESC"
	}
	return def
}

// limitClause returns LIMIT/OFFSET for a page; limit 0 means no limit.
func limitClause(limit, offset int, args *[]any) string {
	if limit <= 0 && offset <= 0 {
		return ""
	}
	if limit <= 0 {
		limit = -1
	}
	if offset < 0 {
		offset = 0
	}
	*args = append(*args, limit, offset)
	return " LIMIT ? OFFSET ?"
}
