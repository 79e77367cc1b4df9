package storetest_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
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

// TestLoginCountersReadUpdateAndDelete checks the sign-in throttling
// counters: zero for unknown keys, stored as update returns them, deleted
// at zero failures, and pruned by age.
func TestLoginCountersReadUpdateAndDelete(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cur, err := db.LoginCounters(ctx, []string{"a", "b", "a"})
	if err != nil || len(cur) != 3 || cur[0] != (store.LoginCounter{Key: "a"}) || cur[2].Key != "a" {
		t.Fatalf("unknown keys = %+v %v", cur, err)
	}
	set := func(keys []string, cs ...store.LoginCounter) {
		t.Helper()
		if err := db.UpdateLoginCounters(ctx, keys, func([]store.LoginCounter) []store.LoginCounter { return cs }); err != nil {
			t.Fatal(err)
		}
	}
	set([]string{"a", "b"}, store.LoginCounter{Key: "a", Failures: 2, Last: t0, Next: t0.Add(30 * time.Second)},
		store.LoginCounter{Key: "b", Failures: 1, Last: t0.Add(time.Hour)})
	cur, err = db.LoginCounters(ctx, []string{"b", "a", "c"})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.LoginCounter{{Key: "b", Failures: 1, Last: t0.Add(time.Hour)}, {Key: "a", Failures: 2, Last: t0, Next: t0.Add(30 * time.Second)}, {Key: "c"}}
	if !reflect.DeepEqual(cur, want) {
		t.Fatalf("counters = %+v, want %+v", cur, want)
	}
	// update sees what is stored; nil changes nothing and leaves no row.
	var seen []store.LoginCounter
	if err := db.UpdateLoginCounters(ctx, []string{"a", "d"}, func(c []store.LoginCounter) []store.LoginCounter {
		seen = c
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0].Failures != 2 || seen[1] != (store.LoginCounter{Key: "d"}) {
		t.Fatalf("update saw %+v", seen)
	}
	if n, err := db.DeleteLoginCounters(ctx, t0.Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("DeleteLoginCounters = %d %v, want 1 (a; no empty row of d)", n, err)
	}
	set([]string{"b"}, store.LoginCounter{Key: "b"})
	if cur, _ := db.LoginCounters(ctx, []string{"a", "b"}); cur[0].Failures != 0 || cur[1].Failures != 0 {
		t.Fatalf("after delete: %+v", cur)
	}
}

// TestLoginCounterUpdatesAreAtomicAcrossNodes checks that concurrent
// read-modify-writes of the same counters, through two handles on one
// database (two nodes), never lose an update.
func TestLoginCounterUpdatesAreAtomicAcrossNodes(t *testing.T) {
	t.Parallel()
	dbs := storetest.OpenN(t, 2)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Keys in different orders, so that lock order matters.
			keys := []string{"pair", "acct"}
			if i%2 == 1 {
				keys = []string{"acct", "pair"}
			}
			err := dbs[i%2].UpdateLoginCounters(ctx, keys, func(cur []store.LoginCounter) []store.LoginCounter {
				for j := range cur {
					cur[j].Failures++
					cur[j].Last = t0
				}
				return cur
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	cur, err := dbs[0].LoginCounters(ctx, []string{"pair", "acct"})
	if err != nil || cur[0].Failures != n || cur[1].Failures != n {
		t.Fatalf("counters after %d concurrent increments: %+v %v", n, cur, err)
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
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
	if v1, _ := db.Version(ctx); !storetest.OneBump(v0, v1) {
		t.Errorf("version %d → %d, want one bump (the user delete)", v0, v1)
	}
}
