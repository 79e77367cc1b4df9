package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// InsertAppPassword stores p and sets p.ID; store.ErrConflict when its
// UUID is taken.
func (o ops) InsertAppPassword(ctx context.Context, p *store.AppPassword) error {
	if p.ID != 0 {
		return o.db.errorf("insert application password: id is %d, want 0", p.ID)
	}
	return o.writeTx(ctx, true, func(q querier) (bool, error) {
		id, err := q.insert(ctx, "app_passwords", `uuid, user_id, name, hash, created, last_used, last_ip`,
			p.UUID, p.UserID, p.Name, p.Hash, o.db.d.Time(p.Created), o.db.d.Time(p.LastUsed), p.LastIP)
		if err != nil {
			return false, o.db.conflict(err, "insert application password")
		}
		p.ID = id
		return true, nil
	})
}

func scanAppPassword(s scanner) (*store.AppPassword, error) {
	var p store.AppPassword
	if err := s.Scan(&p.ID, &p.UUID, &p.UserID, &p.Name, &p.Hash, at(&p.Created), at(&p.LastUsed), &p.LastIP); err != nil {
		return nil, err
	}
	return &p, nil
}

// ListAppPasswords returns a user's application passwords, oldest first.
func (o ops) ListAppPasswords(ctx context.Context, userID int64) ([]*store.AppPassword, error) {
	out := []*store.AppPassword{}
	if err := collect(ctx, o.reader(), &out, scanAppPassword, `SELECT id, uuid, user_id, name, hash, created,
		last_used, last_ip FROM app_passwords WHERE user_id = $1 ORDER BY id`, userID); err != nil {
		return nil, o.db.fail("list application passwords", err)
	}
	return out, nil
}

// GetUserAppPasswords loads the user whose login is login, ASCII
// case-insensitively, that user's application passwords, oldest first,
// the login counter of counterKey and the authentication generation, in
// one query (store.UserAppPasswordsStore); store.ErrNotFound when there
// is no such user. The user's row, with its roles and capabilities, is
// made once, not once for each password.
func (o ops) GetUserAppPasswords(ctx context.Context, login, counterKey string) (store.UserAppPasswords, error) {
	out := store.UserAppPasswords{Apps: []*store.AppPassword{}, Counter: store.LoginCounter{Key: counterKey}}
	err := o.reader().query(ctx, func(rows Rows) error {
		var p store.AppPassword
		var id, failures sql.NullInt64
		var uuid, name, hash, ip sql.NullString
		var last, next time.Time
		var gen, site int64
		row, err := scanUser(withExtra{rows, []any{&id, &uuid, &name, &hash, at(&p.Created), at(&p.LastUsed), &ip,
			&failures, at(&last), at(&next), &gen, &site}})
		if err != nil {
			return err
		}
		if out.User == nil {
			out.User, out.Generation, out.Site = row, gen, site
			if failures.Valid {
				out.Counter.Failures, out.Counter.Last, out.Counter.Next = failures.Int64, last, next
			}
		}
		if id.Valid {
			p.ID, p.UUID, p.UserID, p.Name, p.Hash, p.LastIP = id.Int64, uuid.String, out.User.ID, name.String, hash.String, ip.String
			out.Apps = append(out.Apps, &p)
		}
		return nil
	}, `SELECT u.*, a.id, a.uuid, a.name, a.hash, a.created, a.last_used, a.last_ip, c.failures, c.last, c.next, `+generations+`
		FROM (`+o.db.userColumns()+` FROM users u WHERE `+o.db.d.Fold("u.login")+` = $1 ORDER BY u.id LIMIT 1) AS u
			LEFT JOIN app_passwords a ON a.user_id = u.id
			LEFT JOIN login_counters c ON c.key = $2
		ORDER BY a.id`, foldASCII(login), counterKey)
	if err != nil {
		return store.UserAppPasswords{}, o.db.fail("get user "+strconv.Quote(login)+" and application passwords", err)
	}
	if out.User == nil {
		return store.UserAppPasswords{}, o.db.notFound("user " + strconv.Quote(login))
	}
	return out, nil
}

// generations are the columns of the authentication and the site
// generations (store.Generations), each its table's one row. As scalar
// subqueries, not joins: PostgreSQL guesses thousands of rows for a table
// of one it has not analysed, and a join of two such guessed millions,
// which made it compile the query to machine code (JIT) every time, 200
// ms of CPU for a read of a few rows.
const generations = `(SELECT n FROM auth_generation), (SELECT n FROM site_generation)`

// AuthGeneration returns the authentication generation (the one row of
// auth_generation, moved on by triggers on what GetUserAppPasswords
// reads), the site generation (site_generation's, moved on by triggers on
// options and webhooks) and the login counter of counterKey, in one query
// (store.UserAppPasswordsStore).
//
// Every request signed in with a kept sign-in reads them. Where the
// Conns tell a ChangeMark (SQLite), the read of a key is kept with the
// mark taken before it, and a request that finds the same mark (nothing
// committed since, in any process) takes it instead of reading: what it
// returns is what a read would, as the version's is (DB.Version).
func (o ops) AuthGeneration(ctx context.Context, counterKey string) (store.Generations, store.LoginCounter, error) {
	cm, marked := o.db.c.(ChangeMarker)
	var mark ChangeMark
	if marked && o.tx == nil {
		mark, marked = cm.ChangeMark()
	} else {
		marked = false
	}
	if marked {
		if r, ok := o.db.signIns.get(counterKey, mark); ok {
			return r.gen, r.counter, nil
		}
	}
	gen, counter, err := o.readAuthGeneration(ctx, counterKey)
	if err == nil && marked {
		o.db.signIns.put(counterKey, signInRead{mark: mark, gen: gen, counter: counter})
	}
	return gen, counter, err
}

