package endpoints_test

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

// TestSubstringSearchOfCommentsUsersAndTermsOverHTTP: search on comments,
// users and tags matches a substring anywhere in a word, without ASCII or
// other letters' case, and its pages together list exactly X-API-Total
// items, each once; searches of one and two characters answer too. The comments are
// more than the SQLite index's queue holds (64), so that some are
// searched through the index and some through the queue.
func TestSubstringSearchOfCommentsUsersAndTermsOverHTTP(t *testing.T) {
	s := testkit.New(t)
	post := s.Post("editor", map[string]any{"title": "Orchard"})
	var apples, ecoles []int64
	for i := range 70 {
		text := fmt.Sprintf("Remark %d on the orchard", i)
		switch i % 7 {
		case 0:
			text = fmt.Sprintf("Pineapples, note %d", i)
		case 3:
			text = fmt.Sprintf("L'ÉCOLE, note %d", i)
		}
		id := s.Comment("editor", post, text, nil)
		if i%7 == 0 {
			apples = append(apples, id)
		}
		if i%7 == 3 {
			ecoles = append(ecoles, id)
		}
	}
	// all lists every page of route?query at per_page 3 and checks that
	// they hold X-API-Total items, each once.
	all := func(route, query, login string) []int64 {
		t.Helper()
		var got []int64
		total := -1
		for page := 1; page < 100; page++ {
			r := s.Do("GET", s.API(route)+"?"+query+"&per_page=3&page="+strconv.Itoa(page), login)
			if r.Status == 400 && page > 1 {
				break // past the last page
			}
			r.WantStatus(200)
			n, err := strconv.Atoi(r.Header.Get("X-API-Total"))
			if err != nil || total >= 0 && n != total {
				t.Fatalf("%s?%s page %d: X-API-Total %q, before %d", route, query, page, r.Header.Get("X-API-Total"), total)
			}
			total = n
			ids := r.IDs()
			if len(ids) == 0 {
				break
			}
			got = append(got, ids...)
		}
		slices.Sort(got)
		if len(got) != total || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("%s?%s: pages list %v, X-API-Total %d", route, query, got, total)
		}
		return got
	}
	q := func(search string) string { return "search=" + url.QueryEscape(search) }

	if got := all("/comments", q("NEAPPL"), ""); !slices.Equal(got, apples) {
		t.Errorf("comments matching NEAPPL: %v, want %v", got, apples)
	}
	if got := all("/comments", q("l'école"), ""); !slices.Equal(got, ecoles) {
		t.Errorf("comments matching l'école: %v, want %v", got, ecoles)
	}
	if got := all("/comments", q("ecole"), ""); len(got) != 0 {
		t.Errorf("comments matching ecole (no accent): %v, want none", got)
	}
	if got := all("/comments", q("%"), ""); len(got) != 0 {
		t.Errorf("comments matching %%: %v, want none", got)
	}
	if got := all("/comments", q("P"), ""); !slices.Equal(got, apples) {
		t.Errorf("comments matching P: %v, want %v", got, apples)
	}

	s.AddUserWith("gardener", "author", func(u *store.User) { u.DisplayName = "Zoë Gärtner" })
	if got := all("/users", q("GÄRTN"), "administrator"); !slices.Equal(got, []int64{s.ID("gardener")}) {
		t.Errorf("users matching GÄRTN: %v, want %d", got, s.ID("gardener"))
	}
	var tags []int64
	for _, name := range []string{"Gardening", "Rose garden", "Orchards"} {
		tags = append(tags, s.Term("editor", "tags", name, nil))
	}
	if got := all("/tags", q("ARDEN"), ""); !slices.Equal(got, tags[:2]) {
		t.Errorf("tags matching ARDEN: %v, want %v", got, tags[:2])
	}
	if got := all("/tags", q("CH"), ""); !slices.Equal(got, []int64{tags[2]}) {
		t.Errorf("tags matching CH: %v, want %v", got, tags[2:])
	}
}
