package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// TestSignInCheckGoesBeforeTheCommit: a write transaction checks a
// request's kept sign-in (store.SignInCheck) with its first statement;
// one whose first statement is its COMMIT (an insert held for it) sends
// the check alone before it, so that a sign-in that moved on commits
// nothing: the held insert is rolled back with the transaction.
func TestSignInCheckGoesBeforeTheCommit(t *testing.T) {
	t.Parallel()
	db := smallPools(t, 2, 1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !db.DefersSignIn() {
		t.Fatal("PostgreSQL does not check sign-ins with a write's first statement")
	}
	check := func() *store.SignInCheck {
		gen, counter, err := db.AuthGeneration(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		return &store.SignInCheck{Key: "k", Gen: gen, Counter: counter}
	}
	// An insert of a reserved id is held for the transaction's next
	// statement: here its commit.
	insert := func(c *store.SignInCheck) (int64, error) {
		id, err := db.ReservePostID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return id, db.Tx(store.WithSignInCheck(ctx, c), func(tx store.Store) error {
			return tx.InsertPost(ctx, &store.Post{ID: id, Type: "post", Status: "draft", Title: "Held", Slug: "held"})
		})
	}

	held := check()
	id, err := insert(held)
	if err != nil || held.Unchecked() || held.Moved() {
		t.Fatalf("a held sign-in: %v (unchecked %v, moved %v)", err, held.Unchecked(), held.Moved())
	}
	if _, err := db.GetPost(ctx, id); err != nil {
		t.Fatalf("the insert of a held sign-in: %v", err)
	}

	moved := check()
	if err := db.SetOption(ctx, "blogname", "Moved on"); err != nil { // the site generation
		t.Fatal(err)
	}
	id, err = insert(moved)
	if !errors.Is(err, store.ErrSignInMoved) || !moved.Moved() {
		t.Fatalf("a moved sign-in: %v (moved %v), want store.ErrSignInMoved", err, moved.Moved())
	}
	if _, err := db.GetPost(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the insert of a moved sign-in: %v, want store.ErrNotFound", err)
	}
}
