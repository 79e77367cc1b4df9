package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestNewPostIDAskedAheadComesWithTheNextStatement: a new post's id asked
// for ahead (PrefetchPostID) is taken from the sequence with the write
// transaction's next statement (the slug's query), in its round trip, so
// an id another connection takes after that statement and before
// ReservePostID is the greater one; with no statement in between,
// ReservePostID sends it. The transaction never needs a second
// connection (a pool of one).
func TestNewPostIDAskedAheadComesWithTheNextStatement(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	storetest.OpenPostgres(t, url)
	db, err := postgres.Open(context.Background(), url, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := postgres.Open(context.Background(), url, postgres.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
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
