package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// TestNewPostTermsHeldUntilTheCommit: a new post's terms are linked by a
// statement held for the transaction's next one (LinkNewPostTerms), so
// that with nothing after it the link goes with the commit, its result
// known only then; a published post's links are counted once whether the
// statement went with the commit or with a statement before it, and what
// the transaction did to the post after linking counts as well.
func TestNewPostTermsHeldUntilTheCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := smallPools(t, 1, 1)[0]
	a := &store.Term{Taxonomy: "category", Name: "Held A", Slug: "held-a"}
	b := &store.Term{Taxonomy: "category", Name: "Held B", Slug: "held-b"}
	tag := &store.Term{Taxonomy: "post_tag", Name: "Held tag", Slug: "held-tag"}
	for _, tm := range []*store.Term{a, b, tag} {
		if err := db.InsertTerm(ctx, tm); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		status string
		// after runs in the transaction after the links; sentEarly says
		// it sends the held links before the commit.
		after     func(s store.Store, id int64) error
		sentEarly bool
		// what the post ends linked to, and the counts a, b, tag gain
		wantTerms []int64
		wantCount [3]int64
	}{
		{"nothing after", "publish", nil, false, []int64{a.ID, b.ID, tag.ID}, [3]int64{1, 1, 1}},
		{"a read after", "publish", func(s store.Store, id int64) error {
			_, err := s.GetPost(ctx, id)
			return err
		}, true, []int64{a.ID, b.ID, tag.ID}, [3]int64{1, 1, 1}},
		{"categories replaced after", "publish", func(s store.Store, id int64) error {
			return s.SetPostTerms(ctx, id, "category", []int64{b.ID})
		}, true, []int64{b.ID, tag.ID}, [3]int64{0, 1, 1}},
		{"unpublished after", "publish", func(s store.Store, id int64) error {
			p, err := s.GetPost(ctx, id)
			if err != nil {
				return err
			}
			p.Status = "draft"
			return s.UpdatePost(ctx, p)
		}, true, []int64{a.ID, b.ID, tag.ID}, [3]int64{0, 0, 0}},
		{"a draft", "draft", nil, false, []int64{a.ID, b.ID, tag.ID}, [3]int64{0, 0, 0}},
	}
	for _, tt := range tests {
		before := [3]int64{termCount(t, db, a.ID), termCount(t, db, b.ID), termCount(t, db, tag.ID)}
		var id int64
		var cats, tags []int64
		err := db.Tx(ctx, func(s store.Store) error {
			var err error
			if id, err = s.(store.PostIDReserver).ReservePostID(ctx); err != nil {
				return err
			}
			if err := s.InsertPost(ctx, &store.Post{ID: id, Type: "post", Status: tt.status, Title: tt.name}); err != nil {
				return err
			}
			linker := s.(store.NewPostTermsLinker)
			// b twice, and an id of the other taxonomy: linked once, not at all.
			if err := linker.LinkNewPostTerms(ctx, id, tt.status == "publish", "category", []int64{b.ID, a.ID, b.ID, tag.ID}, &cats); err != nil {
				return err
			}
			if err := linker.LinkNewPostTerms(ctx, id, tt.status == "publish", "post_tag", []int64{tag.ID}, &tags); err != nil {
				return err
			}
			if cats != nil || tags != nil {
				t.Errorf("%s: linked %v %v before anything was sent, want the links held", tt.name, cats, tags)
			}
			if tt.after == nil {
				return nil
			}
			if err := tt.after(s, id); err != nil {
				return err
			}
			if got := cats != nil && tags != nil; got != tt.sentEarly {
				t.Errorf("%s: links known before the commit: %v, want %v", tt.name, got, tt.sentEarly)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(cats, []int64{a.ID, b.ID}) || !slices.Equal(tags, []int64{tag.ID}) {
			t.Errorf("%s: linked categories %v, tags %v; want %v, %v", tt.name, cats, tags, []int64{a.ID, b.ID}, []int64{tag.ID})
		}
		terms, err := db.PostTerms(ctx, []int64{id}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, tm := range terms[id] {
			got = append(got, tm.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.wantTerms) {
			t.Errorf("%s: post linked to %v, want %v", tt.name, got, tt.wantTerms)
		}
		after := [3]int64{termCount(t, db, a.ID), termCount(t, db, b.ID), termCount(t, db, tag.ID)}
		for i := range after {
			if after[i]-before[i] != tt.wantCount[i] {
				t.Errorf("%s: counts moved by %d, %d, %d; want %v", tt.name, after[0]-before[0], after[1]-before[1], after[2]-before[2], tt.wantCount)
				break
			}
		}
	}
	// The counts kept agree with a recount from the links.
	want := [3]int64{termCount(t, db, a.ID), termCount(t, db, b.ID), termCount(t, db, tag.ID)}
	if err := db.RecountTerms(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := [3]int64{termCount(t, db, a.ID), termCount(t, db, b.ID), termCount(t, db, tag.ID)}; got != want {
		t.Fatalf("counts %v, recounted %v", want, got)
	}
}
