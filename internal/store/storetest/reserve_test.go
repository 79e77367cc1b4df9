package storetest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestReservePostID: a store that hands out a post's id before its insert
// (PostgreSQL from its sequence, SQLite from its counter inside the write
// transaction) gives ids no post has; the insert takes the id; posts
// inserted without one come after it; an id never handed out is refused.
func TestReservePostID(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	if _, ok := db.(store.PostIDReserver); !ok {
		t.Skip("the store hands out ids at insert only")
	}
	newPost := func(slug string) *store.Post {
		return &store.Post{Type: "post", Status: "publish", Title: slug, Slug: slug}
	}

	// The first post of a new site: no counter yet.
	var first int64
	err := db.Tx(ctx, func(tx store.Store) error {
		id, err := tx.(store.PostIDReserver).ReservePostID(ctx)
		if err != nil || id == 0 {
			return errors.Join(err, errors.New("no id reserved"))
		}
		p := newPost("first")
		p.ID = id
		if err := tx.InsertPost(ctx, p); err != nil {
			return err
		}
		first = id
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.GetPost(ctx, first)
	if err != nil || got.Slug != "first" {
		t.Fatalf("post %d = %+v (%v)", first, got, err)
	}

	// An insert without an id comes after the reserved one; the next
	// reservation after both.
	plain := newPost("plain")
	if err := db.InsertPost(ctx, plain); err != nil {
		t.Fatal(err)
	}
	if plain.ID <= first {
		t.Fatalf("post inserted without an id got %d, not after %d", plain.ID, first)
	}
	var second int64
	err = db.Tx(ctx, func(tx store.Store) error {
		a, err := tx.(store.PostIDReserver).ReservePostID(ctx)
		if err != nil {
			return err
		}
		b, err := tx.(store.PostIDReserver).ReservePostID(ctx)
		if err != nil {
			return err
		}
		if a <= plain.ID || b <= a {
			t.Errorf("reserved %d then %d after post %d", a, b, plain.ID)
		}
		p := newPost("second")
		p.ID = b
		second = b
		return tx.InsertPost(ctx, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetPost(ctx, second); err != nil || got.Slug != "second" {
		t.Fatalf("post %d = %+v (%v)", second, got, err)
	}

	// An id that was not handed out is refused; so is one handed out
	// once it was used.
	err = db.Tx(ctx, func(tx store.Store) error {
		p := newPost("forged")
		p.ID = second + 100
		return tx.InsertPost(ctx, p)
	})
	if err == nil {
		t.Fatal("insert with an id never reserved succeeded")
	}

	// A transaction that rolls back with a reserved id leaves no post;
	// later posts still get new ids.
	boom := errors.New("boom")
	var dropped int64
	err = db.Tx(ctx, func(tx store.Store) error {
		id, err := tx.(store.PostIDReserver).ReservePostID(ctx)
		if err != nil {
			return err
		}
		p := newPost("dropped")
		p.ID = id
		dropped = id
		if err := tx.InsertPost(ctx, p); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("tx = %v, want boom", err)
	}
	if _, err := db.GetPost(ctx, dropped); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("post of a rolled-back transaction: %v, want not found", err)
	}
	last := newPost("last")
	if err := db.InsertPost(ctx, last); err != nil {
		t.Fatal(err)
	}
	if last.ID <= second {
		t.Fatalf("post inserted after the rollback got %d, not after %d", last.ID, second)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}}); err != nil || n != 4 {
		t.Fatalf("%d posts (%v), want 4", n, err)
	}
}
