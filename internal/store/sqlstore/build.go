package sqlstore

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Args collects the parameters of one statement and hands out their $n
// markers.
type Args struct {
	vals []any
}

// Add appends v and returns its marker.
func (a *Args) Add(v any) string {
	a.vals = append(a.vals, v)
	return "$" + strconv.Itoa(len(a.vals))
}

// Values returns the parameters in the order of their markers.
func (a *Args) Values() []any { return a.vals }

// marks returns the markers $from, ..., $(from+n-1), comma-separated.
func marks(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(from + i))
	}
	return b.String()
}

// cond collects the WHERE conditions of one query; their parameters go to
// a.
type cond struct {
	d     Dialect
	a     *Args
	parts []string
}

func (db *DB) newCond(a *Args) *cond { return &cond{d: db.d, a: a} }

func (c *cond) add(sql string) {
	c.parts = append(c.parts, sql)
}

func (c *cond) where() string {
	if len(c.parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(c.parts, " AND ")
}

// inExpr returns "col is one of xs" (or not one of them when not is set); a
// single element compares with = or <> so the planner sees a plain
// equality.
func inExpr[T int64 | string](d Dialect, a *Args, col string, xs []T, not bool) string {
	switch {
	case len(xs) == 1 && !not:
		return col + ` = ` + a.Add(xs[0])
	case len(xs) == 1:
		return col + ` <> ` + a.Add(xs[0])
	}
	return d.In(a, col, xs, not)
}

// inList adds inExpr's condition to c.
func inList[T int64 | string](c *cond, col string, xs []T, not bool) {
	c.add(inExpr(c.d, c.a, col, xs, not))
}

// JSONList encodes a list as one JSON array, for dialects that bind a list
// as JSON text.
func JSONList(list any) string {
	b, err := json.Marshal(list)
	if err != nil {
		// Marshalling int64s and strings cannot fail.
		panic(err)
	}
	return string(b)
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
func (db *DB) limitClause(limit, offset int, a *Args) string {
	if limit <= 0 && offset <= 0 {
		return ""
	}
	if offset < 0 {
		offset = 0
	}
	if limit <= 0 {
		return " LIMIT " + db.d.Unlimited() + " OFFSET " + a.Add(int64(offset))
	}
	return " LIMIT " + a.Add(int64(limit)) + " OFFSET " + a.Add(int64(offset))
}

// LikeEscape escapes s for a LIKE pattern with ESCAPE '\'.
func LikeEscape(s string) string {
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

// foldASCII folds ASCII letters to lower case and leaves every other byte,
// as SQLite's NOCASE does.
func foldASCII(s string) string {
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

func foldASCIIAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = foldASCII(x)
	}
	return out
}

// LikeAny returns the condition that one of cols contains word: an ASCII
// word with ASCII case folded (like(col, pattern) compares each column with
// the pattern, folded here, ASCII case-insensitively), another word with
// Unicode case folded on both sides (folio_lower, which every dialect
// defines). Dialects build Match on it.
func LikeAny(a *Args, cols []string, word string, like func(col, pattern string) string) string {
	var parts []string
	if isASCII(word) {
		ph := a.Add("%" + LikeEscape(foldASCII(word)) + "%")
		for _, c := range cols {
			parts = append(parts, like(c, ph))
		}
	} else {
		ph := a.Add("%" + LikeEscape(strings.ToLower(word)) + "%")
		for _, c := range cols {
			parts = append(parts, `folio_lower(`+c+`) LIKE `+ph+` ESCAPE '\'`)
		}
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}
