package storetest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// exporter returns st as a store.Exporter, failing the test when the
// backend lacks it.
func exporter(t *testing.T, st store.Store) store.Exporter {
	t.Helper()
	ex, ok := st.(store.Exporter)
	if !ok {
		t.Fatalf("%T does not implement store.Exporter", st)
	}
	return ex
}

func TestExportPostsPagesByIDWithTypeAndStatusFilters(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	ex := exporter(t, st)
	want := map[string][]int64{}
	for i, spec := range []struct{ typ, status string }{
		{"post", "publish"}, {"page", "draft"}, {"post", "auto-draft"}, {"revision", "inherit"},
		{"post", "trash"}, {"attachment", "inherit"}, {"book", "private"}, {"post", "future"},
	} {
		p := &store.Post{Type: spec.typ, Status: spec.status, Author: 1, Title: fmt.Sprintf("p%d", i)}
		if err := st.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		if spec.typ != "revision" && spec.status != "auto-draft" {
			want["kept"] = append(want["kept"], p.ID)
		}
		want["all"] = append(want["all"], p.ID)
	}
	walk := func(q store.ExportPostQuery) []int64 {
		t.Helper()
		var ids []int64
		for batches := 0; ; batches++ {
			if batches > 20 {
				t.Fatal("ExportPosts does not advance")
			}
			got, err := ex.ExportPosts(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) > q.Limit {
				t.Fatalf("batch of %d posts, limit %d", len(got), q.Limit)
			}
			if len(got) == 0 {
				return ids
			}
			for _, p := range got {
				ids = append(ids, p.ID)
			}
			q.After = got[len(got)-1].ID
		}
	}
	if got := walk(store.ExportPostQuery{Limit: 3}); fmt.Sprint(got) != fmt.Sprint(want["all"]) {
		t.Fatalf("unfiltered walk = %v, want %v", got, want["all"])
	}
	got := walk(store.ExportPostQuery{Limit: 2, Types: []string{"post", "page", "attachment", "book"}, SkipStatuses: []string{"auto-draft"}})
	if fmt.Sprint(got) != fmt.Sprint(want["kept"]) {
		t.Fatalf("filtered walk = %v, want %v", got, want["kept"])
	}
	// Every column comes back, as GetPost reads it.
	one, err := ex.ExportPosts(ctx, store.ExportPostQuery{After: want["all"][0] - 1, Limit: 1})
	if err != nil || len(one) != 1 {
		t.Fatalf("ExportPosts = %v, %v", one, err)
	}
	byID, err := st.GetPost(ctx, one[0].ID)
	if err != nil || fmt.Sprintf("%+v", *byID) != fmt.Sprintf("%+v", *one[0]) {
		t.Fatalf("exported post %+v differs from GetPost %+v (%v)", one[0], byID, err)
	}
}

