package sqlite

import (
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

func init() {
	// folio_lower folds case beyond ASCII, which SQLite's lower() and LIKE
	// do not; searches use it only for words with non-ASCII letters.
	sqlite.MustRegisterDeterministicScalarFunction("folio_lower", 1, foldFunc)
	// folio_search_text(field, ...) gives the words of a post that its
	// full-text index (posts_fts, migration 0012) holds; the triggers on
	// posts call it.
	sqlite.MustRegisterDeterministicScalarFunction("folio_search_text", -1, searchTextFunc)
	// folio_search_document(title, excerpt, content, type, status,
	// password) is what posts_fts holds for a post: its words and the
	// marks of its type, status and password (sqlstore.SearchDocument).
	sqlite.MustRegisterDeterministicScalarFunction("folio_search_document", 6, searchDocumentFunc)
	// folio_search_fields(words, field, ...) is 1 when every one of the
	// space-separated words begins a word of one of the fields.
	sqlite.MustRegisterDeterministicScalarFunction("folio_search_fields", -1, searchFieldsFunc)
	// folio_search_phrase(words, field, ...) is 1 when the space-separated
	// words are consecutive words of one of the fields, each beginning
	// the word at its place.
	sqlite.MustRegisterDeterministicScalarFunction("folio_search_phrase", -1, searchPhraseFunc)
	// folio_search_match(text, words) is 1 when every one of the
	// space-separated words begins a word of text.
	sqlite.MustRegisterDeterministicScalarFunction("folio_search_match", 2, searchMatchFunc)
	// folio_search_fold(field, ...) is the text the substring indexes of
	// users, terms and comments (migration 0019) hold for a row: the
	// fields in lower case (strings.ToLower), joined by line feeds.
	sqlite.MustRegisterDeterministicScalarFunction("folio_search_fold", -1, searchFoldFunc)
}

// searchFoldFunc implements folio_search_fold.
func searchFoldFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	fields := make([]string, len(args))
	for i, v := range args {
		fields[i] = text(v)
	}
	return strings.ToLower(strings.Join(fields, "\n")), nil
}

// text returns a text or blob value as a string ("" for NULL).
func text(v driver.Value) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// searchTextFunc implements folio_search_text: sqlstore.SearchText.
func searchTextFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	fields := make([]string, len(args))
	for i, v := range args {
		fields[i] = text(v)
	}
	return sqlstore.SearchText(fields...), nil
}

// searchDocumentFunc implements folio_search_document:
// sqlstore.SearchDocument.
func searchDocumentFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	return sqlstore.SearchDocument(text(args[0]), text(args[1]), text(args[2]), text(args[3]), text(args[4]), text(args[5])), nil
}

// searchFieldsFunc implements folio_search_fields:
// sqlstore.SearchFieldsMatch.
func searchFieldsFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if len(args) < 1 {
		return nil, errors.New("folio_search_fields: no words")
	}
	fields := make([]string, len(args)-1)
	for i, v := range args[1:] {
		fields[i] = text(v)
	}
	if sqlstore.SearchFieldsMatch(strings.Fields(text(args[0])), fields...) {
		return int64(1), nil
	}
	return int64(0), nil
}

// searchPhraseFunc implements folio_search_phrase:
// sqlstore.SearchPhraseMatch.
func searchPhraseFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if len(args) < 1 {
		return nil, errors.New("folio_search_phrase: no phrase")
	}
	fields := make([]string, len(args)-1)
	for i, v := range args[1:] {
		fields[i] = text(v)
	}
	if sqlstore.SearchPhraseMatch(strings.Fields(text(args[0])), fields...) {
		return int64(1), nil
	}
	return int64(0), nil
}

// searchMatchFunc implements folio_search_match: sqlstore.SearchMatch.
func searchMatchFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if sqlstore.SearchMatch(text(args[0]), strings.Fields(text(args[1]))) {
		return int64(1), nil
	}
	return int64(0), nil
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

// dialect is SQLite's sqlstore.Dialect. Dates are TEXT in
// sqlstore.TimeLayout ('0000-00-00 00:00:00' for the zero date), lists
// travel as one JSON array expanded with json_each, and the columns that
// compare without case are declared COLLATE NOCASE.
type dialect struct{}

