package storetest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestWritesJoinTheTransactionInTheContext checks store.WithTx: with the
// context a transaction put there, a Tx and a write made outside any
// transaction run inside it (on SQLite they would otherwise wait for the
// single writer the transaction holds), so they roll back with it; once it
// has ended, the context's writes go their own way again.
func TestWritesJoinTheTransactionInTheContext(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	boom := errors.New("boom")

	var inTx context.Context
	err := db.Tx(ctx, func(tx store.Store) error {
		inTx = store.WithTx(ctx, tx)
		if err := db.SetOption(inTx, "joined_write", "yes"); err != nil {
			return err
		}
		if err := db.Tx(inTx, func(inner store.Store) error {
			return inner.SetOption(ctx, "joined_tx", "yes")
		}); err != nil {
			return err
		}
		if v, err := tx.GetOption(ctx, "joined_write"); err != nil || v != "yes" {
			t.Errorf("the transaction does not see the joined write: %q, %v", v, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	for _, name := range []string{"joined_write", "joined_tx"} {
		if _, err := db.GetOption(ctx, name); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s survived the rollback: %v", name, err)
		}
	}

	// The transaction is over: the context's writes commit on their own.
	if err := db.SetOption(inTx, "after_end", "yes"); err != nil {
		t.Fatal(err)
	}
	if err := db.Tx(inTx, func(tx store.Store) error { return tx.SetOption(ctx, "after_end_tx", "yes") }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"after_end", "after_end_tx"} {
		if v, err := db.GetOption(ctx, name); err != nil || v != "yes" {
			t.Fatalf("%s = %q, %v after the transaction ended", name, v, err)
		}
	}
}
