package sqlstore

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/store"
)

var _ store.PostBulkInserter = ops{}

// bulkRows is how many posts one InsertPosts statement writes. SQLite's
// driver looks each parameter's name up in a list, quadratic in the
// parameters of a statement (24 a post): at 32 rows a statement the
// lookups were 7% of a seeding's CPU. The full-text index is written once
// a batch (the writer's queue), whatever the statements.
const bulkRows = 8

// InsertPosts stores ps with one multi-row INSERT per bulkRows posts, in
// one write transaction (the caller's when there is one). A dialect whose
// INSERT takes its id from a counter row (Dialect.Insert returns
// returning) inserts the posts one by one.
func (o ops) InsertPosts(ctx context.Context, ps []*store.Post) error {
	for _, p := range ps {
		if p.ID != 0 {
			return o.db.errorf("insert posts: id is %d, want 0", p.ID)
		}
	}
	if _, returning := o.db.d.Insert("posts", postInsertCols, ""); returning {
		if r, ok := o.db.d.(IDReserver); ok {
			return o.insertPostsWithIDs(ctx, r, ps)
		}
		for _, p := range ps {
			if err := o.InsertPost(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		for len(ps) > 0 {
			chunk := ps[:min(bulkRows, len(ps))]
			ps = ps[len(chunk):]
			var args []any
			rows := make([]string, len(chunk))
			for i, p := range chunk {
				a := o.db.postArgs(p)
				rows[i] = marks(len(args)+1, len(a))
				args = append(args, a...)
			}
			query, _ := o.db.d.Insert("posts", postInsertCols, strings.Join(rows, "), ("))
			res, err := q.exec(ctx, query, args...)
			if err != nil {
				return false, o.db.conflict(err, "insert posts")
			}
			// One statement under the single writer: the rows take
			// consecutive ids, the last one LastInsertId.
			last, err := res.LastInsertId()
			if err != nil {
				return false, o.db.fail("insert posts", err)
			}
			for i, p := range chunk {
				p.ID = last - int64(len(chunk)-1-i)
			}
		}
		return true, nil
	})
}

// IDReserver is a Dialect whose ids come from a sequence that can hand
// out many at once, so that a bulk insert names its rows' ids.
type IDReserver interface {
	// ReserveIDs returns the query of n new ids of table, ascending.
	ReserveIDs(a *Args, table string, n int) string
}

// CounterIDReserver is a Dialect whose ids come from a counter row that
// the writing transaction itself moves on (SQLite's sqlite_sequence under
// its single writer): an id is reserved inside the write transaction that
// uses it, and a transaction that rolls back gives it back.
type CounterIDReserver interface {
	// ReserveIDQueries returns the query that moves table's counter on
	// past every id the table has and returns the new id (no row when the
	// table has no counter yet), and the one that starts the counter
	// and returns the first id.
	ReserveIDQueries(table string) (next, first string)
}

// RowCopier is a Tx that writes many rows of a table with its database's
// bulk protocol (PostgreSQL's COPY): one round trip and no statement to
// parse, whatever the number of rows. Triggers fire as for an INSERT.
type RowCopier interface {
	// CopyRows writes rows, each holding the values of cols in order,
	// into table.
	CopyRows(ctx context.Context, table string, cols []string, rows [][]any) error
}

// PostSearchLoader is a Dialect whose full-text index of posts is a table
// a bulk insert may fill itself, before the posts, with the words Go
// splits (SearchWords): the database's trigger then indexes only the
// posts that have no row yet. Splitting a post's text is most of what
// inserting it costs on such a database (a regular-expression function on
// PostgreSQL), and Go does it many times faster, on the client.
type PostSearchLoader interface {
	// PostSearchTable names the index's table and the columns of
	// PostSearchRow's rows.
	PostSearchTable() (table string, cols []string)
	// PostSearchRow returns the index row of post id, whose words
	// (SearchWords') are words: sorted byte-wise, each once.
	PostSearchRow(id int64, words []string) []any
	// PostSearchFirst returns the start of a statement inserting post id
	// that writes the post's index row (of words, as PostSearchRow's) in
	// the same statement, before the post, with its parameters added to
	// a: what goes before the INSERT INTO posts.
	PostSearchFirst(a *Args, id int64, words []string) string
}

// postWords splits a post's fields as SearchWords does (eachSearchWord)
// into one set of words (Set), reusing its memory from one set to the
// next; the index rows it makes are the trigger's where the fields split
// alike in Go and in the database (splitAlike). A word without capitals is a piece of
// its text, not a copy, and repeats (most of a post's words) cost a map
// lookup.
type postWords struct {
	seen map[string]struct{}
	out  []string
}

// Set returns the words of fields, which must split alike (splitAlike),
// sorted byte-wise, each once, in a slice of its own.
func (a *postWords) Set(fields ...string) []string {
	if a.seen == nil {
		a.seen = make(map[string]struct{}, 256)
	}
	clear(a.seen)
	a.out = a.out[:0]
	for _, s := range fields {
		eachSearchWord(s, a.add)
	}
	slices.Sort(a.out)
	return slices.Clone(a.out)
}

// add adds w unless it is there already.
func (a *postWords) add(w string) {
	if _, ok := a.seen[w]; !ok {
		a.seen[w] = struct{}{}
		a.out = append(a.out, w)
	}
}

// splitAlike reports whether the database splits every field into the
// words Go does. That holds for ASCII, where a letter is a byte and lower
// case a table, and for the characters that are neither letters nor
// digits in any version of Unicode and that lower case leaves alone: the
// spaces, punctuation and symbols of Latin-1 (the no-break space, «», ©,
// ×) and of the General Punctuation block (curly quotes, dashes, the
// ellipsis, thin spaces), which separate words on both sides. Letters
// beyond ASCII are left to the database, whose Unicode version (ICU's)
// may differ from Go's.
func splitAlike(fields ...string) bool {
	for _, f := range fields {
		for _, r := range f { // a byte that is not UTF-8 reads as U+FFFD: not alike
			if r >= utf8.RuneSelf && !separatorEverywhere(r) {
				return false
			}
		}
	}
	return true
}

// separatorEverywhere reports whether r, beyond ASCII, is a character
// that no version of Unicode makes a letter or a digit (splitAlike).
func separatorEverywhere(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xBF:
		// ª, µ and º are letters.
		return r != 0xAA && r != 0xB5 && r != 0xBA
	case r == 0xD7 || r == 0xF7:
		return true
	case r >= 0x2000 && r <= 0x206F:
		return true
	}
	return false
}

