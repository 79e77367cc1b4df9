package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/folio-server/folio/internal/store/migrate"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/storetest"
)

// Migration 0010 moves the reservation time that earlier versions kept as
// a negated Unix time in media_files.post_id into reserved_at.
func TestMigration0010MovesReservationTimes(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	ctx := context.Background()
	db, err := postgres.Open(ctx, url, postgres.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all, err := migrate.Load(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	var before []migrate.Migration
	for _, m := range all {
		if m.Version < 10 {
			before = append(before, m)
		}
	}
	sdb := stdlib.OpenDBFromPool(db.Pool())
	r := &migrate.Runner{Migrations: before, Placeholder: func(n int) string { return fmt.Sprintf("$%d", n) }}
	if _, err := r.Up(ctx, sdb); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	pool := db.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO posts (id, type, status, title) VALUES (7, 'attachment', 'inherit', 'a')`); err != nil {
		t.Fatal(err)
	}
	reserved := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if _, err := pool.Exec(ctx, `INSERT INTO media_files (path, post_id) VALUES
		('2024/05/attached.png', 7), ('2024/05/timed.png', $1), ('2024/05/old.png', 0)`, -reserved.Unix()); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"2024/05/attached.png": "7 0001-01-01 00:00:00",
		"2024/05/timed.png":    "0 2024-05-06 07:08:09",
		"2024/05/old.png":      "0 0001-01-01 00:00:00",
	}
	rows, err := pool.Query(ctx, `SELECT path, post_id, to_char(reserved_at, 'YYYY-MM-DD HH24:MI:SS') FROM media_files`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var path, at string
		var owner int64
		if err := rows.Scan(&path, &owner, &at); err != nil {
			t.Fatal(err)
		}
		n++
		if got := fmt.Sprintf("%d %s", owner, at); want[path] != got {
			t.Errorf("%s: %q, want %q", path, got, want[path])
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || n != len(want) {
		t.Fatalf("%d rows, %v", n, err)
	}
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
