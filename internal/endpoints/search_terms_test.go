package endpoints_test

import (
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/folio-server/folio/internal/testkit"
)

// TestSearchPhrasesAndExclusionsOverHTTP: a search's quoted phrases and
// -excluded terms work through the collection, and a password-protected
// post is judged on its title alone for a caller who cannot read it, in
// the page and in X-API-Total alike: an excluded word of its hidden text
// does not leave it out (which would tell that the text has the word),
// while its password, or an editor's access, makes its text count.
func TestSearchPhrasesAndExclusionsOverHTTP(t *testing.T) {
	s := testkit.New(t)
	notes := s.Post("editor", map[string]any{"title": "Garden notes", "content": "<p>Tomatoes in the garden.</p>"})
	secret := s.Post("editor", map[string]any{"title": "Protected garden", "content": "secret tulips behind the wall", "password": "pw"})
	coffee := s.Post("editor", map[string]any{"title": "Coffee", "content": "strong coffee, no garden"})
	tips := s.Post("editor", map[string]any{"title": "Gardening tips", "excerpt": "Prune in autumn"})

	search := func(login, query string, want ...int64) {
		t.Helper()
		r := s.Do("GET", s.API("/posts")+"?"+query, login).WantStatus(200)
		if got := r.IDs(); !slices.Equal(got, want) {
			t.Errorf("%s as %q: ids %v, want %v", query, login, got, want)
		}
		if got := r.Header.Get("X-API-Total"); got != strconv.Itoa(len(want)) {
			t.Errorf("%s as %q: X-API-Total %s, want %d", query, login, got, len(want))
		}
	}
	q := func(search string) string { return "search=" + url.QueryEscape(search) }

	search("", q("garden -secret"), tips, coffee, secret, notes)
	search("", q("garden -secret")+"&password=pw", tips, coffee, notes)
	search("editor", q("garden -secret")+"&context=edit", tips, coffee, notes)
	search("", q("garden -tomatoes -coffee"), tips, secret)
	search("", q(`"secret tulips"`))
	search("", q(`"secret tulips"`)+"&password=pw", secret)
	search("", q(`"tomatoes in the"`), notes)
	search("", q(`"in tomatoes"`))
	search("", q("-garden"))
	search("", q("-prune -tomatoes -protected"), coffee)
	search("", q(`-"strong coffee" garden`), tips, secret, notes)
}