func TestExportTermsAndUsersPageByID(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	ex := exporter(t, st)
	var genres []int64
	for i := range 5 {
		g := &store.Term{Taxonomy: "genre", Name: fmt.Sprintf("G%d", i), Slug: fmt.Sprintf("g%d", i)}
		if err := st.InsertTerm(ctx, g); err != nil {
			t.Fatal(err)
		}
		genres = append(genres, g.ID)
		if err := st.InsertTerm(ctx, &store.Term{Taxonomy: "post_tag", Name: fmt.Sprintf("T%d", i), Slug: fmt.Sprintf("t%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	for after := int64(0); ; {
		batch, err := ex.ExportTerms(ctx, "genre", after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		for _, tm := range batch {
			if tm.Taxonomy != "genre" {
				t.Fatalf("term %d of taxonomy %q in the genre walk", tm.ID, tm.Taxonomy)
			}
			got = append(got, tm.ID)
		}
		after = batch[len(batch)-1].ID
	}
	if fmt.Sprint(got) != fmt.Sprint(genres) {
		t.Fatalf("genre walk = %v, want %v", got, genres)
	}
	cats, err := ex.ExportTerms(ctx, "category", 0, 0)
	if err != nil || len(cats) != 1 || cats[0].Slug != "uncategorized" {
		t.Fatalf("categories = %v, %v; want the default category", cats, err)
	}

	var users []int64
	for i := range 4 {
		u := &store.User{Login: fmt.Sprintf("u%d", i), Email: fmt.Sprintf("u%d@example.com", i), Nicename: fmt.Sprintf("u%d", i),
			FirstName: "Ἀθηνᾶ", Registered: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), Roles: []string{"author", "editor"}}
		if err := st.InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	var gotUsers []int64
	for after := int64(0); ; {
		batch, err := ex.ExportUsers(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		for _, u := range batch {
			if u.FirstName != "Ἀθηνᾶ" || fmt.Sprint(u.Roles) != "[author editor]" {
				t.Fatalf("exported user %+v lost fields", u)
			}
			gotUsers = append(gotUsers, u.ID)
		}
		after = batch[len(batch)-1].ID
	}
	if fmt.Sprint(gotUsers) != fmt.Sprint(users) {
		t.Fatalf("user walk = %v, want %v", gotUsers, users)
	}
}

func TestExportCommentsPageByPostThenIDWithStatusFilters(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	ex := exporter(t, st)
	var posts []int64
	for i := range 3 {
		p := &store.Post{Type: "post", Status: "publish", Author: 1, Title: fmt.Sprintf("p%d", i)}
		if err := st.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p.ID)
	}
	// Comments interleaved across posts, so id order is not (post, id) order.
	statuses := []string{"1", "0", "spam", "trash", "1", "1"}
	type key struct{ post, id int64 }
	var want, wantNoSpam []key
	perPost := map[int64][]key{}
	for i := range 12 {
		post := posts[i%2]
		if i == 11 {
			post = posts[2]
		}
		c := &store.Comment{PostID: post, AuthorName: "a", Content: fmt.Sprintf("c%d", i), Approved: statuses[i%len(statuses)],
			Type: "comment", Date: time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC), DateGMT: time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)}
		if err := st.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		perPost[post] = append(perPost[post], key{post, c.ID})
	}
	for _, p := range posts[:2] {
		want = append(want, perPost[p]...)
	}
	walk := func(q store.ExportCommentQuery) ([]key, []*store.ExportedComment) {
		t.Helper()
		var out []key
		var all []*store.ExportedComment
		for n := 0; ; n++ {
			if n > 30 {
				t.Fatal("ExportComments does not advance")
			}
			batch, err := ex.ExportComments(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(batch) == 0 {
				return out, all
			}
			for _, c := range batch {
				out = append(out, key{c.PostID, c.ID})
			}
			all = append(all, batch...)
			last := batch[len(batch)-1]
			q.AfterPost, q.AfterID = last.PostID, last.ID
		}
	}
	got, _ := walk(store.ExportCommentQuery{Posts: posts[:2], Limit: 2})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("walk = %v, want %v (post 3 left out, (post, id) order)", got, want)
	}
	got, all := walk(store.ExportCommentQuery{Posts: posts[:2], Limit: 4, SkipApproved: []string{"spam"}})
	for _, c := range all {
		if c.Approved == "spam" {
			t.Fatalf("spam comment %d exported", c.ID)
		}
	}
	for _, k := range want {
		c, _ := st.GetComment(ctx, k.id)
		if c.Approved != "spam" {
			wantNoSpam = append(wantNoSpam, k)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(wantNoSpam) {
		t.Fatalf("walk without spam = %v, want %v", got, wantNoSpam)
	}

	// Trashing the post remembers each comment's status apart.
	if err := st.TrashPostComments(ctx, posts[0]); err != nil {
		t.Fatal(err)
	}
	_, trashed := walk(store.ExportCommentQuery{Posts: posts[:1], Limit: 100, Approved: []string{store.CommentPostTrashed}})
	if len(trashed) == 0 {
		t.Fatal("no post-trashed comments after TrashPostComments")
	}
	for _, c := range trashed {
		before := statuses[0]
		for i, k := range perPost[posts[0]] {
			if k.id == c.ID {
				before = statuses[(2*i)%len(statuses)]
			}
		}
		if c.Approved != store.CommentPostTrashed || c.PostTrashStatus != before {
			t.Fatalf("comment %d: approved %q post-trash status %q, want post-trashed and %q", c.ID, c.Approved, c.PostTrashStatus, before)
		}
	}
	if got, _ := ex.ExportComments(ctx, store.ExportCommentQuery{Limit: 5}); len(got) != 0 {
		t.Fatalf("comments of no posts = %d, want none", len(got))
	}
}

func TestExportPostMetaPagesInWriteOrder(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	ex := exporter(t, st)
	ms, ok := st.(store.PostMetaStore)
	if !ok {
		t.Fatalf("%T lacks post meta", st)
	}
	var posts []int64
	for range 3 {
		p := &store.Post{Type: "post", Status: "publish", Author: 1}
		if err := st.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p.ID)
	}
	// Written out of post order; per post the rows keep write order.
	for _, w := range []struct {
		post   int64
		key    string
		values []string
	}{
		{posts[1], "zeta", []string{"z1", "z2"}},
		{posts[0], "beta", []string{"b"}},
		{posts[1], "alpha", []string{"a]]>"}},
		{posts[2], "gamma", []string{"g"}},
		{posts[0], "alpha", []string{"a0"}},
	} {
		if err := ms.SetPostMeta(ctx, w.post, w.key, w.values); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	afterPost, afterID := int64(0), int64(0)
	for n := 0; ; n++ {
		if n > 10 {
			t.Fatal("ExportPostMeta does not advance")
		}
		batch, err := ex.ExportPostMeta(ctx, posts[:2], afterPost, afterID, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		for _, m := range batch {
			got = append(got, fmt.Sprintf("%d:%s=%s", m.PostID, m.Key, m.Value))
		}
		afterPost, afterID = batch[len(batch)-1].PostID, batch[len(batch)-1].ID
	}
	want := []string{
		fmt.Sprintf("%d:beta=b", posts[0]), fmt.Sprintf("%d:alpha=a0", posts[0]),
		fmt.Sprintf("%d:zeta=z1", posts[1]), fmt.Sprintf("%d:zeta=z2", posts[1]), fmt.Sprintf("%d:alpha=a]]>", posts[1]),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("meta walk = %v, want %v", got, want)
	}
}

func TestReadSnapshotSeesNoLaterWritesAndRefusesWrites(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	snap, ok := st.(store.Snapshotter)
	if !ok {
		t.Fatalf("%T does not implement store.Snapshotter", st)
	}
	first := &store.Post{Type: "post", Status: "publish", Author: 1, Title: "before"}
	if err := st.InsertPost(ctx, first); err != nil {
		t.Fatal(err)
	}
	var late *store.Post
	err := snap.ReadSnapshot(ctx, func(s store.Store) error {
		// A write committed by someone else while the snapshot is open
		// (the writer is not blocked) ...
		late = &store.Post{Type: "post", Status: "publish", Author: 1, Title: "after"}
		done := make(chan error, 1)
		go func() { done <- st.InsertPost(ctx, late) }()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("write during snapshot: %w", err)
			}
		case <-time.After(10 * time.Second):
			return fmt.Errorf("a write waited for the snapshot")
		}
		title := "changed"
		first2 := *first
		first2.Title = title
		if err := st.UpdatePost(ctx, &first2); err != nil {
			return err
		}
		// ... is not seen inside it.
		posts, err := s.(store.Exporter).ExportPosts(ctx, store.ExportPostQuery{Limit: 10})
		if err != nil {
			return err
		}
		if len(posts) != 1 || posts[0].ID != first.ID || posts[0].Title != "before" {
			return fmt.Errorf("snapshot sees %d posts (first %+v), want only the first one unchanged", len(posts), posts[0])
		}
		if n, err := s.CountPosts(ctx, store.PostQuery{}); err != nil || n != 1 {
			return fmt.Errorf("snapshot counts %d posts (%v), want 1", n, err)
		}
		// Writes through the snapshot fail.
		if err := s.InsertPost(ctx, &store.Post{Type: "post", Status: "draft", Author: 1}); err == nil {
			return fmt.Errorf("a write through the snapshot succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.CountPosts(ctx, store.PostQuery{}); err != nil || n != 2 {
		t.Fatalf("after the snapshot: %d posts (%v), want 2", n, err)
	}
}
