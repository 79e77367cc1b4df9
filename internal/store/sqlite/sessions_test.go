package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

func TestSessions(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	u := &store.User{Login: "s", Nicename: "s"}
	if err := db.InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	v0, _ := db.Version(ctx)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &store.Session{TokenHash: "aaa", UserID: u.ID, Created: t0, Expires: t0.Add(time.Hour), LastSeen: t0, IP: "1.2.3.4", UserAgent: "ua"}
	b := &store.Session{TokenHash: "bbb", UserID: u.ID, Created: t0.Add(time.Minute), Expires: t0.Add(2 * time.Hour), LastSeen: t0}
	for _, s := range []*store.Session{a, b} {
		if err := db.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateSession(ctx, a); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate token: %v, want ErrConflict", err)
	}
	got, err := db.GetSession(ctx, "aaa")
	if err != nil || *got != *a {
		t.Fatalf("GetSession = %+v %v, want %+v", got, err, a)
	}
	if _, err := db.GetSession(ctx, "zzz"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	if err := db.TouchSession(ctx, "aaa", t0.Add(time.Minute), "5.6.7.8"); err != nil {
		t.Fatal(err)
	}
	got, _ = db.GetSession(ctx, "aaa")
	if !got.LastSeen.Equal(t0.Add(time.Minute)) || got.IP != "5.6.7.8" {
		t.Errorf("after touch: %+v", got)
	}
	list, err := db.ListSessions(ctx, u.ID)
	if err != nil || len(list) != 2 || list[0].TokenHash != "aaa" {
		t.Fatalf("ListSessions = %+v %v", list, err)
	}
	if n, err := db.DeleteExpiredSessions(ctx, t0.Add(90*time.Minute)); err != nil || n != 1 {
		t.Errorf("DeleteExpiredSessions = %d %v, want 1", n, err)
	}
	if err := db.DeleteSession(ctx, "aaa"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting an expired-and-removed session: %v", err)
	}
	if n, err := db.DeleteUserSessions(ctx, u.ID); err != nil || n != 1 {
		t.Errorf("DeleteUserSessions = %d %v, want 1", n, err)
	}
	// Sessions go with their user.
	if err := db.CreateSession(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetSession(ctx, "aaa"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("session outlived its user: %v", err)
	}
	// Session writes do not move the content version on (only the user
	// insert and delete do).
	if v1, _ := db.Version(ctx); v1 != v0+1 {
		t.Errorf("version %d → %d, want one bump (the user delete)", v0, v1)
	}
}
