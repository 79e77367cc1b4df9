package storetest_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/sqlstore"
	"github.com/folio-server/folio/internal/store/storetest"
)

// openSQL opens a new migrated store of the selected backend.
func openSQL(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, _ := openSQLRaw(t)
	return db
}

// openSQLRaw is openSQL that also returns a function running a statement
// on the database directly, beside the store, as another program could.
func openSQLRaw(t *testing.T) (*sqlstore.DB, func(query string)) {
	t.Helper()
	ctx := context.Background()
	if storetest.Backend() == "postgres" {
		pg := storetest.OpenPostgres(t, storetest.PostgresURL(t))
		return pg.DB, func(query string) {
			t.Helper()
			if _, err := pg.Pool().Exec(ctx, query); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
	}
	lite := storetest.OpenSQLite(t, t.TempDir()+"/folio.db")
	raw, err := sql.Open("sqlite", lite.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	return lite.DB, func(query string) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, query); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
}

// planTerms are the categories planSite files its posts under: rare has
// every 300th post, common every post; analyze refreshes the planner's
// statistics of the site's tables, as autovacuum or folio's own runs do.
type planTerms struct {
	rare, common int64
	analyze      func() error
}

// planSite opens a store of the selected backend with n posts (one every
// eight hours, so about three a day over many months; mostly published,
// some of every other status), filed under planTerms, with fresh planner
// statistics, as a site of that size has.
func planSite(t *testing.T, n int) (*sqlstore.DB, planTerms) {
	t.Helper()
	ctx := context.Background()
	var db *sqlstore.DB
	var analyze func() error
	if storetest.Backend() == "postgres" {
		u := storetest.PostgresURL(t)
		pg := storetest.OpenPostgres(t, u)
		db, analyze = pg.DB, func() error {
			if err := postgres.Analyze(ctx, u); err != nil {
				return err
			}
			// The terms' tables too, as autovacuum has on a site of that
			// size: since migration 0019 indexes terms, the planner takes
			// the one term the migrations make for the table's size.
			_, err := pg.Pool().Exec(ctx, `ANALYZE terms, term_relationships, comments`)
			return err
		}
	} else {
		lite := storetest.OpenSQLite(t, t.TempDir()+"/folio.db")
		db, analyze = lite.DB, func() error { return lite.Optimize(ctx) }
	}
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []int64
	for done := 0; done < n; done += 500 {
		err := db.Tx(ctx, func(tx store.Store) error {
			for k := done; k < min(done+500, n); k++ {
				d := start.Add(time.Duration(k) * 8 * time.Hour)
				p := &store.Post{Type: "post", Status: "publish", Author: int64(1 + k%3), Title: fmt.Sprintf("Post %d", k),
					Content: "<p>words</p>", Slug: fmt.Sprintf("post-%d", k), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
				switch {
				case k%50 == 7:
					p.Status = "draft"
				case k%70 == 3:
					p.Status = "private"
				case k%90 == 5:
					p.Status = "pending"
				case k%110 == 9:
					p.Status = "trash"
				}
				if err := tx.InsertPost(ctx, p); err != nil {
					return err
				}
				ids = append(ids, p.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rare := &store.Term{Taxonomy: "category", Name: "Rare", Slug: "rare"}
	common := &store.Term{Taxonomy: "category", Name: "Common", Slug: "common"}
	for _, tm := range []*store.Term{rare, common} {
		if err := db.InsertTerm(ctx, tm); err != nil {
			t.Fatal(err)
		}
	}
	// A hundred tags, each on one post in a hundred: the terms a site of
	// that size has, for the planner's statistics of term_relationships.
	var tags []int64
	for k := range 100 {
		tag := &store.Term{Taxonomy: "post_tag", Name: fmt.Sprintf("Tag %d", k), Slug: fmt.Sprintf("tag-%d", k)}
		if err := db.InsertTerm(ctx, tag); err != nil {
			t.Fatal(err)
		}
		tags = append(tags, tag.ID)
	}
	err := db.Tx(ctx, func(tx store.Store) error {
		for i, id := range ids {
			set := []int64{common.ID}
			if i%300 == 0 {
				set = append(set, rare.ID)
			}
			if err := tx.SetPostTerms(ctx, id, "category", set); err != nil {
				return err
			}
			if err := tx.SetPostTerms(ctx, id, "post_tag", []int64{tags[i%len(tags)]}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := analyze(); err != nil {
		t.Fatal(err)
	}
	return db, planTerms{rare: rare.ID, common: common.ID, analyze: analyze}
}

// Visibilities of an anonymous reader, of author 2 and of administrator 1.
var (
	anonSees   = &store.Visibility{Public: []string{"publish"}}
	authorSees = &store.Visibility{Public: []string{"publish"}, Owner: 2,
		OwnStatuses: []string{"private", "draft", "pending", "future", "trash"}}
	adminSees = &store.Visibility{Public: []string{"publish"}, Owner: 1,
		OwnStatuses:    []string{"private", "draft", "pending", "future", "trash"},
		OthersStatuses: []string{"private", "draft", "pending", "future", "trash"}}
)

// pgSort matches a PostgreSQL sort node (not a Merge Append's Sort Key).
var pgSort = regexp.MustCompile(`^(Incremental )?Sort\s+\(`)

// TestListingPlans checks the plans the database makes for the listings a
// site serves most, so that their cost follows the page, not the number of
// posts: no statement sorts or scans the posts table.
func TestListingPlans(t *testing.T) {
	t.Parallel()
	db, terms := planSite(t, 3000)
	ctx := context.Background()
	lite := storetest.Backend() == "sqlite"
	list := func(q store.PostQuery) func(context.Context) error {
		return func(ctx context.Context) error { _, err := db.ListPosts(ctx, q); return err }
	}
	count := func(q store.PostQuery) func(context.Context) error {
		return func(ctx context.Context) error { _, err := db.CountPosts(ctx, q); return err }
	}
	post := []string{"post"}
	tests := []struct {
		name string
		run  func(context.Context) error
		// uses must appear in the plan (SQLite, PostgreSQL).
		uses [2]string
		// sorts allows sorts of a bounded number of rows (the guarded
		// plans of a term page sort a rare term's posts, then the page).
		sorts bool
		// statements is how many statements run, when not 1.
		statements int
	}{
		{"first page", list(store.PostQuery{Types: post, Visibility: anonSees, Limit: 10}), [2]string{"USING INDEX posts_type_status_date", "Index Scan"}, false, 0},
		{"first page, status publish, signed in", list(store.PostQuery{Types: post, Statuses: []string{"publish"}, Visibility: authorSees, Limit: 10}),
			[2]string{"USING INDEX posts_type_status_date", "Index Scan"}, false, 0},
		// The total and the months from post_counts, then the page.
		{"deep page", list(store.PostQuery{Types: post, Visibility: anonSees, Limit: 10, Offset: 2500}), [2]string{"post_counts", "post_counts"}, false, 3},
		{"deep page, oldest first", list(store.PostQuery{Types: post, Visibility: anonSees, Limit: 10, Offset: 1200, Order: "asc"}), [2]string{"post_counts", "post_counts"}, false, 3},
		{"every status, author", list(store.PostQuery{Types: post, Visibility: authorSees, Limit: 10}), [2]string{"MERGE (UNION ALL)", "Merge Append"}, false, 0},
		{"every status, administrator", list(store.PostQuery{Types: post, Visibility: adminSees, Limit: 20, Offset: 40}), [2]string{"MERGE (UNION ALL)", "Merge Append"}, false, 0},
		{"drafts and pending, administrator", list(store.PostQuery{Types: post, Statuses: []string{"draft", "pending"}, Visibility: adminSees, Limit: 10}),
			[2]string{"MERGE (UNION ALL)", "Merge Append"}, false, 0},
		{"total", count(store.PostQuery{Types: post, Visibility: anonSees}), [2]string{"post_counts", "post_counts"}, false, 0},
		// A term's totals from the counts kept per term, type and status.
		{"total of a rare term", count(store.PostQuery{Types: post, Visibility: anonSees, Terms: []store.TermFilter{{Taxonomy: "category", IDs: []int64{terms.rare}}}}),
			[2]string{"term_post_counts", "term_post_counts"}, false, 0},
		{"total of a common term", count(store.PostQuery{Types: post, Visibility: anonSees, Terms: []store.TermFilter{{Taxonomy: "category", IDs: []int64{terms.common}}}}),
			[2]string{"term_post_counts", "term_post_counts"}, false, 0},
		// With the author's own drafts, those counted from the author's
		// posts, each checked for the term by key.
		{"total of a common term, author", count(store.PostQuery{Types: post, Visibility: authorSees, Terms: []store.TermFilter{{Taxonomy: "category", IDs: []int64{terms.common}}}}),
			[2]string{"term_post_counts", "term_post_counts"}, false, 0},
		{"page of a term", list(store.PostQuery{Types: post, Visibility: anonSees, Terms: []store.TermFilter{{Taxonomy: "category", IDs: []int64{terms.common}}}, Limit: 10}),
			[2]string{"USING INDEX posts_type_status_date", "Index Scan"}, true, 0},
		{"total, author", count(store.PostQuery{Types: post, Visibility: authorSees}), [2]string{"COVERING INDEX posts_author", "posts_author"}, false, 0},
		// An author's archive: the page read in order, no sort (through
		// posts_author; PostgreSQL walks the dates for an author of a
		// third of the posts, as here, and posts_author for a rarer one).
		{"page of an author", list(store.PostQuery{Types: post, Authors: []int64{2}, Visibility: anonSees, Limit: 10, Offset: 10}),
			[2]string{"USING INDEX posts_author", "Index Scan"}, false, 0},
		{"slug candidates", func(ctx context.Context) error {
			_, err := db.SlugsTaken(ctx, []string{"post-1", "post-2", "post-3"}, post, -1, 0)
			return err
		}, [2]string{"COVERING INDEX posts_type_slug ", "posts_type_slug "}, true, 0}, // PostgreSQL sorts the few found for DISTINCT
		// Every post's slug begins with "post-": the suffixes of one
		// length are a range of their own, in order.
		{"slug suffixes", func(ctx context.Context) error {
			_, err := db.FreeSlug(ctx, "post", post, -1, 0, false)
			return err
		}, [2]string{"COVERING INDEX posts_type_slug_length", "posts_type_slug_length"}, false, 0},
		// A new post's base, in a write transaction: SQLite's single
		// writer asks for the base alone (one lookup), PostgreSQL for
		// the base and its suffixes in one query.
		{"slug of a new post", func(ctx context.Context) error {
			return db.Tx(ctx, func(tx store.Store) error {
				_, err := tx.FreeSlug(ctx, "post-1-new", post, -1, 0, false)
				return err
			})
		}, [2]string{"COVERING INDEX posts_type_slug ", "posts_type_slug_length"}, false, 0},
	}
	for _, tt := range tests {
		plans, err := db.Plans(ctx, tt.run)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if want := max(tt.statements, 1); len(plans) != want {
			t.Fatalf("%s: %d statements, want %d", tt.name, len(plans), want)
		}
		want := tt.uses[1]
		if lite {
			want = tt.uses[0]
		}
		var all strings.Builder
		for _, p := range plans {
			all.WriteString(p.SQL + "\n" + p.String() + "\n")
		}
		if !strings.Contains(all.String(), want) {
			t.Errorf("%s: no plan uses %q:\n%s", tt.name, want, all.String())
		}
		for _, p := range plans {
			checkPlan(t, tt.name, p, lite, tt.sorts)
		}
	}
}

// TestFreeBaseIsOneLookupForTheSingleWriter: in a write transaction, a
// new post's free base costs SQLite's single writer one lookup of the
// base alone, and PostgreSQL the one query that also reads the suffixes
// (a second would be a second round trip). A taken base, on SQLite,
// costs the lookup and the query; the next post of that base the query
// alone, from the suffix the first found.
func TestFreeBaseIsOneLookupForTheSingleWriter(t *testing.T) {
	t.Parallel()
	db := openSQL(t)
	ctx := context.Background()
	lite := storetest.Backend() == "sqlite"
	post := []string{"post"}
	free := func(base string) (string, []sqlstore.Plan) {
		t.Helper()
		var got string
		plans, err := db.Plans(ctx, func(ctx context.Context) error {
			return db.Tx(ctx, func(tx store.Store) error {
				var err error
				got, err = tx.FreeSlug(ctx, base, post, -1, 0, false)
				if err != nil {
					return err
				}
				return tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Slug: got})
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		// The insert's own statements follow FreeSlug's.
		var slugs []sqlstore.Plan
		for _, p := range plans {
			if strings.Contains(p.SQL, "FROM posts") && (strings.Contains(p.SQL, "slug = ") || strings.Contains(p.SQL, "length(slug)")) {
				slugs = append(slugs, p)
			}
		}
		return got, slugs
	}
	suffixes := func(p sqlstore.Plan) bool { return strings.Contains(p.SQL, "length(slug)") }

	got, plans := free("fresh")
	if got != "fresh" || len(plans) != 1 {
		t.Fatalf("free base: %q in %d queries, want fresh in 1", got, len(plans))
	}
	if suffixes(plans[0]) == lite {
		t.Errorf("free base on %s: the query reads suffixes %v, want %v:\n%s", storetest.Backend(), suffixes(plans[0]), !lite, plans[0].SQL)
	}
	got, plans = free("fresh")
	want := 1
	if lite {
		want = 2
	}
	if got != "fresh-2" || len(plans) != want || !suffixes(plans[len(plans)-1]) {
		t.Fatalf("taken base: %q in %d queries, want fresh-2 in %d, the last reading suffixes", got, len(plans), want)
	}
	if got, plans = free("fresh"); got != "fresh-3" || len(plans) != 1 || !suffixes(plans[0]) {
		t.Fatalf("the next post of a taken base: %q in %d queries, want fresh-3 in 1 reading suffixes", got, len(plans))
	}
}

// checkPlan fails when a step of p scans the posts table or sorts rows
// read from it (unless sorts allows a bounded sort).
func checkPlan(t *testing.T, name string, p sqlstore.Plan, lite, sorts bool) {
	t.Helper()
	text := p.String()
	{
		last := "" // the table or subquery the last SQLite step read
		for _, step := range p.Steps {
			step = strings.TrimSpace(step)
			var bad bool
			if lite {
				// A full scan of posts, or a sort of rows read from posts
				// (sorting a branch's page or the months of post_counts
				// is bounded by the page).
				if f := strings.Fields(step); len(f) > 1 && (f[0] == "SCAN" || f[0] == "SEARCH") && f[1] != "json_each" {
					last = f[1]
				}
				bad = strings.HasPrefix(step, "SCAN posts") || strings.Contains(step, "TEMP B-TREE") && last == "posts" && !sorts
			} else {
				bad = strings.Contains(step, "Seq Scan on posts") || pgSort.MatchString(strings.TrimLeft(step, "-> ")) && !strings.Contains(text, "post_counts") && !sorts
			}
			if bad {
				t.Errorf("%s: step %q sorts or scans the posts:\n%s\n%s", name, step, p.SQL, text)
			}
		}
	}
}

// TestTermPagesEqualThePlainOrder: the pages of a term with few posts
// (looked up from the term) and of one with many (walked in order) hold
// exactly the rows, in the order, of the same page of the whole ordered
// list.
func TestTermPagesEqualThePlainOrder(t *testing.T) {
	t.Parallel()
	db, terms := planSite(t, 2500) // the common term has more posts than termPageMatches
	ctx := context.Background()
	for _, term := range []int64{terms.rare, terms.common} {
		for _, vis := range []*store.Visibility{anonSees, adminSees} {
			for _, order := range []string{"desc", "asc"} {
				q := store.PostQuery{Types: []string{"post"}, Visibility: vis, Order: order,
					Terms: []store.TermFilter{{Taxonomy: "category", IDs: []int64{term}}}}
				all, err := db.ListPosts(ctx, q) // no limit: the plain ordered query
				if err != nil {
					t.Fatal(err)
				}
				total, err := db.CountPosts(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if total != int64(len(all)) {
					t.Errorf("term %d: total %d, %d listed", term, total, len(all))
				}
				if term == terms.common && len(all) <= 2000 || term == terms.rare && len(all) == 0 {
					t.Fatalf("term %d has %d posts: the test needs a rare term and one over 2000", term, len(all))
				}
				checkPages(t, db, q, all, [][2]int{{10, 0}, {10, 10}, {3, 7}, {100, 1900}, {10, 5000}}, fmt.Sprintf("term %d", term))
			}
		}
	}
}

// TestPagesMergedByStatusEqualThePlainOrder: a page merged from one branch
// per status holds exactly the rows, in the order, of the same page of the
// whole ordered list, for every visibility, order, status set and page.
func TestPagesMergedByStatusEqualThePlainOrder(t *testing.T) {
	t.Parallel()
	db, _ := planSite(t, 700)
	ctx := context.Background()
	post := []string{"post"}
	for _, vis := range []*store.Visibility{anonSees, authorSees, adminSees, nil} {
		for _, statuses := range [][]string{nil, {"draft", "publish"}, {"private", "pending", "trash"}} {
			for _, order := range []string{"desc", "asc"} {
				q := store.PostQuery{Types: post, Statuses: statuses, Visibility: vis, Order: order}
				if vis == nil && statuses == nil {
					continue // any status: the plain query
				}
				all, err := db.ListPosts(ctx, q) // no limit: the plain ordered query
				if err != nil {
					t.Fatal(err)
				}
				checkPages(t, db, q, all, [][2]int{{10, 0}, {10, 10}, {7, 300}, {100, 650}, {10, 5000}}, fmt.Sprintf("statuses %v", statuses))
			}
		}
	}
}

// checkPages lists each page (limit, offset) of q and compares it with the
// same slice of all, the whole list in q's order.
func checkPages(t *testing.T, db *sqlstore.DB, q store.PostQuery, all []*store.Post, pages [][2]int, what string) {
	t.Helper()
	for _, pg := range pages {
		q.Limit, q.Offset = pg[0], pg[1]
		got, err := db.ListPosts(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want := all[min(pg[1], len(all)):min(pg[1]+pg[0], len(all))]
		if fmt.Sprint(ids(got)) != fmt.Sprint(ids(want)) {
			t.Errorf("%s, visibility %+v, order %s, page %v: %v, want %v", what, q.Visibility, q.Order, pg, ids(got), ids(want))
		}
	}
}

// TestCommentListingPlans: a page of comments, of one post or of the
// whole site, asks whether each comment's post may be read of that post
// alone, by its key: no statement reads the posts table whole. (Before,
// the readable posts were an IN list behind an OR: at a million posts
// PostgreSQL read them all again for each comment, 2 s for the comments
// of one post and 6 s for the latest comments; then an EXISTS, which at
// a hundred thousand posts PostgreSQL answered by hashing every readable
// post for each page, 170 ms.)
func TestCommentListingPlans(t *testing.T) {
	t.Parallel()
	db, site := planSite(t, 3000)
	ctx := context.Background()
	lite := storetest.Backend() == "sqlite"
	posts, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}, Visibility: anonSees, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		c := &store.Comment{PostID: posts[i%len(posts)].ID, Content: fmt.Sprintf("comment %d", i), Approved: "1", Type: "comment",
			Date: time.Date(2024, 1, 1, 0, i, 0, 0, time.UTC), DateGMT: time.Date(2024, 1, 1, 0, i, 0, 0, time.UTC)}
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// Two comments on each post of the site, older than those above, as
	// a site has: PostgreSQL then finds hashing every readable post
	// cheaper than looking each comment's post up, if the condition
	// lets it (170 ms a page at 100,000 posts).
	all, err := db.ListPosts(ctx, store.PostQuery{Types: []string{"post"}})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(tx store.Store) error {
		for i, p := range append(all, all...) {
			d := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
			c := &store.Comment{PostID: p.ID, Content: fmt.Sprintf("old comment %d", i), Approved: "1", Type: "comment", Date: d, DateGMT: d}
			if err := tx.InsertComment(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := site.analyze(); err != nil {
		t.Fatal(err)
	}
	anon := &store.CommentAccess{Types: []store.CommentTypeAccess{
		{Type: "post", Read: *anonSees}, {Type: "page", Read: *anonSees},
	}}
	byKey := [2]string{"SEARCH p USING INTEGER PRIMARY KEY", "Index Scan using posts_pkey on posts p"}
	tests := []struct {
		name string
		q    store.CommentQuery
	}{
		{"one post's comments, anonymous", store.CommentQuery{Posts: []int64{posts[3].ID}, Approved: []string{"1"}, Types: []string{"comment"}, Access: anon, Limit: 10}},
		{"latest comments, anonymous", store.CommentQuery{Approved: []string{"1"}, Types: []string{"comment"}, Access: anon, Order: "desc", Limit: 10}},
	}
	for _, tt := range tests {
		var got []*store.Comment
		plans, err := db.Plans(ctx, func(ctx context.Context) error {
			var err error
			got, err = db.ListComments(ctx, tt.q)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(got) != 10 {
			t.Errorf("%s: %d comments, want 10", tt.name, len(got))
		}
		want := byKey[1]
		if lite {
			want = byKey[0]
		}
		var all strings.Builder
		for _, p := range plans {
			all.WriteString(p.SQL + "\n" + p.String() + "\n")
			checkPlan(t, tt.name, p, lite, true) // a page of comments may be sorted
			// Every read of posts is a lookup by key.
			for _, step := range p.Steps {
				step = strings.TrimSpace(step)
				var bad bool
				if f := strings.Fields(step); lite {
					bad = len(f) > 1 && (f[0] == "SCAN" || f[0] == "SEARCH") && (f[1] == "p" || f[1] == "posts") && !strings.Contains(step, "INTEGER PRIMARY KEY")
				} else {
					bad = strings.Contains(step, " on posts") && !strings.Contains(step, "using posts_pkey on posts")
				}
				if bad {
					t.Errorf("%s: step %q reads posts other than by key:\n%s\n%s", tt.name, step, p.SQL, p.String())
				}
			}
		}
		if !strings.Contains(all.String(), want) {
			t.Errorf("%s: no plan uses %q:\n%s", tt.name, want, all.String())
		}
	}
}

// TestDeepPagesTakeTurns: a page past an offset that its month does not
// find (here in title order) takes a turn with the search counts
// (sqlstore.Gate), and is still the right slice of the order; pages
// before that offset, and deep pages in date order (found by their
// month), wait for nothing.
func TestDeepPagesTakeTurns(t *testing.T) {
	t.Parallel()
	db := openSQL(t)
	// Past the offset from which a page in date order is found by its
	// month (1,000), as the server's (5,000) is.
	db.SetDeepPagesGated(1010)
	db.SetSearchCountSlots(1)
	ctx := context.Background()
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 1100
	err := db.Tx(ctx, func(tx store.Store) error {
		for i := range n {
			d := start.Add(time.Duration(i) * 24 * time.Hour)
			// Titles in another order than the dates.
			p := &store.Post{Type: "post", Status: "publish", Slug: fmt.Sprintf("p%d", i),
				Title: fmt.Sprintf("Title %04d", (i*37)%n), Date: d, DateGMT: d}
			if err := tx.InsertPost(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	public := &store.Visibility{Public: []string{"publish"}}
	byTitle := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public, OrderBy: "title", Order: "asc"}
	all, err := db.ListPosts(ctx, byTitle)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n {
		t.Fatalf("%d posts listed, want %d", len(all), n)
	}
	pages := func(q store.PostQuery, offsets []int, want func(offset int) []*store.Post) {
		t.Helper()
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := q
				q.Limit, q.Offset = 10, offsets[i%len(offsets)]
				list, err := db.ListPosts(ctx, q)
				if err != nil {
					t.Error(err)
					return
				}
				if got, want := postIDs(list), postIDs(want(q.Offset)); !slices.Equal(got, want) {
					t.Errorf("%s order, offset %d: %v, want %v", q.OrderBy, q.Offset, got, want)
				}
			}()
		}
		wg.Wait()
	}
	fromAll := func(offset int) []*store.Post { return all[offset : offset+10] }
	pages(byTitle, []int{0, 500, 1000, 1010}, fromAll)
	byDate := byTitle
	byDate.OrderBy, byDate.Order = "", ""
	newest, err := db.ListPosts(ctx, byDate)
	if err != nil {
		t.Fatal(err)
	}
	pages(byDate, []int{1020, 1050, 1080}, func(offset int) []*store.Post { return newest[offset : offset+10] })
	if p := db.SearchCountPeak(); p != 0 {
		t.Fatalf("pages up to the offset, and deep pages by date, took %d turns at once, want none", p)
	}
	pages(byTitle, []int{1011, 1020, 1050, 1080}, fromAll)
	if p := db.SearchCountPeak(); p != 1 {
		t.Fatalf("deep pages by title: %d in the gate at once, want 1", p)
	}
}

// TestCommentCountsTakeTurns: the total of comments not narrowed to some
// posts that reads every comment it counts (a signed-in reader's) takes a
// turn with the search counts (sqlstore.Gate); the total of one post's
// comments, and a visitor's total (kept), wait for nothing. All are
// exact.
func TestCommentCountsTakeTurns(t *testing.T) {
	t.Parallel()
	db := openSQL(t)
	db.SetSearchCountSlots(1)
	ctx := context.Background()
	var posts []int64
	for i := range 3 {
		p := &store.Post{Type: "post", Status: "publish", Slug: fmt.Sprintf("p%d", i), Title: "Post"}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p.ID)
	}
	for i := range 30 {
		c := &store.Comment{PostID: posts[i%3], Content: "hello", Approved: "1", Type: "comment"}
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	anon := &store.CommentAccess{Types: []store.CommentTypeAccess{{Type: "post", Read: *anonSees}}}
	counts := func(q store.CommentQuery, want int64) {
		t.Helper()
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if n, err := db.CountComments(ctx, q); err != nil || n != want {
					t.Errorf("count %+v: %d (%v), want %d", q, n, err, want)
				}
			}()
		}
		wg.Wait()
	}
	counts(store.CommentQuery{Posts: []int64{posts[1]}, Approved: []string{"1"}, Access: anon}, 10)
	if p := db.SearchCountPeak(); p != 0 {
		t.Fatalf("one post's comments counted: %d turns at once, want none", p)
	}
	// A visitor's total of every comment is kept (comment_counts): no
	// turn either.
	counts(store.CommentQuery{Approved: []string{"1"}, Access: anon}, 30)
	if p := db.SearchCountPeak(); p != 0 {
		t.Fatalf("a visitor's total of every comment: %d turns at once, want none", p)
	}
	// A signed-in reader's (who may list its own held comments) reads
	// every comment it counts.
	signedIn := &store.CommentAccess{UserID: 2, Types: []store.CommentTypeAccess{{Type: "post", Read: *anonSees}}}
	counts(store.CommentQuery{Approved: []string{"1"}, Access: signedIn}, 30)
	if p := db.SearchCountPeak(); p != 1 {
		t.Fatalf("every post's comments counted: %d in the gate at once, want 1", p)
	}
}

// onePlan runs fn, which must run one statement, and returns its plan.
func onePlan(t *testing.T, db *sqlstore.DB, what string, fn func(ctx context.Context) error) sqlstore.Plan {
	t.Helper()
	plans, err := db.Plans(context.Background(), fn)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 {
		t.Fatalf("%d statements for %s, want 1", len(plans), what)
	}
	return plans[0]
}

// readsTable reports whether a plan step reads one of tables.
func readsTable(step string, lite bool, tables ...string) bool {
	step = strings.TrimSpace(step)
	f := strings.Fields(step)
	for _, table := range tables {
		if lite && len(f) > 1 && (f[0] == "SCAN" || f[0] == "SEARCH") && f[1] == table {
			return true
		}
		if !lite && strings.Contains(step, " on "+table+" ") || strings.HasSuffix(step, " on "+table) {
			return true
		}
	}
	return false
}
