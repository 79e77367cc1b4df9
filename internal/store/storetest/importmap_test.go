package storetest_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestImportMapRecordsPerSourceAndKind checks that entries are kept per
// source and kind, that recording an old id again replaces its entry, and
// that an entry written inside a transaction that fails is gone with the
// transaction (the import relies on it to resume).
func TestImportMapRecordsPerSourceAndKind(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	if err := db.RecordImported(ctx, "https://a.example", "post", "10", 1); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordImported(ctx, "https://a.example", "post", "11", 2); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordImported(ctx, "https://a.example", "comment", "10", 7); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordImported(ctx, "https://b.example", "post", "10", 3); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordImported(ctx, "https://a.example", "post", "11", 5); err != nil {
		t.Fatal(err)
	}
	got, err := db.ImportedIDs(ctx, "https://a.example", "post")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"10": 1, "11": 5}; !reflect.DeepEqual(got, want) {
		t.Fatalf("posts of a = %v, want %v", got, want)
	}
	if got, _ := db.ImportedIDs(ctx, "https://a.example", "comment"); !reflect.DeepEqual(got, map[string]int64{"10": 7}) {
		t.Fatalf("comments of a = %v", got)
	}
	if got, _ := db.ImportedIDs(ctx, "https://c.example", "post"); len(got) != 0 {
		t.Fatalf("unknown source = %v, want empty", got)
	}

	boom := errors.New("boom")
	err = db.Tx(ctx, func(tx store.Store) error {
		if err := tx.RecordImported(ctx, "https://a.example", "post", "12", 9); err != nil {
			return err
		}
		in, err := tx.ImportedIDs(ctx, "https://a.example", "post")
		if err != nil {
			return err
		}
		if in["12"] != 9 {
			t.Errorf("inside the transaction: %v, want 12 → 9", in)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("tx = %v", err)
	}
	if got, _ := db.ImportedIDs(ctx, "https://a.example", "post"); got["12"] != 0 {
		t.Fatalf("entry of a rolled back transaction survived: %v", got)
	}
}
