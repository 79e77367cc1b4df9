package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlstore"
)

// writeTx is a write transaction on one connection of the pool, held from
// Begin to the commit or rollback. It saves round trips where pgx's
// transactions would spend one each: BEGIN (and the shared write lock),
// and the key locks (LockKeys), go with the next statement, and the
// statements that end a transaction (the version bump, the term counts)
// go with COMMIT and the bump after it (CommitWith), each group sent as
// one pipeline (a pgx batch) and answered in one round trip. The server
// runs a pipeline's statements in order, so a lock sent with a read is
// held before the read runs. A query of one row asked ahead (Prefetch,
// a new post's id) goes with the next statement too.
type writeTx struct {
	conn *pgxpool.Conn
	// pending holds the statements whose results nobody reads (BEGIN,
	// the locks) and the queries asked ahead until they are sent, with
	// the next statement.
	pending []held
	// started is set once BEGIN has been sent.
	started bool
	// holds counts the statements ever held (lock, Defer, Prefetch).
	holds int
	// savepoints counts the savepoints taken, to name them (Guard).
	savepoints int
	// done is set once the transaction has committed or rolled back and
	// the connection has gone back to the pool.
	done bool
	// moved is set once a sign-in check (GuardSignIn) failed: the
	// transaction commits nothing after it.
	moved bool
}

var (
	_ sqlstore.Tx             = (*writeTx)(nil)
	_ sqlstore.BatchCommitter = (*writeTx)(nil)
	_ sqlstore.Deferrer       = (*writeTx)(nil)
	_ sqlstore.Prefetcher     = (*writeTx)(nil)
	_ sqlstore.RowCopier      = (*writeTx)(nil)
	_ sqlstore.SignInGuard    = (*writeTx)(nil)
)

// held is a statement waiting for the next one: its result is read and
// dropped, or, for a query asked ahead, its one row scanned into dest and
// out marked done; check, when set, then judges the row (GuardSignIn).
type held struct {
	sqlstore.Stmt
	dest  []any
	out   *sqlstore.Prefetched
	check func() error
}

var errTxDone = errors.New("postgres: transaction already ended")

// queue adds stmts to b.
func queue(b *pgx.Batch, stmts []sqlstore.Stmt) {
	for _, st := range stmts {
		b.Queue(st.Query, st.Args...)
	}
}

