package storetest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestAfterCommitRunsOnlyAfterTheCommit checks store.AfterCommit: code
// registered in a transaction (also a nested one) runs once the commit is
// done and sees its writes, never on rollback; outside a transaction it
// runs at once.
func TestAfterCommitRunsOnlyAfterTheCommit(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()

	ran := 0
	store.AfterCommit(db, func() { ran++ })
	if ran != 1 {
		t.Fatalf("outside a transaction: ran %d times, want 1", ran)
	}

	ran = 0
	var seen string
	err := db.Tx(ctx, func(tx store.Store) error {
		if err := tx.SetOption(ctx, "after_commit", "yes"); err != nil {
			return err
		}
		store.AfterCommit(tx, func() {
			ran++
			// A reader outside the transaction sees its writes.
			seen, _ = db.GetOption(ctx, "after_commit")
		})
		return tx.Tx(ctx, func(inner store.Store) error {
			store.AfterCommit(inner, func() { ran++ })
			if ran != 0 {
				t.Error("AfterCommit ran before the commit")
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if ran != 2 || seen != "yes" {
		t.Fatalf("after commit: ran %d times (want 2), saw %q (want the committed write)", ran, seen)
	}

	ran = 0
	boom := errors.New("boom")
	err = db.Tx(ctx, func(tx store.Store) error {
		store.AfterCommit(tx, func() { ran++ })
		return boom
	})
	if !errors.Is(err, boom) || ran != 0 {
		t.Fatalf("rollback: err %v, ran %d times, want boom and 0", err, ran)
	}
}