var (
	_ sqlstore.Dialect      = dialect{}
	_ sqlstore.RowsOnDemand = dialect{}
)

func (dialect) Name() string { return "sqlite" }

// RowsOnDemand: SQLite steps a statement one row at a time.
func (dialect) RowsOnDemand() {}

func (dialect) Time(t time.Time) any { return sqlstore.FormatTime(t) }

func (dialect) In(a *sqlstore.Args, col string, list any, not bool) string {
	op := " IN "
	if not {
		op = " NOT IN "
	}
	return col + op + `(SELECT value FROM json_each(` + a.Add(sqlstore.JSONList(list)) + `))`
}

// InQuery is IN: SQLite looks rows up by the values of an IN subquery
// on the rowid.
func (dialect) InQuery(col, query string) string { return col + ` IN (` + query + `)` }

func (dialect) Position(a *sqlstore.Args, ids []int64, col string) string {
	return `(SELECT MIN(key) FROM json_each(` + a.Add(sqlstore.JSONList(ids)) + `) WHERE value = ` + col + `)`
}

func (dialect) Values(a *sqlstore.Args, ids []int64, alias string) string {
	return `json_each(` + a.Add(sqlstore.JSONList(ids)) + `) AS ` + alias
}

func (dialect) Fold(col string) string { return col + ` COLLATE NOCASE` }

func (dialect) FoldOrder(col string) string { return col + ` COLLATE NOCASE` }

// Match uses LIKE, which folds ASCII case by itself.
func (dialect) Match(a *sqlstore.Args, cols []string, word string) string {
	return sqlstore.LikeAny(a, cols, word, func(col, pattern string) string { return col + ` LIKE ` + pattern + ` ESCAPE '\'` })
}

// SubstringIn asks t's trigram indexes (migration 0019): <table>_fts for
// the public columns, <table>_private_fts for the private ones.
func (d dialect) SubstringIn(a *sqlstore.Args, t sqlstore.SubstringIndex, alias string, private bool, search string) string {
	return d.InQuery(alias+`.id`, substringIDs(a, t, private, search))
}

// SubstringCount counts in t's trigram indexes: SQLite's planner knows
// nothing of how many rows an FTS5 query matches.
func (d dialect) SubstringCount(a *sqlstore.Args, t sqlstore.SubstringIndex, private bool, search, upTo string) string {
	return `SELECT COUNT(*) FROM (` + substringIDs(a, t, private, search) + ` LIMIT ` + upTo + `)`
}

// PlanEach leaves args alone: SQLite's plans do not depend on them here.
func (dialect) PlanEach(args []any) []any { return args }

