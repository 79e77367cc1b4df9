package postgres

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// dialect is PostgreSQL's sqlstore.Dialect. Dates are naive timestamps
// (0001-01-01 00:00:00 for the zero date), lists travel as arrays, text
// columns use the "C" collation and folio_nocase (ASCII case folding, an
// SQL function of the schema) stands for SQLite's NOCASE.
type dialect struct{}

var (
	_ sqlstore.Dialect          = dialect{}
	_ sqlstore.IDReserver       = dialect{}
	_ sqlstore.PostSearchLoader = dialect{}
)

// zeroTS is the stored zero date as an SQL literal.
const zeroTS = `'0001-01-01 00:00:00'::timestamp`

func (dialect) Name() string { return "postgres" }

func (dialect) Time(t time.Time) any { return sqlstore.WallClock(t) }

// array returns the marker of list bound as an array, with its type.
func array(a *sqlstore.Args, list any) string {
	if _, ok := list.([]string); ok {
		return a.Add(list) + `::text[]`
	}
	return a.Add(list) + `::bigint[]`
}

func (dialect) In(a *sqlstore.Args, col string, list any, not bool) string {
	if not {
		return col + ` <> ALL(` + array(a, list) + `)`
	}
	return col + ` = ANY(` + array(a, list) + `)`
}

// InQuery collects the values first (ARRAY(...) is evaluated once), then
// looks the rows up: a generic plan, which cannot tell how many values
// the query has, could otherwise join it with a scan of the table.
func (dialect) InQuery(col, query string) string { return col + ` = ANY (ARRAY(` + query + `))` }

func (dialect) Position(a *sqlstore.Args, ids []int64, col string) string {
	return `array_position(` + array(a, ids) + `, ` + col + `)`
}

func (dialect) Values(a *sqlstore.Args, ids []int64, alias string) string {
	return `unnest(` + array(a, ids) + `) AS ` + alias + `(value)`
}

func (dialect) Fold(col string) string { return `folio_nocase(` + col + `)` }

func (dialect) FoldOrder(col string) string { return `folio_nocase(` + col + `) COLLATE "C"` }

// Match compares an ASCII word with ILIKE under the "C" collation, which
// folds ASCII letters only, as folio_nocase does: the same matches as
// folio_nocase(col) LIKE, twenty times cheaper (translate, which
// folio_nocase is, costs about 30 µs on a 300-character comment).
func (dialect) Match(a *sqlstore.Args, cols []string, word string) string {
	return sqlstore.LikeAny(a, cols, word, func(col, pattern string) string {
		return col + ` COLLATE "C" ILIKE ` + pattern + ` ESCAPE '\'`
	})
}

// SubstringIn is the condition that t's folded columns (folio_search_fold:
// folio_lower of them joined by line feeds) contain the folded search,
// which t's pg_trgm indexes (migration 0019) serve: the index finds the
// rows having the search's trigrams, and PostgreSQL checks the LIKE on
// each. The statement is planned for each search (PlanEach), so that the
// planner, which estimates how many rows the pattern matches from the
// index's statistics, looks a rare search's rows up through the index and
// walks the order's index (or reads the table) for a common one.
func (dialect) SubstringIn(a *sqlstore.Args, t sqlstore.SubstringIndex, alias string, private bool, search string) string {
	p := a.Add("%" + sqlstore.LikeEscape(sqlstore.FoldSubstring(search)) + "%")
	fold := func(cols []string) string {
		return `folio_search_fold(` + alias + `.` + strings.Join(cols, `, `+alias+`.`) + `) LIKE ` + p
	}
	if private && len(t.Private) > 0 {
		return `(` + fold(t.Public) + ` OR ` + fold(t.Private) + `)`
	}
	return fold(t.Public)
}

// SubstringCount is empty: PostgreSQL plans each search itself.
func (dialect) SubstringCount(*sqlstore.Args, sqlstore.SubstringIndex, bool, string, string) string {
	return ""
}

