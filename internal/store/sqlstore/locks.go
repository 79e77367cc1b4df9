package sqlstore

import (
	"context"
	"slices"
	"strconv"
)

// KeyLocker is implemented by Conns whose write transactions run side by
// side: it locks named keys until a transaction ends (store.Locker). Conns
// whose writers already run one at a time (SQLite's single writer) leave
// it out, and locking a key costs them nothing.
type KeyLocker interface {
	// LockKeys locks keys, sorted and without duplicates, until tx ends.
	LockKeys(ctx context.Context, tx Tx, keys []string) error
	// ShareKeys locks keys as LockKeys does, in shared mode: transactions
	// that share a key run side by side, one that locks it waits for
	// them all and they for it.
	ShareKeys(ctx context.Context, tx Tx, keys []string) error
}

// LockKeys locks keys until the write transaction o is bound to (or that
// ctx carries, store.WithTx) ends, where the Conns can (KeyLocker). Like
// BEGIN and COMMIT, a lock is not counted as a statement.
func (o ops) LockKeys(ctx context.Context, keys ...string) error {
	return o.lockKeys(ctx, false, keys)
}

// termKeys returns the keys of the terms of ids. Where term counts are
// slotted nothing locks a term's row while posts are linked to it (no
// foreign key: TermCountSlotter), so a write that links posts to terms
// shares their keys and the one that deletes a term locks its key: no
// post is linked to a term as it is deleted.
func termKeys(ids []int64) []string {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = "term:" + strconv.FormatInt(id, 10)
	}
	return keys
}

// lockKeys locks keys, in shared mode when shared is set (LockKeys).
func (o ops) lockKeys(ctx context.Context, shared bool, keys []string) error {
	if o.tx == nil {
		t := o.db.joined(ctx)
		if t == nil {
			return nil // no transaction to hold the locks
		}
		o = t.ops
	}
	if !o.tx.write {
		return nil
	}
	return o.db.keysIn(ctx, o.tx.tx, shared, keys)
}

// keysIn locks keys until the write transaction tx ends, in shared mode
// when shared is set, where the Conns can (KeyLocker); q.c of a write is
// such a transaction.
func (db *DB) keysIn(ctx context.Context, c Conn, shared bool, keys []string) error {
	kl, ok := db.c.(KeyLocker)
	tx, isTx := c.(Tx)
	if !ok || !isTx || len(keys) == 0 {
		return nil
	}
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	lock := kl.LockKeys
	if shared {
		lock = kl.ShareKeys
	}
	if err := lock(ctx, tx, keys); err != nil {
		return db.fail("lock", err)
	}
	return nil
}

// rowLock returns the clause that locks the rows a SELECT reads against
// other writers of them (FOR NO KEY UPDATE: the lock an UPDATE that
// changes no key takes), or "" where the write transaction holds the
// whole database. Unlike FOR UPDATE it does not wait for, nor make wait,
// the KEY SHARE locks foreign key checks take on the rows a new row
// refers to: a term row locked FOR UPDATE to change its count deadlocked
// against another create holding KEY SHARE on it from inserting its
// term relationships. Dialects that lock rows speak PostgreSQL's syntax.
func (db *DB) rowLock() string {
	if db.d.Lock(false) == "" {
		return ""
	}
	return ` FOR NO KEY UPDATE`
}

// lockRows locks the rows of table whose ids are ids (in id order, so
// that two transactions never wait for each other in a cycle) until the
// transaction q runs in ends, where the dialect locks rows (Lock); it
// returns how many it found. Where the write transaction holds the whole
// database it does nothing and reports every id found. A recount runs
// after it, so that its reads (a new statement, with a new snapshot in
// READ COMMITTED) see what every writer that held the rows before it
// committed; in one statement, an UPDATE that waited for a row recounts
// from the snapshot it started with and loses the other writer's change.
// Like a lock, it is not counted as a statement.
func (db *DB) lockRows(ctx context.Context, q querier, table string, ids []int64, share bool) (int, error) {
	lock := db.rowLock()
	if lock == "" || len(ids) == 0 {
		return len(ids), nil
	}
	if share {
		lock = ` FOR KEY SHARE`
	}
	a := &Args{}
	rows, err := q.c.Query(ctx, `SELECT id FROM `+table+` WHERE `+db.d.In(a, "id", ids, false)+` ORDER BY id`+lock, a.vals...)
	if err != nil {
		return 0, db.fail("lock "+table, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, db.fail("lock "+table, err)
	}
	return n, nil
}