// substringIDs returns the query of the rowids whose indexed text (the
// columns folded and joined, folio_search_fold) has every trigram of the
// folded search (it has one), and of the rows queued for the index. The
// indexes keep no positions (detail=none): a candidate may have the
// trigrams apart, which Match then rules out.
func substringIDs(a *sqlstore.Args, t sqlstore.SubstringIndex, private bool, search string) string {
	tris := sqlstore.Trigrams(sqlstore.FoldSubstring(search))
	for i, s := range tris {
		tris[i] = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	q := a.Add(strings.Join(tris, " AND "))
	ids := `SELECT rowid FROM ` + t.Table + `_fts WHERE ` + t.Table + `_fts MATCH ` + q
	if private && len(t.Private) > 0 {
		ids += ` UNION SELECT rowid FROM ` + t.Table + `_private_fts WHERE ` + t.Table + `_private_fts MATCH ` + q
	}
	// The rows changed since the index was last written (at most 64).
	return ids + ` UNION SELECT id FROM ` + t.Table + `_fts_queue`
}

// PostSearch asks the FTS5 index for posts having a word that begins with
// each word.
func (dialect) PostSearch(a *sqlstore.Args, words []string, seek bool) string {
	col := `posts.id`
	if !seek {
		// A unary + keeps SQLite from using the rowid for the IN.
		col = `+posts.id`
	}
	return col + ` IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ` + ftsQuery(a, words) + `)`
}

// maxListedTerms is how many indexed words one searched word may stand
// for in a query that names them; a word beginning more (a short one, "a")
// is left to FTS5's prefix query.
const maxListedTerms = 32

// ftsQuery returns the SQL expression of the FTS5 query that every word
// begins a word. Each word becomes the indexed words it begins, listed
// from search_terms (migration 0017) and named one by one,
// ("garden" OR "gardens"), which FTS5 answers from their lists as they
// are, where its own prefix query ("garden"*) first merges them into a
// new one: ten times the work for a word in most posts. A word beginning
// no indexed word stays itself, matching nothing; one beginning more
// than maxListedTerms becomes the prefix query. The words are quoted, so
// that FTS5's operators (AND, OR, NOT, NEAR, *, ^, -, :) in a search are
// plain text, and are letters and digits only (sqlstore.SearchWords), as
// are the indexed words. The expression is a subquery without reference
// to the row: SQLite evaluates it once per statement.
func ftsQuery(a *sqlstore.Args, words []string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		quoted := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		p := a.Add(w)
		parts[i] = `(SELECT CASE WHEN count(*) > ` + strconv.Itoa(maxListedTerms) + ` THEN ` + a.Add(quoted+`*`) +
			` ELSE '(' || coalesce(group_concat('"' || term || '"', ' OR '), ` + a.Add(quoted) + `) || ')' END` +
			` FROM (SELECT term FROM search_terms WHERE term >= ` + p + ` AND term <= ` + p + ` || char(1114111)` +
			` LIMIT ` + strconv.Itoa(maxListedTerms+1) + `))`
	}
	return `(` + strings.Join(parts, ` || ' AND ' || `) + `)`
}

// SearchMatches counts in the FTS5 index alone: SQLite's planner has no
// statistics on how many posts a word matches.
func (dialect) SearchMatches(a *sqlstore.Args, words []string, upTo int) string {
	return `SELECT COUNT(*) FROM (SELECT 1 FROM posts_fts WHERE posts_fts MATCH ` + ftsQuery(a, words) +
		` LIMIT ` + strconv.Itoa(upTo+1) + `)`
}

// SearchCount counts in posts_fts alone: the words, one of the kinds'
// marks, and not the mark of a password (sqlstore.SearchCounter).
func (dialect) SearchCount(a *sqlstore.Args, words []string, kinds []string) string {
	marks := make([]string, len(kinds))
	for i, k := range kinds {
		marks[i] = `"` + k + `"`
	}
	return `SELECT COUNT(*) FROM posts_fts WHERE posts_fts MATCH '((' || ` + ftsQuery(a, words) + ` || ') AND (' || ` +
		a.Add(strings.Join(marks, " OR ")) + ` || ')) NOT "' || ` + a.Add(sqlstore.SearchMarkProtected) + ` || '"'`
}

func (dialect) FieldsSearch(a *sqlstore.Args, words []string, cols ...string) string {
	return `folio_search_fields(` + a.Add(strings.Join(words, " ")) + `, ` + strings.Join(cols, ", ") + `)`
}

func (dialect) SearchWithin(a *sqlstore.Args, words []string, id, lo, hi string) string {
	return id + ` IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ` + ftsQuery(a, words) +
		` AND rowid >= ` + lo + ` AND rowid <= ` + hi + `)`
}

func (dialect) ProtectedPosts() string { return `posts INDEXED BY posts_protected` }

func (dialect) PhraseSearch(a *sqlstore.Args, phrase []string, cols ...string) string {
	return `folio_search_phrase(` + a.Add(strings.Join(phrase, " ")) + `, ` + strings.Join(cols, ", ") + `)`
}

func (dialect) TitleSearch(a *sqlstore.Args, col string, words []string) string {
	return `folio_search_match(` + col + `, ` + a.Add(strings.Join(words, " ")) + `)`
}

// MonthStart compares the date's text with the month's, 'YYYY-MM': '~'
// sorts after every character of a date.
func (dialect) MonthStart(a *sqlstore.Args, month any, before bool) string {
	var m string // 'YYYY-MM'; dates are text that begins with it
	switch v := month.(type) {
	case string:
		m = v
	case []byte:
		m = string(v)
	default:
		return `0` // no month post_counts holds
	}
	if before {
		return `posts.date < ` + a.Add(m+"~")
	}
	return `posts.date >= ` + a.Add(m)
}

