package testkit_test

import (
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/testkit"
)

func TestAddUserWithStoresTheEditedFields(t *testing.T) {
	t.Parallel()
	s := testkit.New(t, testkit.NoUsers())
	u := s.AddUserWith("zqwriterx", "author", func(u *store.User) {
		u.Email, u.FirstName, u.Nicename, u.DisplayName = "hidden@example.org", "Wren", "wren", "Wren Writer"
	})
	s.AddUser("boss", "administrator")
	s.Do("GET", s.API("/users/%d?context=edit", u.ID), "boss").WantStatus(200).WantFields(map[string]any{
		"username": "zqwriterx", "email": "hidden@example.org", "first_name": "Wren", "slug": "wren", "name": "Wren Writer", "roles": []string{"author"},
	})
	// The user still signs in with the kit's passwords.
	s.Do("GET", s.API("/users/me"), "zqwriterx").WantStatus(200).WantFields(map[string]any{"id": u.ID})
	if b := s.SignIn("zqwriterx"); b.Login != "zqwriterx" {
		t.Errorf("signed in as %q", b.Login)
	}
}
