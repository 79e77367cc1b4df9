package storetest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestAuthorTotalsAreKept: the total of a collection filtered on one
// author comes from the counts kept per author, type and status
// (migration 0035), and stays equal to the posts listed through creates
// (one at a time and many in one statement), changes of status, type and
// author, and deletions, for every visibility, including an author's own
// archive with its drafts; several authors or an exclusion count the
// posts. The kept total reads no post.
func TestAuthorTotalsAreKept(t *testing.T) {
	t.Parallel()
	db, exec := openSQLRaw(t)
	ctx := context.Background()
	posts := totalsPosts(t, db)
	check := func(step string) {
		t.Helper()
		for _, authors := range [][]int64{{1}, {2}, {3}, {4}, {1, 2}} {
			for _, v := range []*store.Visibility{anonSees, authorSees, adminSees, nil} {
				for _, types := range [][]string{{"post"}, {"page"}, nil} {
					for _, st := range [][]string{nil, {"publish"}, {"draft", "trash"}} {
						for _, exclude := range [][]int64{nil, {3}} {
							q := store.PostQuery{Types: types, Statuses: st, Visibility: v, Authors: authors, AuthorExclude: exclude}
							totalIsListed(t, db, fmt.Sprintf("%s: authors %v (not %v)", step, authors, exclude), q)
						}
					}
				}
			}
		}
	}
	check("created")

	// The total of one author's archive reads the kept counts alone; in
	// the signed-in author's own archive, its own drafts from posts_author.
	keptOnly := func(who string, q store.PostQuery, ownToo bool) {
		t.Helper()
		plan := onePlan(t, db, who+" total", func(ctx context.Context) error {
			_, err := db.CountPosts(ctx, q)
			return err
		})
		lite := storetest.Backend() == "sqlite"
		counts, own := false, false
		for _, step := range plan.Steps {
			counts = counts || readsTable(step, lite, "author_post_counts")
			if readsTable(step, lite, "posts") {
				own = true
				if !ownToo {
					t.Errorf("%s total reads posts: %q\n%s\n%s", who, step, plan.SQL, plan.String())
				}
			}
		}
		if !counts || own != ownToo {
			t.Errorf("%s total: reads author_post_counts %v, posts %v (want %v):\n%s\n%s", who, counts, own, ownToo, plan.SQL, plan.String())
		}
	}
	keptOnly("a visitor's", store.PostQuery{Types: []string{"post"}, Visibility: anonSees, Authors: []int64{2}}, false)
	keptOnly("an administrator's", store.PostQuery{Types: []string{"post"}, Visibility: adminSees, Authors: []int64{2}}, false)
	keptOnly("another author's", store.PostQuery{Types: []string{"post"}, Visibility: authorSees, Authors: []int64{3}}, false)
	keptOnly("the author's own", store.PostQuery{Types: []string{"post"}, Visibility: authorSees, Authors: []int64{2}}, true)

	changeTotalsPosts(t, db, posts)
	updatePost(t, db, posts[15], func(p *store.Post) { p.Author = 2 })
	updatePost(t, db, posts[16], func(p *store.Post) { p.Author, p.Status = 3, "private" })
	check("statuses, a type and authors changed")

	// Many posts in one statement, and an author changed by SQL.
	exec(`INSERT INTO posts (type, status, author, title, slug, guid, content, excerpt, date, date_gmt, modified, modified_gmt)
		VALUES ('post', 'publish', 2, 'Bulk 1', 'bulk-1', '', '', '', '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-03-01 00:00:00'),
		('post', 'draft', 2, 'Bulk 2', 'bulk-2', '', '', '', '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-03-01 00:00:00'),
		('post', 'publish', 4, 'Bulk 3', 'bulk-3', '', '', '', '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-03-01 00:00:00')`)
	exec(fmt.Sprintf(`UPDATE posts SET author = 1 WHERE id IN (%d, %d)`, posts[20].ID, posts[21].ID))
	check("inserted and changed by SQL")

	for _, p := range []*store.Post{posts[2], posts[3], posts[6], posts[15]} {
		if err := db.DeletePost(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	check("posts deleted")
	exec(`DELETE FROM posts WHERE author = 4`)
	if n, err := db.CountPosts(ctx, store.PostQuery{Authors: []int64{4}}); err != nil || n != 0 {
		t.Errorf("author without posts: total %d (%v), want 0", n, err)
	}
	check("an author's posts deleted by SQL")
}
