package sqlite

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

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

func userIDs(us []*store.User) []int64 {
	out := []int64{}
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}

func TestListUsersFiltersAndOrders(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	seedUsers(t, db)
	ctx := context.Background()
	// User 2 and 5 published posts, user 1 only a draft, user 3 a page.
	for _, p := range []*store.Post{
		{Type: "post", Status: "publish", Author: 2},
		{Type: "post", Status: "publish", Author: 5},
		{Type: "post", Status: "draft", Author: 1},
		{Type: "page", Status: "publish", Author: 3},
	} {
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    store.UserQuery
		want []int64
	}{
		{"default: name asc, case-insensitive, ties on id", store.UserQuery{}, []int64{2, 3, 5, 4, 1}},
		{"name desc", store.UserQuery{OrderBy: "name", Order: "desc"}, []int64{1, 4, 5, 3, 2}},
		{"id", store.UserQuery{OrderBy: "id"}, []int64{1, 2, 3, 4, 5}},
		{"id desc", store.UserQuery{OrderBy: "id", Order: "desc"}, []int64{5, 4, 3, 2, 1}},
		{"registered_date, ties on id", store.UserQuery{OrderBy: "registered_date"}, []int64{4, 1, 2, 3, 5}},
		{"registered_date desc", store.UserQuery{OrderBy: "registered_date", Order: "desc"}, []int64{5, 3, 2, 1, 4}},
		{"slug", store.UserQuery{OrderBy: "slug"}, []int64{1, 3, 2, 4, 5}},
		{"email", store.UserQuery{OrderBy: "email"}, []int64{4, 1, 2, 3, 5}},
		{"include order", store.UserQuery{Include: []int64{3, 1, 9}, OrderBy: "include"}, []int64{3, 1}},
		{"include", store.UserQuery{Include: []int64{3, 1}}, []int64{3, 1}},
		{"exclude", store.UserQuery{Exclude: []int64{1, 2}, OrderBy: "id"}, []int64{3, 4, 5}},
		{"slugs", store.UserQuery{Slugs: []string{"bob", "writer", "none"}, OrderBy: "id"}, []int64{3, 5}},
		{"roles: any of", store.UserQuery{Roles: []string{"author", "administrator"}, OrderBy: "id"}, []int64{1, 2, 5}},
		{"unknown role", store.UserQuery{Roles: []string{"ghost"}}, []int64{}},
		{"has published posts", store.UserQuery{HasPublishedOfTypes: []string{"post"}, OrderBy: "id"}, []int64{2, 5}},
		{"has published posts or pages", store.UserQuery{HasPublishedOfTypes: []string{"post", "page"}, OrderBy: "id"}, []int64{2, 3, 5}},
		{"search login", store.UserQuery{Search: "WRIT", OrderBy: "id"}, []int64{5}},
		{"search email", store.UserQuery{Search: "example.org"}, []int64{2}},
		{"search url", store.UserQuery{Search: "admin.example"}, []int64{1}},
		{"search nicename", store.UserQuery{Search: "ed-ni"}, []int64{2}},
		{"search display name", store.UserQuery{Search: "editor"}, []int64{2}},
		{"search non-ASCII folds case", store.UserQuery{Search: "ÜBER"}, []int64{4}},
		{"search numeric also matches id", store.UserQuery{Search: "4", OrderBy: "id"}, []int64{3, 4}},
		{"search substring spans words", store.UserQuery{Search: "ice Ed"}, []int64{2}},
		{"search percent literal", store.UserQuery{Search: "%"}, []int64{}},
		{"limit offset", store.UserQuery{OrderBy: "id", Limit: 2, Offset: 1}, []int64{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListUsers(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(userIDs(got), tt.want) {
				t.Errorf("ListUsers = %v, want %v", userIDs(got), tt.want)
			}
			all := tt.q
			all.Limit, all.Offset = 0, 0
			full, err := db.ListUsers(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			n, err := db.CountUsers(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(full)) {
				t.Errorf("CountUsers = %d, want %d", n, len(full))
			}
		})
	}
}

func TestUserRoundTripAndLookups(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	seedUsers(t, db)
	ctx := context.Background()
	want := fixtureUsers()[4]
	want.ID = 5
	lookups := []struct {
		name string
		get  func() (*store.User, error)
	}{
		{"id", func() (*store.User, error) { return db.GetUser(ctx, 5) }},
		{"login, any case", func() (*store.User, error) { return db.GetUserByLogin(ctx, "WRITER") }},
		{"email, any case", func() (*store.User, error) { return db.GetUserByEmail(ctx, "W@Example.com") }},
		{"slug", func() (*store.User, error) { return db.GetUserBySlug(ctx, "writer") }},
		{"batch", func() (*store.User, error) {
			m, err := db.GetUsers(ctx, []int64{5, 77})
			if len(m) != 1 {
				return nil, errors.New("GetUsers returned a missing id")
			}
			return m[5], err
		}},
	}
	for _, l := range lookups {
		got, err := l.get()
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", l.name, got, want)
		}
	}
	// Role order is kept; no roles and no caps read back as empty.
	ed, err := db.GetUser(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ed.Roles, []string{"editor", "author"}) || len(ed.Caps) != 0 || ed.Caps == nil {
		t.Errorf("user 2 roles %v caps %v", ed.Roles, ed.Caps)
	}
	jorg, err := db.GetUser(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	if jorg.Roles == nil || len(jorg.Roles) != 0 {
		t.Errorf("user 4 roles = %#v, want empty", jorg.Roles)
	}

	missing := []struct {
		name string
		get  func() (*store.User, error)
	}{
		{"id", func() (*store.User, error) { return db.GetUser(ctx, 99) }},
		{"login", func() (*store.User, error) { return db.GetUserByLogin(ctx, "nobody") }},
		{"email", func() (*store.User, error) { return db.GetUserByEmail(ctx, "no@x") }},
		{"empty email", func() (*store.User, error) { return db.GetUserByEmail(ctx, "") }},
		{"slug", func() (*store.User, error) { return db.GetUserBySlug(ctx, "nobody") }},
	}
	for _, l := range missing {
		if _, err := l.get(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing %s: %v, want ErrNotFound", l.name, err)
		}
	}
}

func TestUserConflicts(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	seedUsers(t, db)
	ctx := context.Background()
	tests := []struct {
		name string
		u    store.User
		want error
	}{
		{"login taken, other case", store.User{Login: "ADMIN", Email: "x1@x", Nicename: "x1"}, store.ErrConflict},
		{"email taken, other case", store.User{Login: "x2", Email: "Admin@Example.com", Nicename: "x2"}, store.ErrConflict},
		{"nicename taken", store.User{Login: "x3", Email: "x3@x", Nicename: "bob"}, store.ErrConflict},
		{"empty email may repeat", store.User{Login: "x4", Nicename: "x4"}, nil},
	}
	for _, tt := range tests {
		u := tt.u
		err := db.InsertUser(ctx, &u)
		if !errors.Is(err, tt.want) {
			t.Errorf("insert %s: %v, want %v", tt.name, err, tt.want)
		}
		if tt.want != nil && u.ID != 0 {
			t.Errorf("insert %s: failed insert set id %d", tt.name, u.ID)
		}
	}
	// Update conflicts too, and leaves the row as it was.
	bob, err := db.GetUser(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	bob.Email = "ED@example.org"
	if err := db.UpdateUser(ctx, bob); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("update to a taken email: %v", err)
	}
	again, err := db.GetUser(ctx, 3)
	if err != nil || again.Email != "num@example.net" {
		t.Fatalf("after failed update: %+v, %v", again, err)
	}
	if err := db.UpdateUser(ctx, &store.User{ID: 99, Login: "q", Nicename: "q"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
}

func TestUpdateUserReplacesGrants(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	seedUsers(t, db)
	ctx := context.Background()
	u, err := db.GetUser(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	u.Roles = []string{"subscriber", "contributor"}
	u.Caps = map[string]bool{"moderate_comments": true}
	u.DisplayName = "New"
	u.Registered = time.Time{}
	if err := db.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetUser(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, u) {
		t.Fatalf("got %+v\nwant %+v", got, u)
	}
	tests := []struct {
		role string
		want int64
	}{{"author", 1}, {"subscriber", 2}, {"contributor", 1}, {"administrator", 1}, {"ghost", 0}}
	for _, tt := range tests {
		n, err := db.CountUsersWithRole(ctx, tt.role)
		if err != nil || n != tt.want {
			t.Errorf("CountUsersWithRole(%s) = %d, %v; want %d", tt.role, n, err, tt.want)
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
	if err := db.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM user_roles WHERE user_id = 5)
		+ (SELECT COUNT(*) FROM user_caps WHERE user_id = 5)
		+ (SELECT COUNT(*) FROM app_passwords WHERE user_id = 5)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d dependent rows survived the user", n)
	}
}
