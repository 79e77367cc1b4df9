package content_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// nodes is one site served by several content.Sites, each on its own
// handle of one database: on PostgreSQL its own connection pool, as
// separate `folio serve` processes have; on SQLite one file.
type nodes struct {
	t     *testing.T
	ctx   context.Context
	sites []*content.Site
	dbs   []storetest.Store
	admin *auth.User
}

func newNodes(t *testing.T, n int) *nodes {
	t.Helper()
	dbs := storetest.OpenN(t, n)
	ns := &nodes{t: t, ctx: context.Background(), dbs: dbs}
	admin := &store.User{Login: "admin", Email: "admin@example.com", Nicename: "admin", Registered: time.Now().UTC(), Roles: []string{"administrator"}}
	if err := dbs[0].InsertUser(ns.ctx, admin); err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs {
		site, err := content.NewSite(db, config.Default())
		if err != nil {
			t.Fatal(err)
		}
		ns.sites = append(ns.sites, site)
	}
	ns.admin = ns.sites[0].UserOf(admin)
	return ns
}

// run calls fn(i, site) for i in [0, n) from n goroutines, site being the
// node i falls on, and returns the errors by i.
func (ns *nodes) run(n int, fn func(i int, site *content.Site) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			errs[i] = fn(i, ns.sites[i%len(ns.sites)])
		}(i)
	}
	close(start)
	wg.Wait()
	return errs
}

func (ns *nodes) postType() *content.PostType {
	pt, ok := ns.sites[0].Types().Get("post")
	if !ok {
		ns.t.Fatal("no post type")
	}
	return pt
}

