package storetest_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// substringPlanner is the store's hook that forces the plans of the
// substring searches of users, terms and comments (sqlstore.DB).
type substringPlanner interface {
	SetSubstringPlans(window, share int)
}

// substringPlans are the plans a search of three characters or more may
// take: the store's own choice, always the index's candidates, never.
var substringPlans = []struct {
	name  string
	share int
}{{"chosen", 4}, {"index", 0}, {"rows", -1}}

// substringMatch is the rule of docs/search.md, written out: an ASCII
// search matches a column holding it with ASCII letters folded, another
// search one holding it with every letter folded (the test's texts fold
// the same under Go's and ICU's lower case).
func substringMatch(search string, cols ...string) bool {
	ascii := utf8.ValidString(search) && !strings.ContainsFunc(search, func(r rune) bool { return r >= utf8.RuneSelf })
	for _, c := range cols {
		if ascii && strings.Contains(foldASCIIForTest(c), foldASCIIForTest(search)) ||
			!ascii && strings.Contains(strings.ToLower(c), strings.ToLower(search)) {
			return true
		}
	}
	return false
}

func foldASCIIForTest(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// substringTexts are the texts the substring tests store, each with
// searches it must and must not answer.
var substringTexts = []string{
	"Pineapple pie",      // "ppl" inside a word, "APPLE" without case
	"École du soir",      // "ÉCOLE", "école" and "cole" (after É) match; "ecole" does not
	"ÉCOLE PRIMAIRE",     // "école" matches its capitals
	"\u212Aelvin scale",  // KELVIN SIGN: an ASCII search ("kelvin") does not match it, one with the sign matches it and "kelvin"
	"kelvin",             // plain
	"100% sure",          // "0%" literal
	"100 percent",        // no "%"
	"snake_case",         // "e_c" literal
	"snakeXcase",         // "_" is no wildcard
	`back\slash`,         // "k\s" literal
	"backslash",          // no backslash
	`say "hi" twice`,     // quotes in a search
	"Жёлтый дом",         // Cyrillic: "ЖЁЛТ" matches
	"line one\nline two", // a line feed inside a column
	"zz",                 // too short for a trigram
	"",                   // empty
	"a long comment about gardens, tomatoes and the weather in the spring of that year",
}

// substringSearches are searched on every plan.
var substringSearches = []string{
	"ppl", "APPLE", "pineapple pie", "ÉCOLE", "école", "cole", "ecole", "PRIMAIRE",
	"kelvin", "KELVIN", "\u212Aelvin", "0%", "%", "100%", "e_c", "_", `k\s`, `\`, `"hi"`, `say "`,
	"ЖЁЛТ", "дом", "e one\nline", "zz", "z", "ab", "...", "@@@", "nothing here",
	"tomatoes and the weather in the spring", "a long comment about gardens, tomatoes and the weather in the spring of that year",
}

// TestSubstringSearchOfCommentsMatchesLikeOnEveryPlan: a comment search
// finds exactly the comments whose author name, URL or content (and, for
// moderators only, author email or IP) contain the search, ASCII letters
// folded (every letter, for a search with other letters), with %, _ and \
// taken literally: whether the store reads the index's candidates or the
// rows, with comments written to the index and comments still queued for
// it, changed and deleted ones, and totals equal to the lists.
func TestSubstringSearchOfCommentsMatchesLikeOnEveryPlan(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	post := &store.Post{Type: "post", Status: "publish", Author: 1, Title: "p"}
	if err := db.InsertPost(ctx, post); err != nil {
		t.Fatal(err)
	}
	// 150 comments: more than two flushes of the SQLite queue (64), so
	// that some are in the index and some queued when searched.
	var all []*store.Comment
	for i := range 150 {
		text := substringTexts[i%len(substringTexts)]
		c := &store.Comment{PostID: post.ID, Approved: "1", Type: "comment", Date: at(2020, 1, 1, i%24), DateGMT: at(2020, 1, 1+i/24, i%24)}
		switch i % 3 {
		case 0:
			c.Content = text
		case 1:
			c.AuthorName = text
		default:
			c.AuthorURL = text
		}
		if i%5 == 0 {
			c.AuthorEmail = fmt.Sprintf("hidden.person%d@example.org", i)
			c.AuthorIP = fmt.Sprintf("198.51.100.%d", i)
		}
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		all = append(all, c)
	}
	check := func(stage string) {
		t.Helper()
		for _, search := range append(slices.Clone(substringSearches), "hidden.person1", "198.51.100.1", "EXAMPLE.ORG") {
			for _, private := range []bool{false, true} {
				var want []int64
				for _, c := range all {
					cols := []string{c.AuthorName, c.AuthorURL, c.Content}
					if private {
						cols = append(cols, c.AuthorEmail, c.AuthorIP)
					}
					if c.ID != 0 && substringMatch(search, cols...) {
						want = append(want, c.ID)
					}
				}
				for _, plan := range substringPlans {
					db.(substringPlanner).SetSubstringPlans(10000, plan.share)
					q := store.CommentQuery{Search: search, SearchPrivate: private, OrderBy: "id"}
					what := fmt.Sprintf("%s: search %q, private %v, plan %s", stage, search, private, plan.name)
					got, err := db.ListComments(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if !slices.Equal(commentIDs(got), nonNil(want)) {
						t.Errorf("%s: %v, want %v", what, commentIDs(got), want)
					}
					n, err := db.CountComments(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if n != int64(len(want)) {
						t.Errorf("%s: total %d, want %d", what, n, len(want))
					}
					// A page in another order: the same rows as that
					// slice of the whole list in that order.
					q.OrderBy, q.Order, q.Limit, q.Offset = "date_gmt", "desc", 3, 2
					page, err := db.ListComments(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					q.Limit, q.Offset = 0, 0
					whole, err := db.ListComments(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if w := whole[min(2, len(whole)):min(5, len(whole))]; !slices.Equal(commentIDs(page), commentIDs(w)) {
						t.Errorf("%s: page 2 of 3 by date %v, want %v", what, commentIDs(page), commentIDs(w))
					}
				}
			}
		}
	}
	check("inserted")

	// Changed and deleted comments, both indexed (the first ones) and
	// queued (the last ones).
	for _, i := range []int{0, 1, 2, 3, 148, 149} {
		c := all[i]
		c.Content, c.AuthorName, c.AuthorURL = "pear tart", c.AuthorURL, "https://example.net/"+strconv.Itoa(i)
		c.AuthorEmail = "changed@example.com"
		if err := db.UpdateComment(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{4, 5, 147} {
		if err := db.DeleteComment(ctx, all[i].ID); err != nil {
			t.Fatal(err)
		}
		all[i] = &store.Comment{}
	}
	check("changed")
	// More comments, so that the queue holding the changes is flushed.
	for i := range 70 {
		c := &store.Comment{PostID: post.ID, Approved: "1", Type: "comment", Content: fmt.Sprintf("later pear %d", i), DateGMT: at(2021, 1, 1, 0)}
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		all = append(all, c)
	}
	check("flushed")
	for _, s := range []string{"pear", "changed@example", "hidden.person1"} {
		db.(substringPlanner).SetSubstringPlans(10000, 4)
		n, err := db.CountComments(ctx, store.CommentQuery{Search: s, SearchPrivate: true})
		if err != nil || n == 0 {
			t.Errorf("search %q matches %d comments, %v: the test needs matches", s, n, err)
		}
	}
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// TestSubstringSearchOfUsersAndTermsMatchesLikeOnEveryPlan: a user search
// finds exactly the users whose URL, nicename or display name (and, with
// list_users only, login or email) contain the search, or whose id it is;
// a term search the terms of the taxonomy whose name or slug contain it;
// on every plan, with totals equal to the lists.
func TestSubstringSearchOfUsersAndTermsMatchesLikeOnEveryPlan(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	var users []*store.User
	for i := range 90 {
		text := substringTexts[i%len(substringTexts)]
		u := &store.User{Login: fmt.Sprintf("login%d", i), Email: fmt.Sprintf("mail%d@private.example", i),
			Nicename: fmt.Sprintf("nice-%d", i), Registered: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}
		if i%2 == 0 {
			u.DisplayName = text
		} else {
			u.URL = text
		}
		if i == 7 {
			u.Login = "Geheim-Ölwechsel"
		}
		if err := db.InsertUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	var terms []*store.Term
	for i := range 90 {
		tm := &store.Term{Taxonomy: "post_tag", Name: substringTexts[i%len(substringTexts)], Slug: fmt.Sprintf("slug-%d", i)}
		if i%4 == 3 {
			tm.Taxonomy = "category" // the other taxonomy's terms never match
		}
		if err := db.InsertTerm(ctx, tm); err != nil {
			t.Fatal(err)
		}
		terms = append(terms, tm)
	}
	// A change and a delete each.
	users[2].DisplayName = "pear tart"
	if err := db.UpdateUser(ctx, users[2]); err != nil {
		t.Fatal(err)
	}
	terms[0].Name = "pear tart"
	if err := db.UpdateTerm(ctx, terms[0]); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteUser(ctx, users[4].ID); err != nil {
		t.Fatal(err)
	}
	users[4] = &store.User{}
	searches := append(slices.Clone(substringSearches), "pear", "private.example", "ÖLWECHSEL", "slug-1", "nice-8", "3", "12", strconv.FormatInt(users[50].ID, 10))
	for _, search := range searches {
		for _, plan := range substringPlans {
			db.(substringPlanner).SetSubstringPlans(10000, plan.share)
			for _, accounts := range []bool{false, true} {
				var want []int64
				for _, u := range users {
					cols := []string{u.URL, u.Nicename, u.DisplayName}
					if accounts {
						cols = append(cols, u.Login, u.Email)
					}
					if u.ID != 0 && (substringMatch(strings.TrimSpace(search), cols...) || strconv.FormatInt(u.ID, 10) == strings.TrimSpace(search)) {
						want = append(want, u.ID)
					}
				}
				q := store.UserQuery{Search: search, SearchAccounts: accounts, OrderBy: "id"}
				what := fmt.Sprintf("users: search %q, accounts %v, plan %s", search, accounts, plan.name)
				got, err := db.ListUsers(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				n, err := db.CountUsers(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if strings.TrimSpace(search) == "" {
					continue
				}
				if !slices.Equal(userIDs(got), nonNil(want)) || n != int64(len(want)) {
					t.Errorf("%s: %v (total %d), want %v", what, userIDs(got), n, want)
				}
			}
			var want []int64
			for _, tm := range terms {
				if tm.Taxonomy == "post_tag" && substringMatch(strings.TrimSpace(search), tm.Name, tm.Slug) {
					want = append(want, tm.ID)
				}
			}
			q := store.TermQuery{Taxonomy: "post_tag", Search: search, OrderBy: "id"}
			what := fmt.Sprintf("terms: search %q, plan %s", search, plan.name)
			got, err := db.ListTerms(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			n, err := db.CountTerms(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !slices.Equal(termIDs(got), nonNil(want)) || n != int64(len(want)) {
				t.Errorf("%s: %v (total %d), want %v", what, termIDs(got), n, want)
			}
		}
	}
}

// TestShortSubstringSearchReadsTheNewestRows: a search of one or two
// characters, which no trigram index serves, reads the newest rows of the
// table (of the taxonomy, for terms) up to a bound, here lowered to 4:
// it finds what those rows hold, totals agree with the lists, and a
// longer search still reads every row.
func TestShortSubstringSearchReadsTheNewestRows(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	post := &store.Post{Type: "post", Status: "publish", Author: 1, Title: "p"}
	if err := db.InsertPost(ctx, post); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 10 {
		c := &store.Comment{PostID: post.ID, Approved: "1", Type: "comment", Content: fmt.Sprintf("xy comment %d", i), DateGMT: at(2020, 1, 1, i)}
		if i == 8 {
			c.Approved = "0" // in the window, but not approved
		}
		if err := db.InsertComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		tm := &store.Term{Taxonomy: "post_tag", Name: fmt.Sprintf("xy tag %d", i), Slug: fmt.Sprintf("t%d", i)}
		if err := db.InsertTerm(ctx, tm); err != nil {
			t.Fatal(err)
		}
		// Newer terms of another taxonomy are not in the tags' window.
		if err := db.InsertTerm(ctx, &store.Term{Taxonomy: "category", Name: fmt.Sprintf("xy cat %d", i), Slug: fmt.Sprintf("c%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	db.(substringPlanner).SetSubstringPlans(4, 4)
	for _, tc := range []struct {
		search string
		want   []int64
	}{
		{"xy", []int64{ids[6], ids[7], ids[9]}},
		{"X", []int64{ids[6], ids[7], ids[9]}},
		{"9", []int64{ids[9]}},
		{"1", []int64{}},
		{"xy ", []int64{ids[0], ids[1], ids[2], ids[3], ids[4], ids[5], ids[6], ids[7], ids[9]}},
		{"t 1", []int64{ids[1]}},
	} {
		q := store.CommentQuery{Search: tc.search, Approved: []string{"1"}, OrderBy: "id"}
		got, err := db.ListComments(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		n, err := db.CountComments(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(commentIDs(got), tc.want) || n != int64(len(tc.want)) {
			t.Errorf("comments %q: %v (total %d), want %v", tc.search, commentIDs(got), n, tc.want)
		}
	}
	tags, err := db.ListTerms(ctx, store.TermQuery{Taxonomy: "post_tag", Search: "XY", OrderBy: "id"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := db.CountTerms(ctx, store.TermQuery{Taxonomy: "post_tag", Search: "XY"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 4 || n != 4 || tags[0].Name != "xy tag 6" || tags[3].Name != "xy tag 9" {
		t.Errorf("tags %q: %v (total %d), want the 4 newest tags", "XY", termIDs(tags), n)
	}
}
