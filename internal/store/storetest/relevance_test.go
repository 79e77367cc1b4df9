package storetest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// relevanceCorpus is inserted in order, post i+1 with id i+1 and dated i
// days after the first, so that the newest posts come first in date
// order: the reverse of the tiers below for a search of "red apple".
var relevanceCorpus = []struct{ title, excerpt, content, password string }{
	{"Red apples baked", "", "oven", ""},                       // 1: the whole search in the title
	{"Apple, red and green", "", "", ""},                       // 2: every term in the title
	{"A red car", "", "an apple a day", ""},                    // 3: one term in the title
	{"Orchard", "the red apple tree", "", ""},                  // 4: the whole search in the excerpt
	{"Market", "", "one red apple, please", ""},                // 5: the whole search in the content
	{"Kitchen", "", "apple pie, red wine", ""},                 // 6: the words apart
	{"Vault", "", "a red apple in the safe", "pw"},             // 7: protected: 5 for who may read it
	{"Red apple again", "", "", ""},                            // 8: the whole search in the title
	{"Unrelated", "", "pears only", ""},                        // 9: no match
	{"Cellar", "red apple cider", "", ""},                      // 10: the whole search in the excerpt
	{"Draft apple red", "", "", ""},                            // 11: a draft: not listed
	{"Green apple", "", "and a red one beside", ""},            // 12: one term in the title
	{"Apple red car", "", "", ""},                              // 13: every term in the title
	{"Bakery", "", "red appleberry tart", ""},                  // 14: "apple" begins "appleberry": 5
	{"Private note", "", "red apple", "secret"},                // 15: protected: 5 for an editor
	{"Red", "", "apple", ""},                                   // 16: one term in the title
	{"Apple", "", "red", ""},                                   // 17: one term in the title
	{"Applesauce, redundant", "", "", ""},                      // 18: prefixes, every term in the title
	{"Crimson", "", "red, apple", ""},                          // 19: "red, apple" is the phrase: 5
	{"Last red apple of the season", "", "", ""},               // 20: the whole search in the title
	{"Nothing here", "", "redapple as one word only", ""},      // 21: no match ("apple" begins no word)
	{"Wordy", "", "red and then much later an apple", ""},      // 22: the words apart
	{"Strapped", "", "the red, apple and more", "pw"},          // 23: protected: 5 for who may read it
	{"Apples", "", "reds", ""},                                 // 24: one term in the title
	{"Red apple, last", "", "", ""},                            // 25: the whole search in the title
	{"Orchard two", "a red apple here", "red apple there", ""}, // 26: the whole search in the excerpt
}

func seedRelevanceCorpus(t *testing.T, db store.Store) {
	t.Helper()
	ctx := context.Background()
	day := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, c := range relevanceCorpus {
		d := day.AddDate(0, 0, i)
		status := "publish"
		if i+1 == 11 {
			status = "draft"
		}
		p := &store.Post{Type: "post", Status: status, Title: c.title, Excerpt: c.excerpt, Content: c.content,
			Password: c.password, Slug: fmt.Sprintf("r%d", i+1), Date: d, DateGMT: d, Modified: d, ModifiedGMT: d}
		if err := db.InsertPost(ctx, p); err != nil {
			t.Fatal(err)
		}
		if p.ID != int64(i+1) {
			t.Fatalf("post %d got id %d", i+1, p.ID)
		}
	}
}

// byTiers returns the ids of tiers, best first, each tier newest first
// (the corpus's ids grow with its dates).
func byTiers(tiers ...[]int64) []int64 {
	var out []int64
	for _, tier := range tiers {
		tier = slices.Clone(tier)
		slices.SortFunc(tier, func(a, b int64) int { return int(b - a) })
		out = append(out, tier...)
	}
	return out
}

