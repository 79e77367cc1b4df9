package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SubstringIndex describes the index that serves the substring search
// (Dialect.Match) of one table: users, terms or comments. A row is a
// candidate when its columns, folded (FoldSubstring) and joined, hold every
// trigram of the folded search; the search then checks each candidate with
// Match, so that what matches is exactly what Match alone matches.
type SubstringIndex struct {
	// Table is the table's name.
	Table string
	// Public are the columns every caller's search matches, Private the
	// ones only a privileged caller's does (list_users, moderators).
	Public, Private []string
}

// The searched tables.
var (
	userIndex    = SubstringIndex{Table: "users", Public: []string{"url", "nicename", "display_name"}, Private: []string{"login", "email"}}
	termIndex    = SubstringIndex{Table: "terms", Public: []string{"name", "slug"}}
	commentIndex = SubstringIndex{Table: "comments", Public: []string{"author_name", "author_url", "content"}, Private: []string{"author_email", "author_ip"}}
)

// Columns returns t's public columns, then its private ones when private
// is set, each prefixed with alias and a dot.
func (t SubstringIndex) Columns(alias string, private bool) []string {
	cols := t.Public
	if private {
		cols = append(cols[:len(cols):len(cols)], t.Private...)
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + "." + c
	}
	return out
}

// shortSearchRows is how many rows a search shorter than three characters
// (which no trigram index serves) reads at most: the newest (highest ids)
// of the table (of the taxonomy, for terms), of which the query's other
// filters then keep theirs.
const shortSearchRows = 10000

// seekShare is where a substring search stops reading its index's
// candidates on a dialect that counts them (SubstringCount: SQLite): when
// they are more than a seekShare-th of the table (its highest id), reading
// the rows in order, as without an index, costs less than looking the
// candidates up one by one.
const seekShare = 4

// substringMode is how a substring search reads its table.
type substringMode int

const (
	// substringScan checks every row the other filters select (a search
	// in more than a seekShare-th of the rows, or one the index cannot
	// serve).
	substringScan substringMode = iota
	// substringSeek looks up the index's candidates by id.
	substringSeek
	// substringWindow checks the newest shortSearchRows rows of the
	// table (a search shorter than three characters).
	substringWindow
)

// SetSubstringPlans sets how many rows a search shorter than three
// characters reads (window) and the share of the table beyond which a
// longer one reads the rows rather than the index's candidates (the
// candidates are looked up while candidates × share ≤ the highest id; a
// share of 0 always looks them up, a negative one never does). Tests use
// it to run every plan on a small site; a server keeps the defaults.
func (db *DB) SetSubstringPlans(window, share int) {
	db.substringWindow, db.substringShare = window, share
}

// FoldSubstring folds a search as Match compares it: ASCII letters to lower
// case in an ASCII search, every letter (strings.ToLower) in another. The
// indexes hold the columns folded with strings.ToLower, which folds an
// ASCII search's letters the same way.
func FoldSubstring(s string) string {
	if isASCII(s) {
		return foldASCII(s)
	}
	return strings.ToLower(s)
}

// substringPlan chooses how a search of t's columns (the private ones too
// when private is set) reads the table. A search shorter than three
// characters reads a window; a longer one reads the index's candidates,
// unless the dialect's count of them (up to a seekShare-th of the table)
// says they are too many.
func (o ops) substringPlan(ctx context.Context, t SubstringIndex, private bool, search string) (substringMode, error) {
	if search == "" {
		return substringScan, nil
	}
	if utf8.RuneCountInString(search) < 3 {
		return substringWindow, nil
	}
	share := o.db.substringShare
	if share < 0 || len(Trigrams(FoldSubstring(search))) == 0 {
		return substringScan, nil
	}
	a := &Args{}
	count := o.db.d.SubstringCount(a, t, private, search, `(SELECT COALESCE(MAX(id), 0) / `+strconv.Itoa(max(share, 1))+` + 1 FROM `+t.Table+`)`)
	if count == "" {
		return substringSeek, nil
	}
	var n, last int64
	if err := o.reader().queryRow(ctx, `SELECT (`+count+`), (SELECT COALESCE(MAX(id), 0) FROM `+t.Table+`)`, a.vals...).Scan(&n, &last); err != nil {
		return 0, o.db.fail("count "+t.Table+" search candidates", err)
	}
	if n*int64(share) <= last {
		return substringSeek, nil
	}
	return substringScan, nil
}

// substringArgs returns the parameters of a statement holding a search
// in mode: planned for their values when it reads the index (PlanEach).
func (db *DB) substringArgs(a *Args, mode substringMode) []any {
	if mode == substringSeek {
		return db.d.PlanEach(a.vals)
	}
	return a.vals
}

// substringCond returns the condition that the row of t whose id is the
// column alias.id matches search in mode: Match on the columns, and in
// seek mode one of the index's candidates, in window mode one of the
// newest rows of the table (of those the condition scope returns, when it
// is not nil, selects: the terms of one taxonomy).
func (db *DB) substringCond(a *Args, t SubstringIndex, alias string, private bool, search string, mode substringMode, scope func() string) string {
	match := db.d.Match(a, t.Columns(alias, private), search)
	id := alias + ".id"
	switch mode {
	case substringSeek:
		return "(" + db.d.SubstringIn(a, t, alias, private, search) + " AND " + match + ")"
	case substringWindow:
		where := ""
		if scope != nil {
			where = " WHERE " + scope()
		}
		// The bound is written out, not a parameter, for the planner to
		// know it (it takes a tenth of the table for a LIMIT it does not
		// know).
		return "(" + db.d.InQuery(id, "SELECT id FROM "+t.Table+where+" ORDER BY id DESC LIMIT "+
			strconv.Itoa(db.substringWindow)) + " AND " + match + ")"
	}
	return match
}

// Trigrams returns the distinct runs of three characters of s, in order,
// leaving out those holding a NUL character (which SQLite's text functions
// end strings at).
func Trigrams(s string) []string {
	r := []rune(s)
	var out []string
	seen := map[string]bool{}
	for i := 0; i+3 <= len(r); i++ {
		t := string(r[i : i+3])
		if seen[t] || strings.ContainsRune(t, 0) {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
