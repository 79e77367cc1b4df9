package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/sqlstore"
	"github.com/folio-server/folio/internal/store/storetest"
)

// smallPools opens a migrated schema for t and n stores on it, each with
// a pool of conns connections, closed when t ends.
func smallPools(t *testing.T, conns, n int) []*postgres.DB {
	t.Helper()
	url := storetest.PostgresURL(t)
	storetest.OpenPostgres(t, url)
	dbs := make([]*postgres.DB, n)
	for i := range dbs {
		db, err := postgres.Open(context.Background(), url, postgres.Options{MaxConns: conns})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		dbs[i] = db
	}
	return dbs
}

// TestNewPostIDAskedAheadComesWithTheNextStatement: a new post's id asked
// for ahead (PrefetchPostID) is taken from the sequence with the write
// transaction's next statement (the slug's query), in its round trip, so
// an id another connection takes after that statement and before
// ReservePostID is the greater one; with no statement in between,
// ReservePostID sends it. The transaction never needs a second
// connection (a pool of one).
func TestNewPostIDAskedAheadComesWithTheNextStatement(t *testing.T) {
	t.Parallel()
	dbs := smallPools(t, 1, 2)
	db, other := dbs[0], dbs[1]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	create := func(s store.Store, slugFirst bool) (int64, error) {
		if err := s.(store.PostIDPrefetcher).PrefetchPostID(ctx); err != nil {
			return 0, err
		}
		p := &store.Post{Type: "post", Status: "publish", Title: "Ahead", Slug: "ahead"}
		if slugFirst {
			slug, err := s.FreeSlug(ctx, "ahead", []string{"post"}, -1, 0, false)
			if err != nil {
				return 0, err
			}
			p.Slug = slug
		}
		var later int64
		if err := other.Pool().QueryRow(ctx, `SELECT nextval('posts_id_seq')`).Scan(&later); err != nil {
			return 0, err
		}
		id, err := s.(store.PostIDReserver).ReservePostID(ctx)
		if err != nil {
			return 0, err
		}
		if asked := id < later; asked != slugFirst {
			t.Errorf("id %d, and %d taken on another connection before ReservePostID (a statement between: %v)", id, later, slugFirst)
		}
		p.ID = id
		if err := s.InsertPost(ctx, p); err != nil {
			return 0, err
		}
		return p.ID, nil
	}
	var ids []int64
	for _, slugFirst := range []bool{true, false, true} {
		err := db.Tx(ctx, func(s store.Store) error {
			id, err := create(s, slugFirst)
			ids = append(ids, id)
			return err
		})
		if err != nil {
			t.Fatalf("create (a statement between: %v): %v", slugFirst, err)
		}
	}
	for i, id := range ids {
		if id <= 0 || (i > 0 && id <= ids[i-1]) {
			t.Fatalf("ids %v: want positive and ascending", ids)
		}
		p, err := db.GetPost(ctx, id)
		if err != nil || p.Title != "Ahead" {
			t.Fatalf("post %d: %+v, %v", id, p, err)
		}
	}
}

// TestHeldInsertFailsAsItsOwn: a post inserted with a reserved id is held
// and sent with the transaction's next statement or its commit; when the
// insert fails there (its id taken meanwhile by another connection), the
// transaction fails with the insert's own error, a conflict, and nothing
// of it stays.
func TestHeldInsertFailsAsItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := smallPools(t, 2, 1)[0]
	cat := &store.Term{Taxonomy: "category", Name: "Held", Slug: "held"}
	if err := db.InsertTerm(ctx, cat); err != nil {
		t.Fatal(err)
	}
	for _, next := range []string{"terms", "commit"} {
		var id int64
		err := db.Tx(ctx, func(s store.Store) error {
			var err error
			if id, err = s.(store.PostIDReserver).ReservePostID(ctx); err != nil {
				return err
			}
			// Another connection takes the id first.
			if _, err := db.Pool().Exec(ctx, `INSERT INTO posts (id, type, status, title) VALUES ($1, 'post', 'draft', 'first')`, id); err != nil {
				return err
			}
			if err := s.InsertPost(ctx, &store.Post{ID: id, Type: "post", Status: "publish", Title: "second"}); err != nil {
				return err // not held: the error comes at once
			}
			if next == "terms" {
				return s.SetPostTerms(ctx, id, "category", []int64{cat.ID})
			}
			return nil
		})
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("insert held until the %s: %v, want a conflict", next, err)
		}
		p, err := db.GetPost(ctx, id)
		if err != nil || p.Title != "first" {
			t.Fatalf("post %d after the failed transaction: %+v, %v; want the other connection's", id, p, err)
		}
		if terms, err := db.PostTerms(ctx, []int64{id}, []string{"category"}); err != nil || len(terms[id]) != 0 {
			t.Fatalf("terms of post %d: %v, %v", id, terms[id], err)
		}
	}
	if got := termCount(t, db, cat.ID); got != 0 {
		t.Fatalf("category count %d, want 0", got)
	}
}

// TestHeldStatementFailingUnderASavepointIsRolledBackToIt: a statement
// held inside a savepoint (Guard) goes with the RELEASE; when it fails
// there, the failure is the guarded work's, as its own error, and the
// savepoint undoes it: the transaction goes on and commits what came
// before and after.
func TestHeldStatementFailingUnderASavepointIsRolledBackToIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := smallPools(t, 1, 1)[0]
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `INSERT INTO options (name, value) VALUES ('held_before', '1')`); err != nil {
		t.Fatal(err)
	}
	errHeld := errors.New("the held statement failed")
	err = tx.Guard(ctx, func(c sqlstore.Conn) error {
		return c.(sqlstore.Deferrer).Defer(sqlstore.Stmt{
			Query: `INSERT INTO options (name, value) VALUES ('held_inside', (1 / 0)::text)`,
			Wrap:  func(err error) error { return fmt.Errorf("%w: %w", errHeld, err) },
		})
	})
	if !errors.Is(err, errHeld) {
		t.Fatalf("Guard: %v, want the held statement's own error", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO options (name, value) VALUES ('held_after', '1')`); err != nil {
		t.Fatalf("the transaction after the savepoint's rollback: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"held_before": true, "held_inside": false, "held_after": true} {
		_, err := db.GetOption(ctx, name)
		if got := err == nil; got != want {
			t.Errorf("option %s stored: %v (%v), want %v", name, got, err, want)
		}
	}
}