// execAll reads the results of n statements of br that return no rows the
// caller needs.
func execAll(br pgx.BatchResults, n int) error {
	for range n {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// readHeld reads the results of the held statements hs, queued first on
// br's batch: a query asked ahead has its row scanned, and judged when it
// is a sign-in check (a failed one marks t moved).
func (t *writeTx) readHeld(br pgx.BatchResults, hs []held) error {
	err := readHeld(br, hs)
	if errors.Is(err, store.ErrSignInMoved) {
		t.moved = true
	}
	return err
}

// readHeld reads the results of the held statements hs, queued first on
// br's batch: a query asked ahead has its row scanned.
func readHeld(br pgx.BatchResults, hs []held) error {
	for _, h := range hs {
		if h.out == nil {
			if _, err := br.Exec(); err != nil {
				if h.Wrap != nil {
					err = h.Wrap(err)
				}
				return err
			}
			continue
		}
		if err := br.QueryRow().Scan(h.dest...); err != nil {
			if h.Wrap != nil {
				err = h.Wrap(err)
			}
			return err
		}
		h.out.Done = true
		if h.check != nil {
			if err := h.check(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *writeTx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if t.done {
		return nil, errTxDone
	}
	if len(t.pending) == 0 {
		tag, err := t.conn.Exec(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		return result(tag.RowsAffected()), nil
	}
	b := &pgx.Batch{}
	hs := t.flush(b)
	b.Queue(query, args...)
	br := t.conn.SendBatch(ctx, b)
	err := t.readHeld(br, hs)
	var tag int64
	if err == nil {
		var ct interface{ RowsAffected() int64 }
		ct, err = br.Exec()
		if err == nil {
			tag = ct.RowsAffected()
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return result(tag), nil
}

func (t *writeTx) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	if t.done {
		return nil, errTxDone
	}
	if len(t.pending) == 0 {
		rs, err := t.conn.Query(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		return rows{rs}, nil
	}
	b := &pgx.Batch{}
	hs := t.flush(b)
	b.Queue(query, args...)
	br := t.conn.SendBatch(ctx, b)
	if err := t.readHeld(br, hs); err != nil {
		_ = br.Close()
		return nil, err
	}
	rs, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{rows: rows{rs}, br: br}, nil
}

// batchRows are the rows of the last statement of a batch: closing them
// closes the batch.
type batchRows struct {
	rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	if r.br == nil {
		return
	}
	r.rows.Close()
	r.err = r.br.Close()
	r.br = nil
}

func (r *batchRows) Err() error {
	if err := r.rows.Err(); err != nil {
		return err
	}
	return r.err
}

// flush queues the pending statements on b and forgets them, returning
// them.
func (t *writeTx) flush(b *pgx.Batch) []held {
	hs := t.pending
	for _, h := range hs {
		b.Queue(h.Query, h.Args...)
	}
	t.pending = nil
	t.started = true
	return hs
}

// lock queues a statement that takes a lock, to be sent with the next
// statement.
func (t *writeTx) lock(st sqlstore.Stmt) error {
	if t.done {
		return errTxDone
	}
	t.pending = append(t.pending, held{Stmt: st})
	t.holds++
	return nil
}

// Prefetch holds st, a query of one row, until the next statement, which
// it goes with; its row is scanned into dest and the result marked done
// when that statement's results come back (sqlstore.Prefetcher). A
// transaction that ends first never sends it.
func (t *writeTx) Prefetch(st sqlstore.Stmt, dest ...any) (*sqlstore.Prefetched, error) {
	if t.done {
		return nil, errTxDone
	}
	out := &sqlstore.Prefetched{}
	t.pending = append(t.pending, held{Stmt: st, dest: dest, out: out})
	t.holds++
	return out, nil
}

// GuardSignIn holds st, a read of the sign-in, with the transaction's next
// statement, scans its row into dest and calls check before that
// statement's result is taken (sqlstore.SignInGuard): an error from check
// (store.ErrSignInMoved) is that statement's, and the transaction
// commits nothing after it. A commit with the check still held sends it
// first, alone.
func (t *writeTx) GuardSignIn(st sqlstore.Stmt, dest []any, check func() error) error {
	if t.done {
		return errTxDone
	}
	t.pending = append(t.pending, held{Stmt: st, dest: dest, out: &sqlstore.Prefetched{}, check: check})
	return nil
}

// guarded reports whether a sign-in check is held.
func (t *writeTx) guarded() bool {
	for _, h := range t.pending {
		if h.check != nil {
			return true
		}
	}
	return false
}

// Defer holds st until the next statement, which it goes with
// (sqlstore.Deferrer).
func (t *writeTx) Defer(st sqlstore.Stmt) error { return t.lock(st) }

// Flush sends the held statements now (sqlstore.Prefetcher).
func (t *writeTx) Flush(ctx context.Context) error {
	_, err := t.ready(ctx)
	return err
}

// ready sends the pending statements (BEGIN, the locks), for work that
// needs the transaction itself (Importer's COPY).
func (t *writeTx) ready(ctx context.Context) (*pgx.Conn, error) {
	if t.done {
		return nil, errTxDone
	}
	if len(t.pending) > 0 {
		b := &pgx.Batch{}
		hs := t.flush(b)
		br := t.conn.SendBatch(ctx, b)
		err := t.readHeld(br, hs)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if errors.Is(err, store.ErrSignInMoved) {
			return nil, err
		}
		if err != nil {
			return nil, fail("begin", err)
		}
	}
	return t.conn.Conn(), nil
}

// Commit commits the transaction.
func (t *writeTx) Commit(ctx context.Context) error { return t.CommitWith(ctx, nil, nil) }

// CommitWith runs before, commits and runs after, in one round trip
// (sqlstore.BatchCommitter). A transaction that sent nothing yet commits
// without a round trip when before is empty.
func (t *writeTx) CommitWith(ctx context.Context, before, after []sqlstore.Stmt) error {
	if t.done {
		return errTxDone
	}
	if t.moved {
		return store.ErrSignInMoved
	}
	if !t.started && len(before) == 0 {
		// Nothing ran: there is nothing to commit (nor to lock), and a
		// sign-in check held is left to its request.
		t.pending = nil
		t.release()
		return nil
	}
	if t.guarded() {
		// The check goes before the commit, in a round trip of its
		// own: a COMMIT sent with it would not wait for its answer.
		if _, err := t.ready(ctx); err != nil {
			return err
		}
	}
	b := &pgx.Batch{}
	hs := t.flush(b)
	queue(b, before)
	b.Queue(`COMMIT`)
	queue(b, after)
	br := t.conn.SendBatch(ctx, b)
	err := t.readHeld(br, hs)
	if err == nil {
		err = execAll(br, len(before))
	}
	if err == nil {
		var tag interface{ String() string }
		tag, err = br.Exec()
		if err == nil && tag.String() == "ROLLBACK" {
			err = pgx.ErrTxCommitRollback
		}
	}
	if err == nil {
		for range after {
			_, _ = br.Exec() // as bumpAfter: the commit stands
		}
	}
	cerr := br.Close()
	if err != nil {
		return err
	}
	_ = cerr // the after statements' errors only
	t.release()
	return nil
}

// release gives the connection back to the pool (which closes it unless
// it is idle outside a transaction).
func (t *writeTx) release() {
	if !t.done {
		t.done = true
		t.conn.Release()
	}
}

// Rollback rolls the transaction back; after Commit it does nothing.
func (t *writeTx) Rollback(ctx context.Context) error {
	if t.done {
		return nil
	}
	defer t.release()
	if !t.started || t.conn.Conn().PgConn().TxStatus() == 'I' {
		return nil // never started, or already over
	}
	if _, err := t.conn.Exec(ctx, `ROLLBACK`); err != nil {
		// A connection in an unknown state must not serve again.
		_ = t.conn.Conn().Close(context.WithoutCancel(ctx))
		return err
	}
	return nil
}

// Guard runs fn under a savepoint: a failed statement aborts a PostgreSQL
// transaction, and rolling back to the savepoint makes it usable again.
// A statement fn held (Defer) goes with the RELEASE: when it fails, that
// is fn's failure, rolled back like the others.
func (t *writeTx) Guard(ctx context.Context, fn func(sqlstore.Conn) error) error {
	t.savepoints++
	sp := fmt.Sprintf("folio_sp_%d", t.savepoints)
	if _, err := t.Exec(ctx, `SAVEPOINT `+sp); err != nil {
		return fail("savepoint", err)
	}
	holds := t.holds
	err := fn(t)
	if err == nil {
		if _, err = t.Exec(ctx, `RELEASE SAVEPOINT `+sp); err == nil {
			return nil
		}
		if t.holds == holds {
			return fail("release savepoint", err)
		}
	}
	if _, rerr := t.Exec(ctx, `ROLLBACK TO SAVEPOINT `+sp); rerr != nil {
		return errors.Join(err, fail("rollback to savepoint", rerr))
	}
	return err
}

// CopyRows writes rows into table with COPY, in the transaction
// (sqlstore.RowCopier).
func (t *writeTx) CopyRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	conn, err := t.ready(ctx)
	if err != nil {
		return err
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	return err
}
