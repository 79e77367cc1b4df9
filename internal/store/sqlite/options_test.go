package sqlite

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

func TestOptions(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	if _, err := db.GetOption(ctx, "secret"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unset option: %v", err)
	}
	steps := []struct {
		name string
		do   func() (string, error)
		want string
	}{
		{"add new", func() (string, error) { return db.AddOption(ctx, "secret", "first") }, "first"},
		{"add existing keeps the first", func() (string, error) { return db.AddOption(ctx, "secret", "second") }, "first"},
		{"get", func() (string, error) { return db.GetOption(ctx, "secret") }, "first"},
		{"set replaces", func() (string, error) {
			if err := db.SetOption(ctx, "secret", "third"); err != nil {
				return "", err
			}
			return db.GetOption(ctx, "secret")
		}, "third"},
		{"set new", func() (string, error) {
			if err := db.SetOption(ctx, "other", ""); err != nil {
				return "", err
			}
			return db.GetOption(ctx, "other")
		}, ""},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil || got != st.want {
			t.Errorf("%s: %q, %v; want %q", st.name, got, err, st.want)
		}
	}
}

func TestAddOptionRaceHasOneWinner(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	const n = 8
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], errs[i] = db.AddOption(ctx, "nonce_key", string(rune('a'+i)))
		}(i)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Fatalf("writers saw different values: %v", got)
		}
	}
}

func TestAppPasswords(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	u := &store.User{Login: "u", Nicename: "u"}
	if err := db.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	a := &store.AppPassword{UUID: "uuid-a", UserID: u.ID, Name: "phone", Hash: "h1", Created: at(2024, 1, 1, 0)}
	b := &store.AppPassword{UUID: "uuid-b", UserID: u.ID, Name: "laptop", Hash: "h2", Created: at(2024, 2, 1, 0)}
	for _, p := range []*store.AppPassword{a, b} {
		if err := db.InsertAppPassword(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-a", UserID: u.ID, Hash: "x"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate uuid: %v", err)
	}
	if err := db.InsertAppPassword(ctx, &store.AppPassword{UUID: "uuid-c", UserID: 99, Hash: "x"}); err == nil {
		t.Fatal("password for a missing user was stored")
	}
	list, err := db.ListAppPasswords(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(list, []*store.AppPassword{a, b}) {
		t.Fatalf("list = %+v", list)
	}
	if list[0].LastUsed != (time.Time{}) {
		t.Fatal("never-used password has a last-used time")
	}

	used := time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC)
	if err := db.TouchAppPassword(ctx, a.ID, used, "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchAppPassword(ctx, 999, used, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("touch missing: %v", err)
	}
	list, err = db.ListAppPasswords(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !list[0].LastUsed.Equal(used) || list[0].LastIP != "10.0.0.1" {
		t.Fatalf("after touch: %+v", list[0])
	}

	tests := []struct {
		name   string
		user   int64
		uuid   string
		want   error
		remain int
	}{
		{"other user's password", 99, "uuid-a", store.ErrNotFound, 2},
		{"unknown uuid", u.ID, "nope", store.ErrNotFound, 2},
		{"delete", u.ID, "uuid-a", nil, 1},
		{"delete twice", u.ID, "uuid-a", store.ErrNotFound, 1},
	}
	for _, tt := range tests {
		err := db.DeleteAppPassword(ctx, tt.user, tt.uuid)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		list, err := db.ListAppPasswords(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != tt.remain {
			t.Errorf("%s: %d left, want %d", tt.name, len(list), tt.remain)
		}
	}
	empty, err := db.ListAppPasswords(ctx, 12345)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("list for user without passwords = %#v, %v", empty, err)
	}
}
