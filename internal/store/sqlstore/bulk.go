package sqlstore

import (
	"context"
	"strings"

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

// insertPostsWithIDs inserts ps bulkRows to a statement with ids reserved
// first, one query for all of them: a multi-row INSERT's RETURNING does
// not promise its rows in the order of the VALUES.
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