// PlanEach runs the statement as pgx's unnamed statement, which the server
// plans for the values it is given each time (with its description cached,
// in one round trip), rather than as a prepared statement, which comes to
// a generic plan: one for a pattern of unknown selectivity, which reads
// every row for a rare search or every candidate for a common one.
func (dialect) PlanEach(args []any) []any {
	return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
}

// PostSearch asks post_search's GIN index for posts having a word that
// begins with each word (a tsquery of prefix lexemes, taken literally: no
// text search parser or dictionary sees them). The matches are collected
// first (ARRAY(...) is evaluated once), then looked up by id: whatever
// the planner's estimate for a word (prepared statements get generic
// plans), a rare word never makes it walk every post in date order.
func (dialect) PostSearch(a *sqlstore.Args, words []string, _ bool) string {
	return `posts.id = ANY (ARRAY(SELECT post_search.post_id FROM post_search WHERE post_search.words @@ ` +
		a.Add(prefixQuery(words)) + `::tsquery))`
}

// SearchWithin asks post_search about each post of a window by its key:
// a window is a few hundred posts (sqlstore.listSearchFirstWindow), for
// which a lookup each costs less than the index's whole list of a common
// word; lo and hi are not needed.
func (dialect) SearchWithin(a *sqlstore.Args, words []string, id, _, _ string) string {
	return `(SELECT post_search.words FROM post_search WHERE post_search.post_id = ` + id + `) @@ ` + a.Add(prefixQuery(words)) + `::tsquery`
}

// CommonSearchCount counts a common search's unprotected matches from
// post_search, reading the collection's ids (an index-only scan of
// posts_type_status_date where the visibility map allows) rather than
// the row of each match. Planned for its words (PlanEach), a word in
// most posts reads post_search in order and hashes the ids.
func (dialect) CommonSearchCount(a *sqlstore.Args, words []string, ids string) string {
	return `SELECT COUNT(*) FROM post_search WHERE post_search.words @@ ` + a.Add(prefixQuery(words)) + `::tsquery
		AND post_search.post_id IN (` + ids + `) AND post_search.post_id NOT IN (SELECT posts.id FROM posts WHERE posts.password <> '')`
}

// FieldsSearch splits the columns into words as post_search's trigger
// does (folio_search_words) and asks whether every word begins one of
// them.
func (dialect) FieldsSearch(a *sqlstore.Args, words []string, cols ...string) string {
	parts := make([]string, len(cols))
	for i, col := range cols {
		parts[i] = `folio_search_words(` + col + `)`
	}
	return `array_to_tsvector(` + strings.Join(parts, ` || `) + `) @@ ` + a.Add(prefixQuery(words)) + `::tsquery`
}

// ProtectedPosts is posts: the planner reads posts_protected for a
// query that keeps only posts with a password.
func (dialect) ProtectedPosts() string { return `posts` }

// SearchMatches is empty: PostSearch already fixes the plan (matches
// first), which costs a common word its number of matches.
func (dialect) SearchMatches(*sqlstore.Args, []string, int) string { return "" }

func (dialect) TitleSearch(a *sqlstore.Args, col string, words []string) string {
	return `array_to_tsvector(folio_search_words(` + col + `)) @@ ` + a.Add(prefixQuery(words)) + `::tsquery`
}

// PhraseSearch matches the words of each column (folio_search_words,
// joined by spaces after a leading one) against ' w1[^ ]* w2[^ ]* …':
// the words are letters and digits only, nothing a regular expression
// reads as an operator.
func (dialect) PhraseSearch(a *sqlstore.Args, phrase []string, cols ...string) string {
	re := a.Add(" " + strings.Join(phrase, "[^ ]* "))
	alts := make([]string, len(cols))
	for i, col := range cols {
		alts[i] = `(' ' || array_to_string(folio_search_words(` + col + `), ' ')) ~ ` + re
	}
	return `(` + strings.Join(alts, ` OR `) + `)`
}

