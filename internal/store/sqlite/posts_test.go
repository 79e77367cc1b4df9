package sqlite

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

func at(y, m, d, h int) time.Time { return time.Date(y, time.Month(m), d, h, 0, 0, 0, time.UTC) }

func TestPostRoundTripKeepsEveryField(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	in := &store.Post{
		Type: "post", Status: "future", Author: 7, Parent: 3, MenuOrder: -2,
		Title: "T", Content: "C", Excerpt: "E", Slug: "s", Password: "pw", GUID: "http://x/?p=1",
		Date: at(2030, 1, 2, 3), DateGMT: at(2030, 1, 2, 2), Modified: at(2029, 12, 31, 23),
		ModifiedGMT: at(2029, 12, 31, 22), CommentStatus: "closed", PingStatus: "open",
		Sticky: true, Format: "aside", Template: "wide.php", FeaturedMedia: 42,
		MimeType: "text/plain", CommentCount: 9, PreTrashStatus: "draft",
	}
	if err := db.InsertPost(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetPost(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, in)
	}

	// Update writes every column, including back to zero values, except
	// comment_count, which only the comment writes change.
	upd := &store.Post{ID: in.ID, Type: "page", Status: "draft"}
	if err := db.UpdatePost(ctx, upd); err != nil {
		t.Fatal(err)
	}
	got, err = db.GetPost(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	upd.CommentCount = in.CommentCount
	if !reflect.DeepEqual(got, upd) {
		t.Fatalf("after update:\n got %+v\nwant %+v", got, upd)
	}
	var stored string
	if err := db.c.read.QueryRowContext(ctx, `SELECT date_gmt FROM posts WHERE id = ?`, in.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != "0000-00-00 00:00:00" {
		t.Fatalf("zero date stored as %q", stored)
	}
	if !got.DateGMT.IsZero() || !got.Date.IsZero() {
		t.Fatalf("zero dates read back as %v / %v", got.Date, got.DateGMT)
	}
}

func TestDeletePostCascades(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	ctx := context.Background()
	p := &store.Post{Type: "post"}
	if err := db.InsertPost(ctx, p); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO terms (id, taxonomy, name, slug) VALUES (2, 'category', 'C', 'c')`,
		fmt.Sprintf(`INSERT INTO term_relationships (post_id, term_id) VALUES (%d, 2)`, p.ID),
		fmt.Sprintf(`INSERT INTO post_meta (post_id, key, value) VALUES (%d, 'k', 'v')`, p.ID),
	} {
		if _, err := db.c.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeletePost(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.c.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM term_relationships) + (SELECT COUNT(*) FROM post_meta)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d dependent rows survived the post", n)
	}
}
