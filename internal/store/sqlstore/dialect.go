package sqlstore

import "time"

// Dialect is what differs between the SQL databases the store runs on: the
// few expressions each writes its own way and the classes of its errors.
// Everything else (the statements, the scanning of rows, the mapping of
// errors) is written once in this package.
//
// Statements number their parameters $1, $2, ...: PostgreSQL's syntax,
// which modernc.org/sqlite binds by number as well, so one statement text
// serves both.
type Dialect interface {
	// Name is the database's name; error messages start with it
	// ("sqlite: ...").
	Name() string
	// Time returns the parameter value that stores t: its wall clock to
	// the second without zone, the zero time as the database's zero date.
	Time(t time.Time) any
	// In returns the condition that col is (when not is false) or is not
	// one of list, a []int64 or []string of any length, bound as one
	// parameter of a, so that a filter has one statement text whatever
	// its length.
	In(a *Args, col string, list any, not bool) string
	// InQuery returns the condition that col is one of the values the
	// query selects, written so that the query runs first and the rows
	// are then looked up by col, whatever the planner estimates.
	InQuery(col, query string) string
	// Position returns the expression whose value orders rows as col
	// stands in ids (ORDER BY include).
	Position(a *Args, ids []int64, col string) string
	// Values returns a table expression named alias with one column,
	// value: the elements of ids.
	Values(a *Args, ids []int64, alias string) string
	// Fold returns col with ASCII letters folded to lower case, for = and
	// IN against values folded the same way (strings.ToLower of ASCII),
	// in a form the column's case-insensitive index serves.
	Fold(col string) string
	// FoldOrder returns the ORDER BY expression that sorts col with ASCII
	// letters folded to lower case, byte-wise otherwise.
	FoldOrder(col string) string
	// Match returns the condition that one of cols contains word, ASCII
	// case-insensitively (Unicode case-insensitively for a word with
	// other letters), worked out on the row (LikeAny).
	Match(a *Args, cols []string, word string) string
	// SubstringIn returns the condition that the row of t named alias is
	// a candidate of t's substring index for search (folded, it has a
	// trigram): at least every row whose public columns (and private
	// ones, when private is set) Match search is one.
	SubstringIn(a *Args, t SubstringIndex, alias string, private bool, search string) string
	// SubstringCount returns the query that counts SubstringIn's
	// candidates, stopping at upTo (an SQL expression), through the index
	// alone, for a dialect whose planner cannot tell a rare search from a
	// common one (the store then reads the candidates or every row, as
	// their number says); "" for a dialect that plans each search for its
	// values (PlanEach) and chooses itself.
	SubstringCount(a *Args, t SubstringIndex, private bool, search, upTo string) string
	// PlanEach returns the parameters args of a statement so that the
	// database plans it for their values each time it runs: the plan of
	// a substring search depends on how many rows the search matches.
	PlanEach(args []any) []any
	// PostSearch returns the condition that every one of words (the
	// distinct SearchWords of a search, at least one) begins a word of
	// the title, excerpt or content of the post whose id is the column
	// posts.id, through the store's full-text index. When seek is false
	// the condition is written so that the planner does not look posts up
	// by the ids it finds, but walks another index and checks them.
	PostSearch(a *Args, words []string, seek bool) string
	// SearchMatches returns the expression that counts the posts words
	// match, stopping at upTo + 1, for a dialect whose planner needs
	// ListPosts to choose between looking up the matches and walking the
	// order's index; "" for a dialect whose planner chooses well itself.
	SearchMatches(a *Args, words []string, upTo int) string
	// TitleSearch returns the condition that every one of words begins a
	// word of the text column col (SearchMatch), worked out on the row
	// without an index: searches evaluate it only on the rows PostSearch
	// found that are password-protected.
	TitleSearch(a *Args, col string, words []string) string
	// PhraseSearch returns the condition that phrase is in one of the
	// text columns cols as consecutive words, each beginning the word at
	// its place (SearchPhraseMatch), worked out on the row.
	PhraseSearch(a *Args, phrase []string, cols ...string) string
	// MonthStart returns the condition that posts.date is in month (a
	// value of post_counts.month as the driver scans it) or, when before
	// is set, in an earlier month; when not set, in that month or a later
	// one.
	MonthStart(a *Args, month any, before bool) string
	// DatePart returns the condition that the year, month or day (part)
	// of the date column col is n; the zero date matches none.
	DatePart(a *Args, col, part string, n int) string
	// Unlimited is the LIMIT that sets no limit (for an OFFSET alone).
	Unlimited() string
	// Insert returns the statement that inserts one row into table, its
	// id generated (cols and vals leave it out), and whether the
	// statement returns the id as its row (RETURNING id) rather than as
	// the driver's last insert id.
	Insert(table, cols, vals string) (query string, returning bool)
	// Lock returns the clause that locks the rows a SELECT inside a write
	// transaction reads (FOR UPDATE, with SKIP LOCKED when skip is set),
	// or "" where the write transaction holds the whole database.
	Lock(skip bool) string
	// NoWait returns the condition that, in the WHERE of a statement
	// run in its own transaction on a Conns.Reader connection, lets that
	// transaction commit without waiting for its write to reach the disk
	// (for rows whose loss in a crash harms nothing: rate-limit
	// buckets), or "" where writes go through a write transaction and
	// its commit waits.
	NoWait() string
	// JSONArray returns the aggregate that collects expr, in order, into
	// a JSON array (text; NULL or '[]' over no rows).
	JSONArray(expr, order string) string
	// JSONObject returns the aggregate that collects key → the boolean
	// val into a JSON object (text; NULL over no rows).
	JSONObject(key, val string) string
	// Catalog returns the queries that read the schema, for copies.
	Catalog() Catalog

	// Unique reports whether err is a unique or primary key violation
	// and, when it can tell, names the column: "table.column".
	Unique(err error) (column string, ok bool)
	// Busy reports whether err says another writer held the database
	// locked for longer than the store waits.
	Busy(err error) bool
	// ConnLost reports whether err says the connection failed (the server
	// closed it, restarted or cannot be reached) rather than the
	// statement.
	ConnLost(err error) bool
}