// signInReads keeps AuthGeneration's reads of one ChangeMark by counter
// key, at most maxSignInReads of them.
type signInReads struct {
	mu sync.Mutex
	m  map[string]signInRead
}

type signInRead struct {
	mark    ChangeMark
	gen     store.Generations
	counter store.LoginCounter
}

// maxSignInReads bounds the keys kept: past it, the older mark's are
// dropped, or all of them.
const maxSignInReads = 4096

func (r *signInReads) get(key string, mark ChangeMark) (signInRead, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[key]
	return v, ok && v.mark == mark
}

func (r *signInReads) put(key string, v signInRead) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]signInRead{}
	}
	if _, had := r.m[key]; !had && len(r.m) >= maxSignInReads {
		maps.DeleteFunc(r.m, func(_ string, old signInRead) bool { return old.mark != v.mark })
		if len(r.m) >= maxSignInReads {
			clear(r.m)
		}
	}
	r.m[key] = v
}

// readAuthGeneration is AuthGeneration's query.
func (o ops) readAuthGeneration(ctx context.Context, counterKey string) (store.Generations, store.LoginCounter, error) {
	st, dest, read := o.db.signInRead(counterKey)
	if err := o.reader().queryRow(ctx, st.Query, st.Args...).Scan(dest...); err != nil {
		return store.Generations{}, store.LoginCounter{}, o.db.fail("authentication generation", err)
	}
	gen, counter := read()
	return gen, counter, nil
}

// signInRead returns AuthGeneration's query of counterKey, the
// destinations its one row is scanned into, and what returns the row's
// generations and counter once it has been.
func (db *DB) signInRead(counterKey string) (Stmt, []any, func() (store.Generations, store.LoginCounter)) {
	var gen store.Generations
	var failures sql.NullInt64
	var last, next time.Time
	st := Stmt{Query: `SELECT ` + generations + `, c.failures, c.last, c.next
		FROM (SELECT 1) AS one LEFT JOIN login_counters c ON c.key = $1`, Args: []any{counterKey}}
	return st, []any{&gen.Auth, &gen.Site, &failures, at(&last), at(&next)}, func() (store.Generations, store.LoginCounter) {
		counter := store.LoginCounter{Key: counterKey}
		if failures.Valid {
			counter.Failures, counter.Last, counter.Next = failures.Int64, last, next
		}
		return gen, counter
	}
}

// SignInGuard is a Tx that can send a query with its first statement and
// check its row before anything the transaction does counts: GuardSignIn
// holds st for the next statement's round trip, scans its row into dest
// and calls check before that statement's result is taken. An error from
// check fails that statement, and the transaction commits nothing.
type SignInGuard interface {
	GuardSignIn(st Stmt, dest []any, check func() error) error
}

// SignInGuards is Conns whose write transactions are SignInGuards.
type SignInGuards interface {
	GuardsSignIn() bool
}

// DefersSignIn reports whether db's write transactions check a request's
// store.SignInCheck with their first statement (store.SignInDeferrer).
func (db *DB) DefersSignIn() bool {
	g, ok := db.c.(SignInGuards)
	return ok && g.GuardsSignIn()
}

// begin begins a write transaction (Conns.Begin). When ctx carries a
// store.SignInCheck nothing has read yet and the transaction is a
// SignInGuard, the transaction reads the sign-in with its first statement
// and fails with store.ErrSignInMoved when it moved on; a check found
// moved before fails the begin.
func (db *DB) begin(ctx context.Context, serial bool) (Tx, error) {
	c := store.ContextSignInCheck(ctx)
	if c != nil && c.Moved() {
		return nil, store.ErrSignInMoved
	}
	tx, err := db.c.Begin(ctx, serial)
	if err != nil || c == nil || !c.Unchecked() {
		return tx, err
	}
	g, ok := tx.(SignInGuard)
	if !ok {
		return tx, nil
	}
	st, dest, read := db.signInRead(c.Key)
	err = g.GuardSignIn(st, dest, func() error {
		if !c.Observe(read()) {
			return store.ErrSignInMoved
		}
		return nil
	})
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return tx, nil
}

// DeleteAppPassword removes one application password of a user;
// store.ErrNotFound when the user has none with that UUID.
func (o ops) DeleteAppPassword(ctx context.Context, userID int64, uuid string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `DELETE FROM app_passwords WHERE user_id = $1 AND uuid = $2`, userID, uuid)
		if err != nil {
			return false, o.db.fail("delete application password", err)
		}
		return o.db.affected(res, "application password "+uuid)
	})
}

// TouchAppPassword records a use at at from ip; store.ErrNotFound when the
// password does not exist.
func (o ops) TouchAppPassword(ctx context.Context, id int64, at time.Time, ip string) error {
	return o.writeTx(ctx, false, func(q querier) (bool, error) {
		res, err := q.exec(ctx, `UPDATE app_passwords SET last_used = $1, last_ip = $2 WHERE id = $3`,
			o.db.d.Time(at), ip, id)
		if err != nil {
			return false, o.db.fail("touch application password", err)
		}
		return o.db.affected(res, fmt.Sprintf("application password %d", id))
	})
}
