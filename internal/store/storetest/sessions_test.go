package storetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestSessionIDsAndDeleteOthers checks the public session ids and the
// removal of a user's sessions but one.
func TestSessionIDsAndDeleteOthers(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	u := &store.User{Login: "s", Email: "s@x", Nicename: "s"}
	v := &store.User{Login: "v", Email: "v@x", Nicename: "v"}
	for _, x := range []*store.User{u, v} {
		if err := db.InsertUser(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func(hash string, uid int64, id string) *store.Session {
		s := &store.Session{ID: id, TokenHash: hash, UserID: uid, Created: t0, Expires: t0.Add(time.Hour), LastSeen: t0}
		if err := db.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, c := mk("aaa", u.ID, ""), mk("bbb", u.ID, ""), mk("ccc", u.ID, "fixed")
	other := mk("ddd", v.ID, "")
	if len(a.ID) != 32 || a.ID == b.ID || c.ID != "fixed" {
		t.Fatalf("ids %q %q %q", a.ID, b.ID, c.ID)
	}
	got, err := db.GetSession(ctx, "aaa")
	if err != nil || got.ID != a.ID {
		t.Fatalf("GetSession = %+v %v", got, err)
	}
	if err := db.CreateSession(ctx, &store.Session{ID: a.ID, TokenHash: "eee", UserID: u.ID, Created: t0, Expires: t0, LastSeen: t0}); err == nil {
		t.Errorf("duplicate public id accepted")
	}
	if n, err := db.DeleteOtherSessions(ctx, u.ID, "bbb"); err != nil || n != 2 {
		t.Fatalf("DeleteOtherSessions = %d %v, want 2", n, err)
	}
	list, err := db.ListSessions(ctx, u.ID)
	if err != nil || len(list) != 1 || list[0].ID != b.ID {
		t.Fatalf("left = %+v %v", list, err)
	}
	if n, err := db.DeleteOtherSessions(ctx, u.ID, ""); err != nil || n != 1 {
		t.Fatalf("DeleteOtherSessions(all) = %d %v, want 1", n, err)
	}
	if list, _ := db.ListSessions(ctx, v.ID); len(list) != 1 || list[0].ID != other.ID {
		t.Fatalf("other user's sessions = %+v", list)
	}
}
