package postgres

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// zeroTS is the stored form of the zero time.Time as an SQL literal.
const zeroTS = `'0001-01-01 00:00:00'::timestamp`

// pgTime returns the value stored for t: its wall clock to the second, in
// UTC, zone dropped (the zero time stays zero, 0001-01-01 00:00:00).
func pgTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// readTime normalizes a time read back: a UTC wall clock, the zero date as
// the zero time.Time.
func readTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// args collects the bind arguments of one statement and hands out their
// $n placeholders.
type args struct {
	vals []any
}

// add appends v and returns its placeholder.
func (a *args) add(v any) string {
	a.vals = append(a.vals, v)
	return "$" + strconv.Itoa(len(a.vals))
}

// likeEscape escapes s for a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// asciiLower folds ASCII letters only, as SQLite's NOCASE and folio_nocase.
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

func asciiLowerAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = asciiLower(x)
	}
	return out
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
// case-insensitively, as the SQLite store's: ASCII words fold ASCII case
// (SQLite's LIKE), others fold Unicode case on both sides.
func likeAny(word string, cols []string, a *args) string {
	var parts []string
	if isASCII(word) {
		ph := a.add("%" + likeEscape(asciiLower(word)) + "%")
		for _, c := range cols {
			parts = append(parts, `folio_nocase(`+c+`) LIKE `+ph+` ESCAPE '\'`)
		}
	} else {
		ph := a.add("%" + likeEscape(strings.ToLower(word)) + "%")
		for _, c := range cols {
			parts = append(parts, `folio_lower(`+c+`) LIKE `+ph+` ESCAPE '\'`)
		}
	}
	return "(" + strings.Join(parts, " OR ") + ")"
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
func limitClause(limit, offset int, a *args) string {
	if limit <= 0 && offset <= 0 {
		return ""
	}
	if offset < 0 {
		offset = 0
	}
	if limit <= 0 {
		return " OFFSET " + a.add(int64(offset))
	}
	return " LIMIT " + a.add(int64(limit)) + " OFFSET " + a.add(int64(offset))
}

// cond collects the WHERE conditions of one query; its arguments go to a.
type cond struct {
	parts []string
	a     *args
}

func newCond(a *args) *cond { return &cond{a: a} }

func (c *cond) add(sql string) {
	c.parts = append(c.parts, sql)
}

func (c *cond) where() string {
	if len(c.parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(c.parts, " AND ")
}

// inExpr returns "col = ANY(list)" (or "<> ALL" when not is set); a single
// element compares with = or <> so the planner sees a plain equality.
func inExpr[T int64 | string](a *args, col string, xs []T, not bool) string {
	switch {
	case len(xs) == 1 && !not:
		return col + ` = ` + a.add(xs[0])
	case len(xs) == 1:
		return col + ` <> ` + a.add(xs[0])
	case not:
		return col + ` <> ALL(` + a.add(xs) + `)`
	default:
		return col + ` = ANY(` + a.add(xs) + `)`
	}
}

// inList adds inExpr's condition to c.
func inList[T int64 | string](c *cond, col string, xs []T, not bool) {
	c.add(inExpr(c.a, col, xs, not))
}
