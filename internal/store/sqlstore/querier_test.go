package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"testing"
)

// countedRows yields n rows and counts how many were asked for.
type countedRows struct {
	n, read int
	closed  bool
}

func (r *countedRows) Next() bool {
	if r.read == r.n {
		return false
	}
	r.read++
	return true
}
func (r *countedRows) Scan(dest ...any) error {
	*dest[0].(*int) = r.read
	return nil
}
func (r *countedRows) Columns() []string { return []string{"n"} }
func (r *countedRows) Err() error        { return nil }
func (r *countedRows) Close()            { r.closed = true }

type rowsConn struct{ rows *countedRows }

func (c rowsConn) Exec(context.Context, string, ...any) (sql.Result, error) {
	return nil, errors.New("no exec")
}
func (c rowsConn) Query(context.Context, string, ...any) (Rows, error) { return c.rows, nil }

// TestScanThatStopsReadsNoFurther: a scan that returns errStopRows ends
// its query without error, and no row after it is asked for; another
// error of the scan is the query's.
func TestScanThatStopsReadsNoFurther(t *testing.T) {
	db := &DB{d: classDialect{}}
	rows := &countedRows{n: 64}
	q := querier{db: db, c: rowsConn{rows}}
	var seen []int
	err := q.query(context.Background(), func(rs Rows) error {
		var n int
		if err := rs.Scan(&n); err != nil {
			return err
		}
		seen = append(seen, n)
		if n == 3 {
			return errStopRows
		}
		return nil
	}, `SELECT n`)
	if err != nil {
		t.Fatalf("query = %v, want nil", err)
	}
	if rows.read != 3 || len(seen) != 3 || !rows.closed {
		t.Fatalf("read %d rows (scanned %v), closed %v; want 3 rows read, then closed", rows.read, seen, rows.closed)
	}

	boom := errors.New("boom")
	rows = &countedRows{n: 64}
	q = querier{db: db, c: rowsConn{rows}}
	err = q.query(context.Background(), func(Rows) error { return boom }, `SELECT n`)
	if !errors.Is(err, boom) || rows.read != 1 {
		t.Fatalf("query = %v after %d rows, want the scan's error after 1", err, rows.read)
	}
}
