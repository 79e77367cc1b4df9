package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

func fixtureUsers() []*store.User {
	return []*store.User{
		{Login: "admin", Email: "admin@example.com", DisplayName: "Zed Admin", Nicename: "admin", URL: "https://admin.example", Registered: at(2020, 1, 1, 0), Roles: []string{"administrator"}},
		{Login: "ed", Email: "ed@example.org", DisplayName: "alice Editor", Nicename: "ed-nice", Registered: at(2021, 1, 1, 0), Roles: []string{"editor", "author"}},
		{Login: "42", Email: "num@example.net", DisplayName: "Bob", Nicename: "bob", Registered: at(2021, 1, 1, 0), Roles: []string{"subscriber"}},
		{Login: "jörg", Email: "", DisplayName: "Jörg Über", Nicename: "joerg", Registered: at(2019, 6, 1, 0)},
		{Login: "writer", Email: "w@example.com", DisplayName: "bob", Nicename: "writer", Registered: at(2022, 1, 1, 0), Roles: []string{"author"}, Caps: map[string]bool{"upload_files": false, "edit_pages": true}},
	}
}

func seedUsers(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	for i, u := range fixtureUsers() {
		if err := db.InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if u.ID != int64(i+1) {
			t.Fatalf("user %d got id %d", i+1, u.ID)
		}
	}
}

func TestDeleteUserCascades(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	seedUsers(t, db)
	ctx := context.Background()
	if err := db.InsertAppPassword(ctx, &store.AppPassword{UUID: "u1", UserID: 5, Name: "cli", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteUser(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteUser(ctx, 5); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	var n int
	if err := db.c.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM user_roles WHERE user_id = 5)
		+ (SELECT COUNT(*) FROM user_caps WHERE user_id = 5)
		+ (SELECT COUNT(*) FROM app_passwords WHERE user_id = 5)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d dependent rows survived the user", n)
	}
}
