package testkit_test

import (
	"net/http"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/testkit"
)

func TestSiteUsersRequestsAndFixtures(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	for _, role := range testkit.Roles {
		got := s.Do("GET", s.API("/users/me?context=edit"), role).WantStatus(200).Object()
		if int64(got["id"].(float64)) != s.ID(role) {
			t.Errorf("%s is user %v, want %d", role, got["id"], s.ID(role))
		}
		if roles, _ := got["roles"].([]any); len(roles) != 1 || roles[0] != role {
			t.Errorf("%s has roles %v", role, got["roles"])
		}
	}
	s.Do("GET", s.API("/users/me"), "").WantError(401, "rest_not_logged_in")

	post := s.Post("author", map[string]any{"title": "Kit"})
	page := s.Page("editor", nil)
	cat := s.Term("editor", "categories", "Kit category", nil)
	comment := s.Comment("subscriber", post, "Nice", nil)
	media := s.Media("author", "kit.png")
	s.Do("GET", s.API("/posts/%d", post), "").WantFields(map[string]any{"id": post, "title": map[string]any{"rendered": "Kit"}, "author": s.ID("author")})
	s.Do("GET", s.API("/pages/%d", page), "").WantFields(map[string]any{"id": page})
	s.Do("GET", s.API("/categories/%d", cat), "").WantFields(map[string]any{"name": "Kit category"})
	s.Do("GET", s.API("/comments/%d?context=edit", comment), "administrator").WantStatus(200).WantFields(map[string]any{"post": post})
	s.Do("GET", s.API("/media/%d", media), "").WantFields(map[string]any{"media_type": "image", "mime_type": "image/png"})
	if ids := s.Do("GET", s.API("/posts"), "").IDs(); len(ids) != 1 || ids[0] != post {
		t.Errorf("posts = %v, want [%d]", ids, post)
	}
	s.Do("DELETE", s.API("/posts/%d", post), "subscriber").WantError(403, "rest_cannot_delete")
}

func TestSignInNonceAndCookieRequests(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	b := s.SignIn("editor")
	got := b.API("GET", "/users/me", nil).WantStatus(200).Object()
	if int64(got["id"].(float64)) != s.ID("editor") {
		t.Errorf("signed-in browser is user %v, want %d", got["id"], s.ID("editor"))
	}
	// A cookie without the nonce is no sign-in for the API.
	b.Do("GET", s.API("/users/me")).WantError(401, "rest_not_logged_in")
	s.Browser().Do("GET", s.Server.Names().NonceEndpoint).WantStatus(http.StatusBadRequest)
}

func TestOptionsReachTheServer(t *testing.T) {
	t.Parallel()
	s := testkit.New(t, testkit.NoUsers(), testkit.Config(func(c *config.Config) {
		c.Compat = config.CompatWordPress
		c.Site.Title = "Kit title"
	}))
	if len(s.Users) != 0 {
		t.Errorf("users = %v, want none", s.Users)
	}
	if p := s.API("/posts"); p != "/wp-json/wp/v2/posts" {
		t.Errorf("API path = %s", p)
	}
	s.Do("GET", "/wp-json/", "").WantFields(map[string]any{"name": "Kit title"})
}

func TestNodeSharesTheStoreAndUsers(t *testing.T) {
	t.Parallel()
	a := testkit.New(t, testkit.Config(func(c *config.Config) { c.Site.Title = "Cluster" }))
	b := a.Node()
	// Same configuration, same users, same rows; its own server.
	if b.URL == a.URL {
		t.Fatal("the node shares the first site's listener")
	}
	b.Do("GET", b.API("/settings"), "administrator").WantFields(map[string]any{"title": "Cluster"})
	id := a.Post("author", map[string]any{"title": "Written on a"})
	b.Do("GET", b.API("/posts/%d", id), "").WantFields(map[string]any{"id": id, "title": map[string]any{"rendered": "Written on a"}})
	// A user added on one node signs in on the other.
	b.AddUser("late", "editor")
	a.Do("GET", a.API("/users/me"), "late").WantFields(map[string]any{"id": b.ID("late")})
}

func TestStatementsCountsARequestsStatements(t *testing.T) {
	t.Parallel()
	s := testkit.New(t)
	before := s.Statements()
	s.Do("GET", s.API("/posts"), "editor").WantStatus(200)
	if n := s.Statements() - before; n <= 0 {
		t.Fatalf("a list request ran %d statements", n)
	}
}
