package wxrimport_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/folio-server/folio/internal/wxrimport"
)

// fingerprint describes a site's content independently of its ids: every
// post with its type, slug, status, parent, featured image, author and
// terms, every comment with its post, parent and status, every term with
// its parent and count, every user.
func fingerprint(t *testing.T, db store.Store) string {
	t.Helper()
	ctx := context.Background()
	posts, err := db.ListPosts(ctx, store.PostQuery{OrderBy: "id", Order: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]*store.Post{}
	var ids []int64
	for _, p := range posts {
		byID[p.ID] = p
		ids = append(ids, p.ID)
	}
	users, _ := db.ListUsers(ctx, store.UserQuery{})
	login := map[int64]string{}
	var lines []string
	for _, u := range users {
		login[u.ID] = u.Login
		lines = append(lines, fmt.Sprintf("user %s %v %q", u.Login, u.Roles, u.PassHash))
	}
	terms, err := db.PostTerms(ctx, ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := func(id int64) string {
		if p, ok := byID[id]; ok {
			return p.Type + "/" + p.Slug + "/" + p.Title
		}
		return fmt.Sprint(id)
	}
	for _, p := range posts {
		var ts []string
		for _, tm := range terms[p.ID] {
			ts = append(ts, tm.Taxonomy+":"+tm.Slug)
		}
		slices.Sort(ts)
		lines = append(lines, fmt.Sprintf("post %s %s parent=%s featured=%s author=%s sticky=%v format=%s comments=%d terms=%v date=%v",
			name(p.ID), p.Status, name(p.Parent), name(p.FeaturedMedia), login[p.Author], p.Sticky, p.Format, p.CommentCount, ts, p.DateGMT))
	}
	comments, _ := db.ListComments(ctx, store.CommentQuery{})
	cByID := map[int64]*store.Comment{}
	for _, c := range comments {
		cByID[c.ID] = c
	}
	for _, c := range comments {
		parent := ""
		if p := cByID[c.Parent]; p != nil {
			parent = p.AuthorName + "@" + p.DateGMT.String()
		}
		lines = append(lines, fmt.Sprintf("comment %s %s@%v parent=%s %s %s user=%s", name(c.PostID), c.AuthorName, c.DateGMT, parent, c.Approved, c.Type, login[c.AuthorID]))
	}
	all, _ := db.ListTerms(ctx, store.TermQuery{})
	tByID := map[int64]string{}
	for _, tm := range all {
		tByID[tm.ID] = tm.Slug
	}
	for _, tm := range all {
		lines = append(lines, fmt.Sprintf("term %s:%s parent=%s count=%d", tm.Taxonomy, tm.Slug, tByID[tm.Parent], tm.Count))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func diffLines(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+l)
		}
	}
	if len(out) > 20 {
		out = out[:20]
	}
	return strings.Join(out, "\n")
}

// TestInterruptedImportResumes cancels an import part-way (as Ctrl-C
// does) and runs it again: the site ends exactly as after one whole
// import.
func TestInterruptedImportResumes(t *testing.T) {
	t.Parallel()
	whole := newEnv(t)
	whole.mustImport(wxrimport.Options{}, themeUnit)
	want := fingerprint(t, whole.db)

	for _, stopAt := range []int{5, 150, 300} {
		t.Run(fmt.Sprint(stopAt), func(t *testing.T) {
			e := newEnv(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := e.importFiles(ctx, wxrimport.Options{Progress: func(p wxrimport.Progress) {
				if p.Records == stopAt {
					cancel()
				}
			}}, themeUnit)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted import: err = %v, want context.Canceled", err)
			}
			partial := fingerprint(t, e.db)
			if partial == want {
				t.Fatal("the interrupted import did everything")
			}
			sum := e.mustImport(wxrimport.Options{}, themeUnit)
			if got := fingerprint(t, e.db); got != want {
				t.Fatalf("resumed import differs from a whole one:\n%s", diffLines(want, got))
			}
			posts := sum.Kind("posts")
			if posts.Created+posts.Existing != 58 || posts.Existing == 0 && stopAt > 150 {
				t.Errorf("resumed run: %d posts created, %d existing", posts.Created, posts.Existing)
			}
		})
	}
}

// flakyStore fails the failAt-th comment insert, inside the transaction
// of the item being imported.
type flakyStore struct {
	store.Store
	calls  *atomic.Int64
	failAt int64
}

var errInjected = errors.New("injected failure")

func (f flakyStore) Tx(ctx context.Context, fn func(store.Store) error) error {
	return f.Store.Tx(ctx, func(tx store.Store) error {
		return fn(flakyStore{Store: tx, calls: f.calls, failAt: f.failAt})
	})
}

func (f flakyStore) InsertComment(ctx context.Context, c *store.Comment) error {
	if f.calls.Add(1) == f.failAt {
		return errInjected
	}
	return f.Store.InsertComment(ctx, c)
}

// TestFailedItemLeavesNothingAndRerunCompletes makes the 20th comment
// insert fail: the item being imported is rolled back whole (its post and
// the comments before the failing one are not stored), and a rerun ends as
// one whole import.
func TestFailedItemLeavesNothingAndRerunCompletes(t *testing.T) {
	t.Parallel()
	whole := newEnv(t)
	whole.mustImport(wxrimport.Options{}, themeUnit)
	want := fingerprint(t, whole.db)

	db := storetest.Open(t)
	flaky := bareSite(t, flakyStore{Store: db, calls: &atomic.Int64{}, failAt: 20})
	_, err := flaky.importFiles(context.Background(), wxrimport.Options{}, themeUnit)
	if !errors.Is(err, errInjected) {
		t.Fatalf("err = %v, want the injected failure", err)
	}
	ctx := context.Background()
	comments, _ := db.ListComments(ctx, store.CommentQuery{})
	posts := map[int64]bool{}
	for _, c := range comments {
		posts[c.PostID] = true
	}
	stored, _ := db.CountPosts(ctx, store.PostQuery{})
	// Every post stored has all its comments: the counts of a whole import
	// for the same slugs.
	for id := range posts {
		p, err := db.GetPost(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, fmt.Sprintf("post %s/%s/%s %s parent=", p.Type, p.Slug, p.Title, p.Status)) {
			continue
		}
		n, _ := db.CountComments(ctx, store.CommentQuery{Posts: []int64{id}})
		all, _ := whole.db.ListPosts(ctx, store.PostQuery{Slugs: []string{p.Slug}, Types: []string{p.Type}})
		if len(all) == 1 {
			m, _ := whole.db.CountComments(ctx, store.CommentQuery{Posts: []int64{all[0].ID}})
			if n != m {
				t.Errorf("post %q has %d comments after the failure, want all %d or none", p.Title, n, m)
			}
		}
	}
	if len(comments) >= 20 || stored == 0 {
		t.Fatalf("after the failure: %d comments, %d posts", len(comments), stored)
	}

	e := bareSite(t, db)
	e.mustImport(wxrimport.Options{}, themeUnit)
	if got := fingerprint(t, db); got != want {
		t.Fatalf("rerun after a failure differs from a whole import:\n%s", diffLines(want, got))
	}
}

// TestDryRunWritesNothingAndCountsLikeTheImport compares a dry run's
// summary with the real import's.
func TestDryRunWritesNothingAndCountsLikeTheImport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	before, _ := e.db.Version(context.Background())
	dry := e.mustImport(wxrimport.Options{DryRun: true}, themeUnit, "wordpress-importer/a11y-unit-test-data.xml")
	after, _ := e.db.Version(context.Background())
	if before != after {
		t.Fatalf("the dry run wrote (version %d → %d)", before, after)
	}
	real := e.mustImport(wxrimport.Options{}, themeUnit, "wordpress-importer/a11y-unit-test-data.xml")
	for _, k := range real.Kinds() {
		d, r := dry.Kind(k), real.Kind(k)
		if d.Created != r.Created || d.Existing != r.Existing || d.SkippedTotal() != r.SkippedTotal() {
			t.Errorf("%s: dry run %d/%d/%d, import %d/%d/%d (created/existing/skipped)", k,
				d.Created, d.Existing, d.SkippedTotal(), r.Created, r.Existing, r.SkippedTotal())
		}
	}
}