// TestConcurrentCreatesWithOneTitleGetDistinctSlugs: posts created at once
// on three nodes with the same title, and with slugs that are candidates
// of that title's slug ("same-title-2"), all get slugs of their own.
func TestConcurrentCreatesWithOneTitleGetDistinctSlugs(t *testing.T) {
	t.Parallel()
	ns := newNodes(t, 3)
	pt := ns.postType()
	const n = 24
	errs := ns.run(n, func(i int, site *content.Site) error {
		in := content.PostInput{Title: ptr("Same Title"), Status: ptr("publish")}
		if i%6 == 5 {
			in.Slug = ptr("same-title-2")
		}
		_, _, err := site.CreatePost(ns.ctx, ns.admin, pt, in, "http://example.com")
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	posts, err := ns.dbs[0].ListPosts(ns.ctx, store.PostQuery{Types: []string{"post"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(posts) != n {
		t.Fatalf("%d posts, want %d", len(posts), n)
	}
	seen := map[string]int64{}
	for _, p := range posts {
		if other, ok := seen[p.Slug]; ok {
			t.Fatalf("posts %d and %d both have slug %q", other, p.ID, p.Slug)
		}
		seen[p.Slug] = p.ID
	}
	if _, ok := seen["same-title"]; !ok {
		t.Errorf("no post has the plain slug: %v", seen)
	}
}

// TestConcurrentTermsWithOneNameMakeOneTerm: categories named alike
// created at once on three nodes make one term; every other request gets
// term_exists, as it would one after the other.
func TestConcurrentTermsWithOneNameMakeOneTerm(t *testing.T) {
	t.Parallel()
	ns := newNodes(t, 3)
	tax, ok := ns.sites[0].Taxonomies().Get("category")
	if !ok {
		t.Fatal("no category taxonomy")
	}
	const n = 12
	errs := ns.run(n, func(i int, site *content.Site) error {
		_, err := site.CreateTerm(ns.ctx, tax, content.TermInput{Name: ptr("Breaking News")}, nil)
		return err
	})
	created := 0
	for i, err := range errs {
		switch code := errCode(err); {
		case err == nil:
			created++
		case code != "term_exists":
			t.Errorf("create %d: %v (code %q), want term_exists", i, err, code)
		}
	}
	if created != 1 {
		t.Errorf("%d requests created the term, want 1", created)
	}
	terms, err := ns.dbs[0].ListTerms(ns.ctx, store.TermQuery{Taxonomy: "category", Names: []string{"Breaking News"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) != 1 || terms[0].Slug != "breaking-news" {
		t.Errorf("terms named Breaking News: %+v, want one with slug breaking-news", terms)
	}
}

// TestConcurrentUsersWithOneLoginMakeOneUser: accounts with the same
// login (and others with the same email) created at once on three nodes
// make one user each; the rest get the errors a later request gets.
func TestConcurrentUsersWithOneLoginMakeOneUser(t *testing.T) {
	t.Parallel()
	ns := newNodes(t, 3)
	const n = 12
	errs := ns.run(n, func(i int, site *content.Site) error {
		in := content.UserInput{Password: ptr("Secret-pass-1234")}
		if i%2 == 0 {
			in.Username, in.Email = ptr("sam"), ptr(fmt.Sprintf("sam%d@example.com", i))
		} else {
			in.Username, in.Email = ptr(fmt.Sprintf("kim%d", i)), ptr("Kim@Example.com")
		}
		_, err := site.CreateUser(ns.ctx, ns.admin, in, nil)
		return err
	})
	byLogin, byEmail := 0, 0
	for i, err := range errs {
		want := "existing_user_login"
		if i%2 == 1 {
			want = "existing_user_email"
		}
		switch code := errCode(err); {
		case err == nil && i%2 == 0:
			byLogin++
		case err == nil:
			byEmail++
		case code != want:
			t.Errorf("create %d: %v (code %q), want %s", i, err, code, want)
		}
	}
	if byLogin != 1 || byEmail != 1 {
		t.Errorf("created %d users named sam and %d with kim@example.com, want 1 and 1", byLogin, byEmail)
	}
	users, err := ns.dbs[0].ListUsers(ns.ctx, store.UserQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 3 {
		t.Errorf("%d users, want admin, sam and one kim", len(users))
	}
}

// TestCountsStayExactUnderConcurrentWrites: creates, unpublishes,
// republishes and deletes running at once on three nodes, then status
// changes of the same posts from every node at once, leave the
// per-type-and-status totals (post_counts), every term's count and every
// term's totals per status (term_post_counts) equal to counting the posts
// themselves.
func TestCountsStayExactUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	ns := newNodes(t, 3)
	pt := ns.postType()
	tax, _ := ns.sites[0].Taxonomies().Get("post_tag")
	var tags []int64
	for _, name := range []string{"red", "green", "blue"} {
		tag, err := ns.sites[0].CreateTerm(ns.ctx, tax, content.TermInput{Name: ptr(name)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tags = append(tags, tag.ID)
	}
	const n = 30
	errs := ns.run(n, func(i int, site *content.Site) error {
		in := content.PostInput{Title: ptr(fmt.Sprintf("Post %d", i)), Status: ptr("publish"),
			Terms: map[string][]int64{"post_tag": {tags[i%3], tags[(i+1)%3]}}}
		p, _, err := site.CreatePost(ns.ctx, ns.admin, pt, in, "http://example.com")
		if err != nil {
			return err
		}
		switch i % 5 {
		case 1: // unpublished
			_, err = site.UpdatePost(ns.ctx, ns.admin, p, content.PostInput{Status: ptr("draft")})
		case 2: // unpublished, then published again with other tags
			if p, err = site.UpdatePost(ns.ctx, ns.admin, p, content.PostInput{Status: ptr("draft")}); err == nil {
				_, err = site.UpdatePost(ns.ctx, ns.admin, p, content.PostInput{Status: ptr("publish"),
					Terms: map[string][]int64{"post_tag": {tags[(i+2)%3]}}})
			}
		case 3:
			err = site.DeletePost(ns.ctx, p)
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	// Then the same few posts are published and unpublished at once from
	// every node: each write counts from the status it finds locked.
	few, err := ns.dbs[0].ListPosts(ns.ctx, store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Limit: 3})
	if err != nil || len(few) != 3 {
		t.Fatalf("%d published posts (%v), want 3", len(few), err)
	}
	errs = ns.run(24, func(i int, site *content.Site) error {
		p, ok, err := site.GetPost(ns.ctx, few[i%3].ID)
		if err != nil || !ok {
			return fmt.Errorf("get post %d: %v %v", few[i%3].ID, ok, err)
		}
		status := "draft"
		if i%2 == 1 {
			status = "publish"
		}
		_, err = site.UpdatePost(ns.ctx, ns.admin, p, content.PostInput{Status: &status})
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("flip %d: %v", i, err)
		}
	}
	db := ns.dbs[1]
	// totalIsListed checks that the total of the posts of each status,
	// with the term filters given, is the number of posts listed.
	totalIsListed := func(what string, terms ...store.TermFilter) {
		t.Helper()
		for _, status := range []string{"publish", "draft"} {
			q := store.PostQuery{Types: []string{"post"}, Statuses: []string{status}, Terms: terms}
			total, err := db.CountPosts(ns.ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			posts, err := db.ListPosts(ns.ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if total != int64(len(posts)) {
				t.Errorf("%s, %s posts: total %d, but %d posts", what, status, total, len(posts))
			}
		}
	}
	totalIsListed("every post")
	set, err := ns.sites[0].Settings(ns.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []store.TermFilter{{Taxonomy: "post_tag", IDs: tags[:1]}, {Taxonomy: "post_tag", IDs: tags[1:2]},
		{Taxonomy: "post_tag", IDs: tags[2:]}, {Taxonomy: "category", IDs: []int64{set.DefaultCategory}}} {
		term, err := db.GetTerm(ns.ctx, f.IDs[0])
		if err != nil {
			t.Fatal(err)
		}
		posts, err := db.ListPosts(ns.ctx, store.PostQuery{Statuses: []string{"publish"}, Terms: []store.TermFilter{f}})
		if err != nil {
			t.Fatal(err)
		}
		if term.Count != int64(len(posts)) {
			t.Errorf("term %s: count %d, but %d published posts have it", term.Name, term.Count, len(posts))
		}
		// The collection's total of the term (term_post_counts) too.
		totalIsListed("term "+term.Name, f)
	}
}