// insertPostsWithIDs inserts ps with ids reserved first, one query for all
// of them (a multi-row INSERT's RETURNING does not promise its rows in the
// order of the VALUES), then one COPY where the transaction is a
// RowCopier, bulkRows to a multi-row INSERT otherwise. Where it copies and
// the dialect is a PostSearchLoader, the index rows of the posts whose
// text the database splits as Go does (splitAlike) are copied first,
// split as SearchWords does, so the rows are those the trigger would
// write (postWords); the trigger indexes the other posts.
func (o ops) insertPostsWithIDs(ctx context.Context, r IDReserver, ps []*store.Post) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		a := &Args{}
		ids := make([]int64, 0, len(ps))
		err := q.query(ctx, func(rows Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		}, r.ReserveIDs(a, "posts", len(ps)), a.vals...)
		if err != nil {
			return false, o.db.fail("insert posts", err)
		}
		if len(ids) != len(ps) {
			return false, o.db.errorf("insert posts: %d ids reserved for %d posts", len(ids), len(ps))
		}
		c, copies := q.c.(RowCopier)
		if l, ok := o.db.d.(PostSearchLoader); ok && copies {
			var rows [][]any
			var words postWords
			for i, p := range ps {
				if splitAlike(p.Title, p.Excerpt, p.Content) {
					rows = append(rows, l.PostSearchRow(ids[i], words.Set(p.Title, p.Excerpt, p.Content)))
				}
			}
			if len(rows) > 0 {
				table, cols := l.PostSearchTable()
				q.db.stmts.Add(1)
				if err := c.CopyRows(ctx, table, cols, rows); err != nil {
					return false, o.db.fail("insert posts", err)
				}
			}
		}
		if copies {
			rows := make([][]any, len(ps))
			for i, p := range ps {
				rows[i] = append([]any{ids[i]}, o.db.postArgs(p)...)
			}
			q.db.stmts.Add(1)
			if err := c.CopyRows(ctx, "posts", postCopyCols, rows); err != nil {
				return false, o.db.conflict(err, "insert posts")
			}
			for i, p := range ps {
				p.ID = ids[i]
			}
			return true, nil
		}
		for len(ps) > 0 {
			chunk := ps[:min(bulkRows, len(ps))]
			var args []any
			rows := make([]string, len(chunk))
			for i, p := range chunk {
				a := append([]any{ids[i]}, o.db.postArgs(p)...)
				rows[i] = marks(len(args)+1, len(a))
				args = append(args, a...)
			}
			if _, err := q.exec(ctx, `INSERT INTO posts (id, `+postInsertCols+`) VALUES (`+strings.Join(rows, "), (")+`)`, args...); err != nil {
				return false, o.db.conflict(err, "insert posts")
			}
			for i, p := range chunk {
				p.ID = ids[i]
			}
			ps, ids = ps[len(chunk):], ids[len(chunk):]
		}
		return true, nil
	})
}

// postCopyCols are the columns of a copied post: id, then postInsertCols.
var postCopyCols = func() []string {
	cols := []string{"id"}
	for _, c := range strings.Split(postInsertCols, ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	return cols
}()
