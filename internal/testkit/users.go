package testkit

import "github.com/folio-server/folio/internal/store"

// AddUserWith stores a user as AddUser does, then lets edit change the
// stored record (email, names, slug, capabilities) before the test uses it:
// for a site whose users' fields are fixtures themselves. edit must leave
// the login alone: the user signs in with it.
func (s *Site) AddUserWith(login, role string, edit func(*store.User)) *User {
	s.T.Helper()
	user := s.AddUser(login, role)
	ctx := s.T.Context()
	u, err := s.Store().GetUser(ctx, user.ID)
	if err != nil {
		s.T.Fatal(err)
	}
	edit(u)
	if u.Login != login {
		s.T.Fatalf("testkit: AddUserWith changed the login %q to %q", login, u.Login)
	}
	if err := s.Store().UpdateUser(ctx, u); err != nil {
		s.T.Fatal(err)
	}
	return user
}