// DatePart compares the text of the date: the zero date's year, month and
// day are 0000 and 00, which no filter asks for.
func (dialect) DatePart(a *sqlstore.Args, col, part string, n int) string {
	switch part {
	case "year":
		from := time.Date(n, 1, 1, 0, 0, 0, 0, time.UTC)
		return col + ` >= ` + a.Add(sqlstore.FormatTime(from)) + ` AND ` + col + ` < ` + a.Add(sqlstore.FormatTime(from.AddDate(1, 0, 0)))
	case "month":
		return `substr(` + col + `, 6, 2) = ` + a.Add(twoDigits(n))
	default:
		return `substr(` + col + `, 9, 2) = ` + a.Add(twoDigits(n))
	}
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func (dialect) Unlimited() string { return "-1" }

// Insert leaves the id to INTEGER PRIMARY KEY AUTOINCREMENT.
func (dialect) Insert(table, cols, vals string) (string, bool) {
	return `INSERT INTO ` + table + ` (` + cols + `) VALUES (` + vals + `)`, false
}

// ReserveIDQueries moves the table's AUTOINCREMENT counter on
// (sqlstore.CounterIDReserver). The counter is never behind the table's
// largest id (AUTOINCREMENT keeps it so); the max() guards a counter
// edited by hand.
func (dialect) ReserveIDQueries(table string) (next, first string) {
	last := `(SELECT coalesce(max(id), 0) FROM ` + table + `)`
	return `UPDATE sqlite_sequence SET seq = max(seq, ` + last + `) + 1 WHERE name = '` + table + `' RETURNING seq`,
		`INSERT INTO sqlite_sequence (name, seq) VALUES ('` + table + `', ` + last + ` + 1) RETURNING seq`
}

// Lock is empty: the single writer holds the database for the whole write
// transaction.
func (dialect) Lock(bool) string { return "" }

// NoWait is "": every write goes through the single writer, whose
// commits wait for the disk (the rate-limit buckets of a SQLite site are
// kept in memory anyway).
func (dialect) NoWait() string { return "" }

func (dialect) JSONArray(expr, order string) string {
	return `json_group_array(` + expr + ` ORDER BY ` + order + `)`
}

func (dialect) JSONObject(key, val string) string {
	return `json_group_object(` + key + `, json(CASE WHEN ` + val + ` THEN 'true' ELSE 'false' END))`
}

func (dialect) Catalog() sqlstore.Catalog {
	return sqlstore.Catalog{
		Tables: `SELECT name FROM sqlite_master WHERE type = 'table'
			AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'store_version', 'post_counts', 'term_post_counts', 'author_post_counts', 'comment_counts', 'search_terms', 'posts_fts_queue', 'search_totals', 'auth_generation', 'site_generation', 'slug_hints')
			AND name NOT LIKE '%\_fts' ESCAPE '\' AND name NOT LIKE '%\_fts\_%' ESCAPE '\'`,
		ForeignKeys: `SELECT m.name, f."table" FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
			WHERE m.type = 'table'`,
		LastIDs: `SELECT name, seq FROM sqlite_sequence`,
	}
}

// Unique names the column from SQLite's message, "UNIQUE constraint
// failed: users.login".
func (dialect) Unique(err error) (string, bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) || (se.Code() != sqlite3.SQLITE_CONSTRAINT_UNIQUE && se.Code() != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return "", false
	}
	msg := err.Error()
	col := ""
	if i := strings.LastIndex(msg, "constraint failed: "); i >= 0 {
		col = strings.TrimSpace(msg[i+len("constraint failed: "):])
		if j := strings.IndexAny(col, " ("); j >= 0 {
			col = col[:j]
		}
	}
	return col, true
}

// Busy reports SQLITE_BUSY and SQLITE_LOCKED.
func (dialect) Busy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// ConnLost is false: the database is a local file.
func (dialect) ConnLost(error) bool { return false }
