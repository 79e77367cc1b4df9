package auth

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/store"
)

// User is a signed-in account together with its effective capabilities.
// A nil *User is the anonymous caller: it has no id and no capabilities.
type User struct {
	rec *store.User
	// all holds every effective capability: role caps, then role names,
	// then direct caps (a direct false overrides a role's grant).
	all map[string]bool
	// order lists the keys of all in the original's output order.
	order []string
	// site is the store's site generation read with the user's sign-in
	// data (store.Generations), 0 when none was.
	site int64
	// check, when set, is the check of a sign-in the request went on
	// with before reading it (store.SignInCheck).
	check *store.SignInCheck
}

// WithSignInCheck returns a copy of u whose sign-in was kept rather than
// read, with c the check the request must pass (SignInCheck).
func (u *User) WithSignInCheck(c *store.SignInCheck) *User {
	v := *u
	v.check = c
	return &v
}

// SignInCheck returns the check the request must pass before it commits
// or answers anything, when the user's sign-in was kept rather than read
// (store.SignInCheck); nil when it was read.
func (u *User) SignInCheck() *store.SignInCheck {
	if u == nil {
		return nil
	}
	return u.check
}

// SiteGeneration returns the store's site generation (store.Generations)
// read with the user's sign-in data, and whether one was: the request
// may keep using options and webhooks read at that generation or later
// (store.WithSiteGeneration).
func (u *User) SiteGeneration() (int64, bool) {
	if u == nil || u.site == 0 {
		return 0, false
	}
	return u.site, true
}

// NewUser computes the effective capabilities of u under roles (nil roles
// means DefaultRoles). It returns nil when u is nil.
//
// As on the original platform, the capabilities of each of u's roles that
// exists in roles are merged first, then every role name counts as a granted
// capability, then the capabilities granted or denied directly on u apply.
func NewUser(u *store.User, roles *Roles) *User {
	if u == nil {
		return nil
	}
	if roles == nil {
		roles = defaultRoles
	}
	usr := &User{rec: u, all: map[string]bool{}}
	set := func(c string, v bool) {
		if _, ok := usr.all[c]; !ok {
			usr.order = append(usr.order, c)
		}
		usr.all[c] = v
	}
	for _, name := range u.Roles {
		role, ok := roles.Get(name)
		if !ok {
			continue
		}
		for _, c := range role.CapNames() {
			set(c, role.Caps[c])
		}
	}
	for _, name := range u.Roles {
		set(name, true)
	}
	for _, c := range slices.Sorted(maps.Keys(u.Caps)) {
		set(c, u.Caps[c])
	}
	return usr
}

// NewTestUser returns a user with the given id and roles under DefaultRoles,
// for tests of other packages.
func NewTestUser(id int64, roles ...string) *User {
	return NewUser(&store.User{
		ID:          id,
		Login:       fmt.Sprintf("user%d", id),
		DisplayName: fmt.Sprintf("User %d", id),
		Nicename:    fmt.Sprintf("user%d", id),
		Roles:       roles,
	}, defaultRoles)
}

// ID returns the user's id, 0 for the anonymous (nil) user.
func (u *User) ID() int64 {
	if u == nil || u.rec == nil {
		return 0
	}
	return u.rec.ID
}

// Record returns the stored user record, nil for the anonymous user.
func (u *User) Record() *store.User {
	if u == nil {
		return nil
	}
	return u.rec
}

// Roles returns the user's role names.
func (u *User) Roles() []string {
	if u == nil || u.rec == nil {
		return nil
	}
	return slices.Clone(u.rec.Roles)
}

// HasCap reports whether u holds the primitive capability cap: granted by a
// role, a role name itself, or granted directly (a direct denial wins over a
// role's grant). Every signed-in user holds "exist"; nobody holds
// "do_not_allow"; the anonymous (nil) user holds nothing.
func (u *User) HasCap(cap string) bool {
	if u == nil {
		return false
	}
	switch cap {
	case CapExist:
		return true
	case CapDoNotAllow:
		return false
	}
	return u.all[cap]
}

// AllCaps returns every effective capability, the role names included, as
// the users endpoint outputs them under "capabilities". A capability denied
// directly on the user is present with the value false, as on the original.
func (u *User) AllCaps() map[string]bool {
	if u == nil {
		return map[string]bool{}
	}
	return maps.Clone(u.all)
}

// AllCapNames returns the keys of AllCaps in the original's output order:
// the capabilities of each role in the order the role grants them, then the
// role names, then the capabilities set directly on the user.
func (u *User) AllCapNames() []string {
	if u == nil {
		return nil
	}
	return slices.Clone(u.order)
}

// ExtraCaps returns what the original stored on the user itself, output as
// "extra_capabilities": every role name (true) plus the capabilities granted
// or denied directly.
func (u *User) ExtraCaps() map[string]bool {
	out := map[string]bool{}
	if u == nil || u.rec == nil {
		return out
	}
	for _, r := range u.rec.Roles {
		out[r] = true
	}
	maps.Copy(out, u.rec.Caps)
	return out
}

// maxLoginLen bounds a login or email address given to sign in: longer
// ones name no user.
const maxLoginLen = 255

// plausibleLogin reports whether s can name a user: not empty, at most
// maxLoginLen bytes of valid UTF-8 without NUL. Other strings name no user
// and never reach the store (PostgreSQL refuses NUL and invalid UTF-8 with
// an error, which must not become a 500).
func plausibleLogin(s string) bool {
	return s != "" && len(s) <= maxLoginLen && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