// Versioner is implemented by a dialect that keeps the write version
// somewhere else than store_version's one row, which every write updating
// it makes writers wait for each other's commit. Bump advances the
// version; the store runs it inside each write transaction that changed
// content and again on its own once that transaction has committed (a
// reader that read the value the first run set before the commit made
// the change visible cached what it read under a version the second run
// retires). Read returns the version.
type Versioner interface {
	VersionStatements() (bump, read string)
}

// GenericPlanner is implemented by a dialect whose planner can be told to
// keep a prepared statement's generic plan inside a transaction. A
// database that plans a prepared statement anew for each run's values
// (a custom plan) unless the generic plan looks as cheap spends more on
// planning some statements than on running them: on, run before such a
// statement in a transaction, has it run its generic plan; off, run
// after it, gives the statements that follow the planner's own choice.
type GenericPlanner interface {
	GenericPlans() (on, off string)
}

// RowsOnDemand is implemented by a dialect whose database makes a query's
// rows only as they are read, and a UNION ALL's parts one after the
// other, each in its own order: a scan that stops early spares the
// database the rows it did not read.
type RowsOnDemand interface {
	RowsOnDemand()
}

// TermCountSlotter is a Dialect whose term counts are spread over rows, so
// that concurrent writes never wait for one another on a term's row: a
// term's count is its row's count plus the sum of its rows in
// term_counts, one per slot, and a write transaction adds what it changes
// to the rows of its own slot (the expression TermCountSlot, evaluated in
// the transaction) just before it commits. The default category's row is
// then no longer locked by every create until its commit (creates queued
// on it, one WAL flush at a time), nor, with no foreign key from
// term_relationships to terms, share-locked by all of them at once (which
// makes the database record every locker in a shared list, and read that
// list back on every read of the row). Every count read sums the slots
// (termCount), and a recount sets the row's count to what the slots do
// not already hold.
type TermCountSlotter interface {
	TermCountSlot() string
}

// Catalog holds the queries that read a database's schema.
type Catalog struct {
	// Tables lists, one name a row, the tables that hold the site: not
	// the schema's bookkeeping (applied migrations, the version counter,
	// id counters) nor what triggers derive from other tables (the posts'
	// search index and counts), which a copy rebuilds as it inserts.
	Tables string
	// ForeignKeys lists every foreign key as a row (table, referenced
	// table).
	ForeignKeys string
	// LastIDs lists, per table with generated ids, the last id handed
	// out: rows (table, id).
	LastIDs string
}