// prefixQuery returns the tsquery text that every word begins a lexeme.
func prefixQuery(words []string) string {
	esc := strings.NewReplacer(`\`, `\\`, `'`, `''`)
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = `'` + esc.Replace(w) + `':*`
	}
	return strings.Join(terms, " & ")
}

// MonthStart compares with the first instant of the month or of the next
// one.
func (dialect) MonthStart(a *sqlstore.Args, month any, before bool) string {
	m, ok := month.(time.Time) // date_trunc('month', date)
	if !ok {
		return `FALSE`
	}
	if before {
		return `posts.date < ` + a.Add(m.AddDate(0, 1, 0))
	}
	return `posts.date >= ` + a.Add(m)
}

// DatePart leaves out the zero date, which is a real timestamp here.
func (dialect) DatePart(a *sqlstore.Args, col, part string, n int) string {
	if part == "year" {
		from := time.Date(n, 1, 1, 0, 0, 0, 0, time.UTC)
		return col + ` >= ` + a.Add(from) + ` AND ` + col + ` < ` + a.Add(from.AddDate(1, 0, 0)) + ` AND ` + col + ` <> ` + zeroTS
	}
	return col + ` <> ` + zeroTS + ` AND EXTRACT(` + strings.ToUpper(part) + ` FROM ` + col + `) = ` + a.Add(int64(n))
}

// VersionStatements keeps the write version in a sequence (migration
// 0016): taking its next value waits for no other transaction.
func (dialect) VersionStatements() (bump, read string) {
	return `SELECT nextval('store_version_seq')`, `SELECT last_value FROM store_version_seq`
}

func (dialect) Unlimited() string { return "ALL" }

// Insert takes the id from the table's sequence (the id column's
// default, migration 0016): concurrent inserts never wait for each other,
// and an insert that rolls back leaves a gap.
func (dialect) Insert(table, cols, vals string) (string, bool) {
	return `INSERT INTO ` + table + ` (` + cols + `) VALUES (` + vals + `) RETURNING id`, true
}

// ReserveIDs takes n values of the table's id sequence (migration 0016)
// in one query; nextval runs row by row, so they ascend. One id (a
// create's) is a plain nextval: the series' query was planned again at
// every run, a third of its cost.
func (dialect) ReserveIDs(a *sqlstore.Args, table string, n int) string {
	if n == 1 {
		return `SELECT nextval('` + table + `_id_seq')`
	}
	return `SELECT nextval('` + table + `_id_seq') FROM generate_series(1, ` + a.Add(int64(n)) + `) ORDER BY 1`
}

// GenericPlans has PostgreSQL run the slug suffix query on its generic
// plan. With the values the planner estimates its ranges at one row, so
// the generic plan's estimate (twelve rows a range) never looks as cheap
// as a custom one and every run was planned again: the same plan, found
// in 0.22 ms (0.5 ms a create under load) for a statement that runs in
// 0.07 ms.
func (dialect) GenericPlans() (on, off string) {
	return `SET LOCAL plan_cache_mode = force_generic_plan`, `SET LOCAL plan_cache_mode TO DEFAULT`
}

// NoWait turns synchronous_commit off for the statement's own
// transaction (set_config's setting is local to it, and the commit after
// the statement reads it): the commit returns before the WAL reaches the
// disk (a crash may lose it, never corrupt anything).
func (dialect) NoWait() string { return `set_config('synchronous_commit', 'off', true) = 'off'` }

func (dialect) Lock(skip bool) string {
	if skip {
		return ` FOR UPDATE SKIP LOCKED`
	}
	return ` FOR UPDATE`
}

func (dialect) JSONArray(expr, order string) string {
	return `json_agg(` + expr + ` ORDER BY ` + order + `)::text`
}

