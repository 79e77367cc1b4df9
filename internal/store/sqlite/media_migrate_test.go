package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// Migration 0010 moves the reservation time that earlier versions kept as
// a negated Unix time in media_files.post_id into reserved_at.
func TestMigration0010MovesReservationTimes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := migratedBefore(t, 10)
	if _, err := db.c.write.ExecContext(ctx, `INSERT INTO posts (id, type, status, title) VALUES (7, 'attachment', 'inherit', 'a')`); err != nil {
		t.Fatal(err)
	}
	reserved := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if _, err := db.c.write.ExecContext(ctx, `INSERT INTO media_files (path, post_id) VALUES
		('2024/05/attached.png', 7), ('2024/05/timed.png', ?), ('2024/05/old.png', 0)`, -reserved.Unix()); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		owner int64
		at    string
	}{
		"2024/05/attached.png": {7, sqlstore.ZeroDate},
		"2024/05/timed.png":    {0, "2024-05-06 07:08:09"},
		"2024/05/old.png":      {0, sqlstore.ZeroDate},
	}
	rows, err := db.c.write.QueryContext(ctx, `SELECT path, post_id, reserved_at FROM media_files`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var path, at string
		var owner int64
		if err := rows.Scan(&path, &owner, &at); err != nil {
			t.Fatal(err)
		}
		n++
		if w, ok := want[path]; !ok || w.owner != owner || w.at != at {
			t.Errorf("%s: owner %d, reserved_at %q; want %+v", path, owner, at, w)
		}
	}
	if err := rows.Err(); err != nil || n != len(want) {
		t.Fatalf("%d rows, %v", n, err)
	}
	// The migrated rows behave as reservations: the timed one is stale
	// after its time and not before, the old one always, the attached one
	// never.
	got, err := db.StaleMediaReservations(ctx, reserved, 10)
	if err != nil || len(got) != 1 || got[0] != "2024/05/old.png" {
		t.Fatalf("stale before the reservation time = %v, %v", got, err)
	}
	got, err = db.StaleMediaReservations(ctx, reserved.Add(time.Second), 10)
	if err != nil || len(got) != 2 || got[0] != "2024/05/old.png" || got[1] != "2024/05/timed.png" {
		t.Fatalf("stale after the reservation time = %v, %v", got, err)
	}
	if id, err := db.MediaPathOwner(ctx, "2024/05/timed.png"); err != nil || id != 0 {
		t.Fatalf("owner of migrated reservation = %d, %v", id, err)
	}
}
