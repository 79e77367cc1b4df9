package content_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestHookWritesJoinTheChangesTransaction checks that a hook told about a
// change (the Changed hook) that writes through the store with the context it
// was given writes inside the change's transaction: its write commits with
// the change and rolls back with it, and on SQLite it does not wait for the
// single writer the change holds.
func TestHookWritesJoinTheChangesTransaction(t *testing.T) {
	site, db, admin := adminSite(t)
	ctx := context.Background()
	pt, _ := site.Types().Get("post")
	refuse := errors.New("refused by the hook")
	fail, key := false, "first"
	site.Hooks().Changed.BindFunc(func(ev *events.ChangeEvent) error {
		if err := site.Storage().SetOption(ev.Context, key, ev.Change.Action); err != nil {
			return err
		}
		if fail {
			return refuse
		}
		return ev.Next()
	})
	title := "Hello"
	if _, _, err := site.CreatePost(ctx, site.UserOf(admin), pt, content.PostInput{Title: &title}, "http://example.test"); err != nil {
		t.Fatal(err)
	}
	if v, err := db.GetOption(ctx, "first"); err != nil || v != "created" {
		t.Fatalf("the hook's write did not commit with the change: %q, %v", v, err)
	}

	fail, key = true, "second"
	if _, _, err := site.CreatePost(ctx, site.UserOf(admin), pt, content.PostInput{Title: &title}, "http://example.test"); !errors.Is(err, refuse) {
		t.Fatalf("err = %v, want the hook's", err)
	}
	if _, err := db.GetOption(ctx, "second"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the hook's write survived the rolled-back change: %v", err)
	}
	if n, err := db.CountPosts(ctx, store.PostQuery{Types: []string{"post"}}); err != nil || n != 1 {
		t.Fatalf("%d posts, %v; want the first one only", n, err)
	}
}

// adminSite returns a site on a fresh store of the selected backend with
// one administrator.
func adminSite(t *testing.T) (*content.Site, storetest.Store, *store.User) {
	t.Helper()
	db := storetest.Open(t)
	site, err := content.NewSite(db, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	admin := &store.User{Login: "admin", Email: "admin@example.com", Nicename: "admin", Registered: time.Now().UTC(), Roles: []string{"administrator"}}
	if err := db.InsertUser(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	return site, db, admin
}
