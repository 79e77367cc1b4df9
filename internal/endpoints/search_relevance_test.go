package endpoints_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/folio-server/folio/internal/testkit"
)

// TestSearchByRelevanceOverHTTP: orderby=relevance lists a search's best
// matches first (the whole search in the title, every term in it, one
// term in it, the whole search in the excerpt, then in the content, then
// the rest), each tier newest first, through pages and filter[orderby];
// without a search it is refused as later WordPress refuses it.
func TestSearchByRelevanceOverHTTP(t *testing.T) {
	s := testkit.New(t)
	// Created best first, so that date order is the reverse of relevance.
	whole := s.Post("editor", map[string]any{"title": "Red apple pie"})
	every := s.Post("editor", map[string]any{"title": "Apple, red and green"})
	one := s.Post("editor", map[string]any{"title": "A red car", "content": "an apple a day"})
	excerpt := s.Post("editor", map[string]any{"title": "Orchard", "excerpt": "the red apple tree"})
	body := s.Post("editor", map[string]any{"title": "Market", "content": "one red apple, please"})
	apart := s.Post("editor", map[string]any{"title": "Kitchen", "content": "apple pie, red wine"})
	s.Post("editor", map[string]any{"title": "Unrelated", "content": "pears"})

	list := func(query string, want ...int64) *testkit.Response {
		t.Helper()
		r := s.Do("GET", s.API("/posts")+"?"+query, "").WantStatus(200)
		if got := r.IDs(); !slices.Equal(got, want) {
			t.Errorf("%s: ids %v, want %v", query, got, want)
		}
		return r
	}
	search := "search=" + url.QueryEscape("red apple")
	r := list(search+"&orderby=relevance", whole, every, one, excerpt, body, apart)
	if got := r.Header.Get("X-API-Total"); got != "6" {
		t.Errorf("X-API-Total %s, want 6", got)
	}
	list(search, apart, body, excerpt, one, every, whole)
	r = list(search+"&orderby=relevance&per_page=2&page=2", one, excerpt)
	if got := r.Header.Get("X-API-TotalPages"); got != "3" {
		t.Errorf("X-API-TotalPages %s, want 3", got)
	}
	list(search+"&"+url.QueryEscape("filter[orderby]")+"=relevance", whole, every, one, excerpt, body, apart)
	list("search=apple&orderby=relevance", every, whole, apart, body, excerpt, one)

	for _, path := range []string{"/posts?orderby=relevance", "/posts?orderby=relevance&search=", "/pages?orderby=relevance", "/media?orderby=relevance&search=+"} {
		e := s.Do("GET", s.API(path), "").WantError(400, "rest_no_search_term_defined")
		if msg, _ := e["message"].(string); msg != "You need to define a search term to order by relevance." {
			t.Errorf("%s: message %q", path, msg)
		}
	}
	s.Do("GET", s.API("/pages?orderby=relevance&search=apple"), "").WantStatus(200)

	args := s.Do("OPTIONS", s.API("/posts"), "").WantStatus(200).Object()
	enum := args["endpoints"].([]any)[0].(map[string]any)["args"].(map[string]any)["orderby"].(map[string]any)["enum"].([]any)
	if !slices.Contains(enum, any("relevance")) {
		t.Errorf("orderby enum %v lacks relevance", enum)
	}
}