// TestSearchByRelevance lists searches by relevance on both stores, every
// page size, and checks the order of WordPress's tiers, the protected
// posts' place (their hidden text never lifts them), the totals, and the
// date-ordered tail after the ranked matches.
func TestSearchByRelevance(t *testing.T) {
	t.Parallel()
	db := openSQL(t)
	seedRelevanceCorpus(t, db)
	ctx := context.Background()
	public := &store.Visibility{Public: []string{"publish"}}
	for _, tc := range []struct {
		name, search, password string
		protected              *store.Visibility
		want                   []int64
	}{
		// A protected post the caller may not read is matched on its
		// title alone, so 7, 15 and 23 are only listed for a caller who
		// may read them.
		{name: "two words", search: "red apple", want: byTiers(
			[]int64{1, 8, 20, 25}, []int64{2, 13, 18}, []int64{3, 12, 16, 17, 24}, []int64{4, 10, 26},
			[]int64{5, 14, 19}, []int64{6, 22})},
		{name: "with the password", search: "red apple", password: "pw", want: byTiers(
			[]int64{1, 8, 20, 25}, []int64{2, 13, 18}, []int64{3, 12, 16, 17, 24}, []int64{4, 10, 26},
			[]int64{5, 7, 14, 19, 23}, []int64{6, 22})},
		{name: "an editor reads every text", search: "red apple", protected: public, want: byTiers(
			[]int64{1, 8, 20, 25}, []int64{2, 13, 18}, []int64{3, 12, 16, 17, 24}, []int64{4, 10, 26},
			[]int64{5, 7, 14, 15, 19, 23}, []int64{6, 22})},
		{name: "one word", search: "apple", want: byTiers(
			[]int64{1, 2, 8, 12, 13, 17, 18, 20, 24, 25}, []int64{3, 4, 5, 6, 10, 14, 16, 19, 22, 26})},
		{name: "one phrase", search: `"red apple"`, want: byTiers(
			[]int64{1, 8, 20, 25}, []int64{4, 5, 10, 14, 19, 26})},
		// An excluded term drops the whole-search tiers: 1, 8, 20 and 25
		// fall to every term in the title, 4, 5, 10, 14, 19 and 26 to the
		// rest.
		{name: "excluded term", search: "red apple -car", want: byTiers(
			[]int64{1, 2, 8, 18, 20, 25}, []int64{12, 16, 17, 24}, []int64{4, 5, 6, 10, 14, 19, 22, 26})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public,
				Search: tc.search, SearchPassword: tc.password, SearchProtected: tc.protected, OrderBy: "relevance", Order: "desc"}
			total, err := db.CountPosts(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if total != int64(len(tc.want)) {
				t.Errorf("total %d, want %d", total, len(tc.want))
			}
			for _, per := range []int{1, 2, 3, 7, 100} {
				if got := relevancePages(t, db, q, per); !slices.Equal(got, tc.want) {
					t.Errorf("%d a page:\n got %v\nwant %v", per, got, tc.want)
				}
			}
		})
	}

	// Ranking only the newest 5 matches of "apple" (26, 25, 24, 22, 20):
	// 25, 24 and 20 have it in the title. The older matches follow in
	// date order.
	t.Run("ranked newest matches, then dates", func(t *testing.T) {
		db.SetRelevanceRanked(5)
		t.Cleanup(func() { db.SetRelevanceRanked(200) })
		q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public,
			Search: "apple", OrderBy: "relevance", Order: "desc"}
		want := []int64{25, 24, 20, 26, 22, 19, 18, 17, 16, 14, 13, 12, 10, 8, 6, 5, 4, 3, 2, 1}
		for _, per := range []int{1, 2, 3, 4, 6, 100} {
			if got := relevancePages(t, db, q, per); !slices.Equal(got, want) {
				t.Errorf("%d a page:\n got %v\nwant %v", per, got, want)
			}
		}
	})

	// From seven terms on, the title tiers are left out and the phrase
	// tiers decide: a protected post's hidden text must not lift it for a
	// caller who may not read it (both are matched on their titles).
	t.Run("protected text ranks only for its readers", func(t *testing.T) {
		day := time.Date(2024, 2, 1, 12, 0, 0, 0, time.UTC)
		var ids []int64
		for i, p := range []*store.Post{
			{Title: "seven six five four three two one", Content: "one two three four five six seven", Password: "pw"},
			{Title: "seven six five four three two one", Content: "nothing in order"},
		} {
			d := day.AddDate(0, 0, i)
			p.Type, p.Status, p.Slug, p.Date, p.DateGMT = "post", "publish", fmt.Sprintf("seven%d", i), d, d
			if err := db.InsertPost(ctx, p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public,
			Search: "one two three four five six seven", OrderBy: "relevance", Order: "desc"}
		if got, want := relevancePages(t, db, q, 10), []int64{ids[1], ids[0]}; !slices.Equal(got, want) {
			t.Errorf("without the password: got %v, want %v", got, want)
		}
		q.SearchPassword = "pw"
		if got, want := relevancePages(t, db, q, 10), []int64{ids[0], ids[1]}; !slices.Equal(got, want) {
			t.Errorf("with the password: got %v, want %v", got, want)
		}
	})

	// Without a search, relevance is date order.
	t.Run("no search", func(t *testing.T) {
		q := store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}, Visibility: public, OrderBy: "relevance", Order: "desc", Limit: 3}
		posts, err := db.ListPosts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := postIDs(posts); !slices.Equal(got, []int64{26, 25, 24}) {
			t.Errorf("got %v", got)
		}
	})
}

// relevancePages lists q page by page, per posts a page, until a short
// page, and returns the ids in order.
func relevancePages(t *testing.T, db store.Store, q store.PostQuery, per int) []int64 {
	t.Helper()
	var out []int64
	for off := 0; ; off += per {
		q.Offset, q.Limit = off, per
		posts, err := db.ListPosts(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, postIDs(posts)...)
		if len(posts) < per {
			return out
		}
		if off > 1000 {
			t.Fatal("no end")
		}
	}
}

func postIDs(posts []*store.Post) []int64 {
	out := make([]int64, len(posts))
	for i, p := range posts {
		out[i] = p.ID
	}
	return out
}
