package sqlite

import (
	"context"
	"testing"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// TestWriterPreparesStatementsAfterTheirFirstTransaction: a write
// statement first runs unprepared, is prepared once its transaction ends
// and is then reused by later transactions, committed or rolled back, with
// the right results; a failing prepared statement fails only its own call.
func TestWriterPreparesStatementsAfterTheirFirstTransaction(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	if _, err := db.c.write.ExecContext(ctx, `CREATE TABLE wst (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	const ins = `INSERT INTO wst (v) VALUES (?)`
	const cnt = `SELECT count(*) FROM wst`
	count := func(tx sqlstore.Tx) int {
		t.Helper()
		rs, err := tx.Query(ctx, cnt)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var n int
		if !rs.Next() {
			t.Fatal("no row")
		}
		if err := rs.Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A first batch prepares what every batch runs (the search queue's
	// statements, searchindex.go) and the statement it ran.
	warm, err := db.c.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := warm.Exec(ctx, `UPDATE wst SET v = v WHERE 0`); err != nil {
		t.Fatal(err)
	}
	if err := warm.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	before := db.c.wstmts.len()
	run := func(v string, commit bool, want int) {
		t.Helper()
		txi, err := db.c.Begin(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		tx := txi
		if _, err := tx.Exec(ctx, ins, v); err != nil {
			t.Fatal(err)
		}
		// A duplicate fails alone and leaves the transaction usable.
		if _, err := tx.Exec(ctx, ins, v); err == nil {
			t.Fatal("a duplicate value was inserted")
		}
		if n := count(tx); n != want {
			t.Fatalf("%s: %d rows inside the transaction, want %d", v, n, want)
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	run("a", true, 1)
	if got := db.c.wstmts.len(); got != before+2 {
		t.Fatalf("after the first transaction %d statements are prepared, want %d", got, before+2)
	}
	run("b", false, 2)
	run("c", true, 2)
	if got := db.c.wstmts.len(); got != before+2 {
		t.Fatalf("after three transactions %d statements are prepared, want %d", got, before+2)
	}
	var n int
	if err := db.c.read.QueryRowContext(ctx, cnt).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d rows (%v), want 2: a and c committed, b rolled back", n, err)
	}
	db.c.wstmts.close()
	txi, err := db.c.Begin(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	tx := txi
	if _, err := tx.Exec(ctx, ins, "d"); err != nil {
		t.Fatalf("after close statements run unprepared: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}