func (dialect) JSONObject(key, val string) string {
	return `json_object_agg(` + key + `, ` + val + `)::text`
}

// TermCountSlot spreads term counts over 64 rows a term (migration 0026),
// one for each connection's backend modulo 64: concurrent transactions
// nearly always add to rows of their own.
func (dialect) TermCountSlot() string { return `pg_backend_pid() % 64` }

func (dialect) Catalog() sqlstore.Catalog {
	return sqlstore.Catalog{
		Tables: `SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
			AND table_name NOT IN ('schema_migrations', 'post_search', 'post_counts', 'term_counts', 'term_post_counts', 'author_post_counts', 'comment_counts', 'search_kept', 'search_kept_counts', 'auth_generation', 'site_generation', 'slug_hints')`,
		// term_relationships names terms without a foreign key (migration
		// 0026): it still comes after terms, as in the other stores.
		ForeignKeys: `SELECT f.relname, t.relname FROM pg_constraint c
			JOIN pg_class f ON f.oid = c.conrelid JOIN pg_class t ON t.oid = c.confrelid
			WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
			UNION ALL SELECT 'term_relationships', 'terms'`,
		// The id sequences (<table>_id_seq); one never used has no last
		// value.
		LastIDs: `SELECT left(sequencename, -7), COALESCE(last_value, 0) FROM pg_sequences
			WHERE schemaname = current_schema() AND sequencename LIKE '%\_id\_seq'`,
	}
}

// Unique names the column from the violated constraint, named
// <table>_<column>[_key] (or <table>_pkey for the id).
func (dialect) Unique(err error) (string, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return "", false
	}
	col := strings.TrimPrefix(pe.ConstraintName, pe.TableName+"_")
	col = strings.TrimSuffix(col, "_key")
	if col == "pkey" {
		col = "id"
	}
	if pe.TableName == "" || col == "" {
		return "", true
	}
	return pe.TableName + "." + col, true
}

// Busy reports a lock timeout, a serialization failure and a deadlock:
// another transaction held what this one needed.
func (dialect) Busy(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "55P03" || pe.Code == "40001" || pe.Code == "40P01")
}

// ConnLost reports whether err says the connection (not the statement)
// failed: the server closed it, restarted or cannot be reached.
func (dialect) ConnLost(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 08: connection exception; 57P01-57P03: admin shutdown, crash
		// shutdown, cannot connect now.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection reset") || strings.Contains(msg, "unexpected EOF")
}

// PostSearchTable is post_search (sqlstore.PostSearchLoader).
func (dialect) PostSearchTable() (string, []string) {
	return "post_search", []string{"post_id", "words"}
}

// PostSearchRow returns post id's post_search row: the tsvector of words
// without positions, as folio_search_vector's array_to_tsvector makes it.
// The words come sorted as a tsvector's lexemes are (byte-wise: a prefix
// first) and each once, so the server takes them as they are. Migration
// 0021's trigger then leaves the post's row alone.
func (dialect) PostSearchRow(id int64, words []string) []any {
	lex := make([]pgtype.TSVectorLexeme, len(words))
	for i, w := range words {
		lex[i].Word = w
	}
	return []any{id, pgtype.TSVector{Lexemes: lex, Valid: true}}
}

// PostSearchFirst writes the post's post_search row in a data-modifying
// WITH before the post (sqlstore.PostSearchLoader), and sets
// folio.post_search_given as it does: migration 0021's statement trigger,
// which runs after the whole statement, then returns at once (migration
// 0027) rather than looking for posts without a row.
func (d dialect) PostSearchFirst(a *sqlstore.Args, id int64, words []string) string {
	row := d.PostSearchRow(id, words)
	return `WITH search_row AS (INSERT INTO post_search (post_id, words) SELECT ` + a.Add(row[0]) + `, ` + a.Add(row[1]) +
		` WHERE set_config('folio.post_search_given', 'on', true) = 'on') `
}
