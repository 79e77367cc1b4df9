package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

func TestMediaStoreRecordsAndPaths(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	p := &store.Post{Type: "attachment", Status: "inherit", Author: 1, Title: "pic", MimeType: "image/png"}
	if err := st.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	paths := []string{"2024/05/pic.png", "2024/05/pic-150x150.png"}
	if err := st.ReserveMediaPaths(ctx, paths); err != nil {
		t.Fatal(err)
	}
	// All or none: one taken path reserves nothing.
	if err := st.ReserveMediaPaths(ctx, []string{"2024/05/other.png", "2024/05/pic.png"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("conflicting reserve = %v, want ErrConflict", err)
	}
	if _, err := st.MediaPathOwner(ctx, "2024/05/other.png"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("half a conflicting reserve was kept: %v", err)
	}
	// Which of several paths are recorded, in one lookup.
	knownPaths, kerr := st.MediaPathsKnown(ctx, []string{"2024/05/pic.png", "2024/05/other.png", "2024/05/pic-150x150.png"})
	if kerr != nil || len(knownPaths) != 2 || !knownPaths["2024/05/pic.png"] || !knownPaths["2024/05/pic-150x150.png"] {
		t.Fatalf("MediaPathsKnown = %v, %v", knownPaths, kerr)
	}
	if id, err := st.MediaPathOwner(ctx, "2024/05/pic.png"); err != nil || id != 0 {
		t.Fatalf("reserved owner = %d, %v", id, err)
	}
	err := st.Tx(ctx, func(tx store.Store) error {
		if err := tx.PutMedia(ctx, &store.Media{PostID: p.ID, File: paths[0], AltText: "alt", Details: `{"width":1}`}); err != nil {
			return err
		}
		return tx.AttachMediaPaths(ctx, p.ID, paths)
	})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := st.MediaPathOwner(ctx, paths[1]); err != nil || id != p.ID {
		t.Fatalf("owner = %d, %v", id, err)
	}
	got, err := st.MediaPaths(ctx, p.ID)
	if err != nil || fmt.Sprint(got) != fmt.Sprint([]string{"2024/05/pic-150x150.png", "2024/05/pic.png"}) {
		t.Fatalf("MediaPaths = %v, %v", got, err)
	}
	if err := st.PutMedia(ctx, &store.Media{PostID: p.ID, File: paths[0], AltText: "new alt", Details: `{"width":2}`}); err != nil {
		t.Fatal(err)
	}
	ms, err := st.GetMedia(ctx, []int64{p.ID, 9999})
	if err != nil || len(ms) != 1 || ms[p.ID].AltText != "new alt" || ms[p.ID].Details != `{"width":2}` || ms[p.ID].File != paths[0] {
		t.Fatalf("GetMedia = %+v, %v", ms[p.ID], err)
	}
	if err := st.ReleaseMediaPaths(ctx, paths); err != nil {
		t.Fatal(err)
	}
	if _, err := st.MediaPathOwner(ctx, paths[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("released path = %v", err)
	}
	// The file record goes with its post.
	if err := st.DeletePost(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if ms, err := st.GetMedia(ctx, []int64{p.ID}); err != nil || len(ms) != 0 {
		t.Fatalf("record after delete = %v, %v", ms, err)
	}
}

func TestParentVisibilityHidesMediaOfUnreadableParents(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	mk := func(p *store.Post) int64 {
		if err := st.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	public := mk(&store.Post{Type: "post", Status: "publish", Author: 1})
	private := mk(&store.Post{Type: "post", Status: "private", Author: 1})
	draftOf2 := mk(&store.Post{Type: "page", Status: "draft", Author: 2})
	free := mk(&store.Post{Type: "attachment", Status: "inherit", Author: 1})
	onPublic := mk(&store.Post{Type: "attachment", Status: "inherit", Author: 1, Parent: public})
	onPrivate := mk(&store.Post{Type: "attachment", Status: "inherit", Author: 1, Parent: private})
	onDraft := mk(&store.Post{Type: "attachment", Status: "inherit", Author: 1, Parent: draftOf2})
	orphan := mk(&store.Post{Type: "attachment", Status: "inherit", Author: 1, Parent: 99999})
	q := func(pv map[string]*store.Visibility) string {
		q := store.PostQuery{Types: []string{"attachment"}, Statuses: []string{"inherit"}, OrderBy: "id", Order: "asc", ParentVisibility: pv}
		got, err := st.ListPosts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		n, err := st.CountPosts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, p := range got {
			ids = append(ids, p.ID)
		}
		if int64(len(ids)) != n {
			t.Errorf("count %d != listed %d", n, len(ids))
		}
		return fmt.Sprint(ids)
	}
	anon := map[string]*store.Visibility{"post": {Public: []string{"publish"}}, "page": {Public: []string{"publish"}}}
	if got, want := q(anon), fmt.Sprint([]int64{free, onPublic, orphan}); got != want {
		t.Errorf("anonymous = %s, want %s", got, want)
	}
	owner2 := map[string]*store.Visibility{
		"post": {Public: []string{"publish"}, Owner: 2, OwnStatuses: []string{"private", "draft"}},
		"page": {Public: []string{"publish"}, Owner: 2, OwnStatuses: []string{"private", "draft"}},
	}
	if got, want := q(owner2), fmt.Sprint([]int64{free, onPublic, onDraft, orphan}); got != want {
		t.Errorf("author 2 = %s, want %s", got, want)
	}
	editor := map[string]*store.Visibility{
		"post": {Public: []string{"publish"}, OthersStatuses: []string{"private", "draft"}},
		"page": {Public: []string{"publish"}, OthersStatuses: []string{"private", "draft"}},
	}
	if got, want := q(editor), fmt.Sprint([]int64{free, onPublic, onPrivate, onDraft, orphan}); got != want {
		t.Errorf("editor = %s, want %s", got, want)
	}
	if got, want := q(nil), fmt.Sprint([]int64{free, onPublic, onPrivate, onDraft, orphan}); got != want {
		t.Errorf("no restriction = %s, want %s", got, want)
	}
}
