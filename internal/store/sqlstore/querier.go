package sqlstore

import (
	"context"
	"database/sql"
	"errors"
)

// querier runs statements on one Conn and counts them.
type querier struct {
	db *DB
	c  Conn
	// retry allows one retry of a read that failed because its pooled
	// connection had died (the server restarted); only outside
	// transactions, where a read is idempotent.
	retry bool
	// counts, in a write transaction, collects the changes to term counts
	// that are applied just before the commit (termCounts); nil where
	// they are applied at once.
	counts *termCounts
}

func (q querier) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	q.db.stmts.Add(1)
	return q.c.Exec(ctx, query, args...)
}

// query runs a query and hands each row to scan, retrying once outside a
// transaction when the connection turned out to be lost.
func (q querier) query(ctx context.Context, scan func(Rows) error, query string, args ...any) error {
	record(ctx, query, args)
	for attempt := 0; ; attempt++ {
		q.db.stmts.Add(1)
		err := q.queryOnce(ctx, scan, query, args...)
		if err == nil || !q.retry || attempt > 0 || !q.db.d.ConnLost(err) || ctx.Err() != nil {
			return err
		}
	}
}

func (q querier) queryOnce(ctx context.Context, scan func(Rows) error, query string, args ...any) error {
	rows, err := q.c.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			if err == errStopRows {
				return nil
			}
			return err
		}
	}
	return rows.Err()
}

// errStopRows, returned by a query's scan, ends the query without error:
// the rows after it are not read.
var errStopRows = errors.New("sqlstore: stop reading rows")

// row is the result of queryRow: its Scan runs the query.
type row struct {
	q     querier
	ctx   context.Context
	query string
	args  []any
}

// Scan runs the query and scans its first row; sql.ErrNoRows when there is
// none.
func (r row) Scan(dest ...any) error {
	found := false
	err := r.q.query(r.ctx, func(rows Rows) error {
		if found {
			return nil
		}
		found = true
		return rows.Scan(dest...)
	}, r.query, r.args...)
	if err != nil {
		return err
	}
	if !found {
		return sql.ErrNoRows
	}
	return nil
}

func (q querier) queryRow(ctx context.Context, query string, args ...any) row {
	return row{q: q, ctx: ctx, query: query, args: args}
}

// insert inserts one row into table (cols and args, the id left out) and
// returns the id it got.
func (q querier) insert(ctx context.Context, table, cols string, args ...any) (int64, error) {
	query, returning := q.db.d.Insert(table, cols, marks(1, len(args)))
	if returning {
		var id int64
		err := q.queryRow(ctx, query, args...).Scan(&id)
		return id, err
	}
	res, err := q.exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// affected reports a change when res touched a row and store.ErrNotFound
// (about what) when it touched none.
func (db *DB) affected(res sql.Result, what string) (bool, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return false, db.fail(what, err)
	}
	if n == 0 {
		return false, db.notFound(what)
	}
	return true, nil
}

// rowsAffected returns how many rows res touched.
func (db *DB) rowsAffected(res sql.Result, what string) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, db.fail(what, err)
	}
	return n, nil
}

// scanner is a row to scan.
type scanner interface {
	Scan(dest ...any) error
}

// withExtra scans a row of known columns followed by more columns into
// extra.
type withExtra struct {
	s     scanner
	extra []any
}

func (w withExtra) Scan(dest ...any) error {
	return w.s.Scan(append(dest, w.extra...)...)
}

// collect runs a query and appends each row scan makes of it to out.
func collect[T any](ctx context.Context, q querier, out *[]T, scan func(scanner) (T, error), query string, args ...any) error {
	return q.query(ctx, func(rows Rows) error {
		x, err := scan(rows)
		if err != nil {
			return err
		}
		*out = append(*out, x)
		return nil
	}, query, args...)
}

// scanString scans a one-column row of text.
func scanString(s scanner) (string, error) {
	var x string
	err := s.Scan(&x)
	return x, err
}

// scanInt64 scans a one-column row of an integer.
func scanInt64(s scanner) (int64, error) {
	var x int64
	err := s.Scan(&x)
	return x, err
}
