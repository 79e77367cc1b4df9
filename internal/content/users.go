package content

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// DefaultAvatarSizes are the avatar sizes output without a filter.
var DefaultAvatarSizes = []int{24, 48, 96}

// AvatarSizes returns the avatar sizes to output, through the
// rest_avatar_sizes hook point. It is empty when the site does not show
// avatars (the show_avatars setting of set).
func (s *Site) AvatarSizes(set *Settings) []int {
	if !set.ShowAvatars {
		return nil
	}
	sizes := slices.Clone(DefaultAvatarSizes)
	e := &events.AvatarSizesEvent{Sizes: sizes}
	if s.hooks.Filter(s.hooks.AvatarSizes.Name(""), s.hooks.AvatarSizes.Trigger(e)) {
		return e.Sizes
	}
	return sizes
}

// AvatarURL returns the Gravatar-style URL of an email's avatar at size
// pixels.
func AvatarURL(email string, size int) string {
	sum := md5.Sum([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?s=" + strconv.Itoa(size) + "&d=mm&r=g"
}

// AuthorLink returns the author archive URL of u under siteRoot.
func AuthorLink(siteRoot string, u *store.User) string {
	return siteRoot + "/author/" + u.Nicename + "/"
}

// AuthorLink returns the author archive URL of u under siteRoot, or under
// the external front end when the site has one (see LinkRoot).
func (s *Site) AuthorLink(siteRoot string, u *store.User) string {
	return AuthorLink(s.LinkRoot(siteRoot), u)
}

// FormatRegistered formats a registration date as the users endpoint does:
// ISO 8601 with an explicit +00:00 offset.
func FormatRegistered(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05") + "+00:00"
}

// UserOf returns the effective user (capabilities resolved) of a record.
func (s *Site) UserOf(rec *store.User) *auth.User {
	return auth.NewUser(rec, s.roles)
}

// GetUser loads one user; ok is false when it does not exist.
func (s *Site) GetUser(ctx context.Context, id int64) (*store.User, bool, error) {
	if id <= 0 {
		return nil, false, nil
	}
	u, err := s.st.GetUser(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// GetUserBySlug loads the user whose nicename is slug; ok is false when
// there is none.
func (s *Site) GetUserBySlug(ctx context.Context, slug string) (*store.User, bool, error) {
	if slug == "" {
		return nil, false, nil
	}
	u, err := s.st.GetUserBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// PublicTypeNames returns the names of the public post types: a user with
// a published post of one of them is visible to everybody.
func (s *Site) PublicTypeNames() []string {
	var out []string
	for _, pt := range s.types.All() {
		if pt.Public {
			out = append(out, pt.Name)
		}
	}
	return out
}

// PublishedAuthors returns which of ids have at least one published post of
// a public type, in one query.
func (s *Site) PublishedAuthors(ctx context.Context, ids []int64) (map[int64]bool, error) {
	out, err := s.st.AuthorsWithPublished(ctx, ids, s.PublicTypeNames())
	if err != nil {
		return nil, fmt.Errorf("published authors: %w", err)
	}
	return out, nil
}

// CanViewUser applies the single-user visibility rule (reference §5.3):
// yourself always; otherwise list_users, edit_user on target, or a
// published post of a public type by target. Callers who may list the
// authors (CanListAuthors) also see every author (AuthorRoles), as the
// users collection lists them with who=authors.
func (s *Site) CanViewUser(ctx context.Context, viewer *auth.User, target int64) (bool, error) {
	if viewer != nil && viewer.ID() == target {
		return true, nil
	}
	if viewer.HasCap("list_users") || s.authz.Can(ctx, viewer, "edit_user", target) {
		return true, nil
	}
	pub, err := s.PublishedAuthors(ctx, []int64{target})
	if err != nil {
		return false, err
	}
	if pub[target] || !s.CanListAuthors(viewer) {
		return pub[target], nil
	}
	u, ok, err := s.GetUser(ctx, target)
	if err != nil || !ok {
		return false, err
	}
	return s.IsAuthor(u), nil
}

// CanListAuthors reports whether u may list the site's authors (the users
// collection's who=authors): u may edit the posts of a post type exposed
// to the interface that supports authors, as in WordPress 4.7+.
func (s *Site) CanListAuthors(u *auth.User) bool {
	if u == nil {
		return false
	}
	for _, pt := range s.types.All() {
		if pt.ShowInRest && pt.Supports(SupportAuthor) && u.HasCap(pt.Caps.EditPosts) {
			return true
		}
	}
	return false
}

// AuthorRoles returns the roles whose users are authors: those with a user
// level above 0 (a level_1 … level_10 capability), which is what
// WordPress's who=authors selects (contributors, authors, editors and
// administrators among the default roles; subscribers are not authors).
func (s *Site) AuthorRoles() []string {
	var out []string
	for _, name := range s.roles.Names() {
		role, ok := s.roles.Get(name)
		if ok && roleHasLevel(role) {
			out = append(out, name)
		}
	}
	return out
}

// IsAuthor reports whether u holds a role of AuthorRoles.
func (s *Site) IsAuthor(u *store.User) bool {
	for _, name := range u.Roles {
		if role, ok := s.roles.Get(name); ok && roleHasLevel(role) {
			return true
		}
	}
	return false
}

// roleHasLevel reports whether role grants a user level above 0.
func roleHasLevel(role *auth.Role) bool {
	for i := 1; i <= 10; i++ {
		if role.Caps["level_"+strconv.Itoa(i)] {
			return true
		}
	}
	return false
}

// ListUsers returns one page of the users q selects and the total number
// of users it matches.
func (s *Site) ListUsers(ctx context.Context, q store.UserQuery) ([]*store.User, int64, error) {
	users, err := s.st.ListUsers(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	if q.Limit > 0 && q.Offset == 0 && len(users) < q.Limit {
		return users, int64(len(users)), nil
	}
	total, err := s.st.CountUsers(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("count users: %w", err)
	}
	return users, total, nil
}

// UserInput carries the writable user fields of a request; nil means "not
// sent". Roles is set only when RolesSet is true.
type UserInput struct {
	Username    *string
	Email       *string
	Password    *string
	Name        *string
	FirstName   *string
	LastName    *string
	Nickname    *string
	Slug        *string
	Description *string
	URL         *string
	Roles       []string
	RolesSet    bool
	// KeepSession is the token hash of the caller's browser session. When
	// callers change their own password every other session of theirs
	// ends and this one is kept; a password changed by somebody else ends
	// every session of the user.
	KeepSession string
}

var (
	userLoginUnsafe = regexp.MustCompile(`[^A-Za-z0-9 _.\-@]`)
	octets          = regexp.MustCompile(`%[a-fA-F0-9]{2}`)
	entities        = regexp.MustCompile(`&[^;\s]*;`)
	spaces          = regexp.MustCompile(`\s+`)
)

// SanitizeUserLogin cleans a login the way the original's strict
// sanitize_user does: tags, percent-encoded octets and entities removed,
// accents folded, only letters, digits, space, _ . - @ kept, white space
// collapsed and trimmed.
func SanitizeUserLogin(s string) string {
	s = render.StripTags(s)
	s = render.RemoveAccents(s)
	s = octets.ReplaceAllString(s, "")
	s = entities.ReplaceAllString(s, "")
	s = userLoginUnsafe.ReplaceAllString(s, "")
	s = spaces.ReplaceAllString(s, " ")
	return strings.TrimSpace(s)
}

// CheckRoles applies the role rules of a write (reference §10.5): every
// role must exist (400); a caller changing their own roles must keep
// edit_users; every role must be one the caller may assign (promote_users).
// targetID is 0 on create.
func (s *Site) CheckRoles(ctx context.Context, caller *auth.User, targetID int64, roles []string) error {
	keepsEditUsers := false
	for _, name := range roles {
		role, ok := s.roles.Get(name)
		if !ok {
			return errBad("rest_user_invalid_role", fmt.Sprintf("The role %s does not exist.", name))
		}
		if role.Caps["edit_users"] {
			keepsEditUsers = true
		}
	}
	if targetID != 0 && caller != nil && caller.ID() == targetID && !keepsEditUsers {
		return errAuth("rest_user_invalid_role", "You cannot give resource that role.")
	}
	if len(roles) > 0 && !s.authz.Can(ctx, caller, "promote_user", targetID) {
		return &Error{Code: "rest_user_invalid_role", Message: "You cannot give resource that role.", Status: 403}
	}
	return nil
}

// CreateUser validates in and stores a new user. The caller's permission to
// create users was checked by the controller. request is the interface
// request, passed to the rest_pre_insert_user hook point.
func (s *Site) CreateUser(ctx context.Context, caller *auth.User, in UserInput, request *rest.Request) (*store.User, error) {
	if in.RolesSet {
		if err := s.CheckRoles(ctx, caller, 0, in.Roles); err != nil {
			return nil, err
		}
	}
	u := &store.User{Registered: s.Now().Truncate(time.Second), Caps: map[string]bool{}}
	login := ""
	if in.Username != nil {
		login = SanitizeUserLogin(*in.Username)
	}
	if login == "" {
		return nil, errBad("empty_user_login", "Cannot create a user with an empty login name.")
	}
	if utf8.RuneCountInString(login) > 60 {
		return nil, errBad("user_login_too_long", "Username may not be longer than 60 characters.")
	}
	u.Login = login
	if in.Password == nil || *in.Password == "" {
		return nil, errBad("rest_user_invalid_password", "Passwords cannot be empty.")
	}
	if err := s.applyUser(u, in); err != nil {
		return nil, err
	}
	if u.DisplayName == "" {
		u.DisplayName = u.Login
	}
	if u.Nickname == "" {
		u.Nickname = u.Login
	}
	if in.RolesSet {
		u.Roles = slices.Clone(in.Roles)
	} else {
		u.Roles = []string{"subscriber"}
	}
	hash, err := auth.HashPassword(*in.Password)
	if err != nil {
		return nil, fmt.Errorf("create user: %w", err)
	}
	u.PassHash = hash
	if err := s.preInsertUser(ctx, u, request); err != nil {
		return nil, err
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := lockAccount(ctx, tx, u.Login, u.Email); err != nil {
			return err
		}
		if _, err := tx.GetUserByLogin(ctx, u.Login); err == nil {
			return errBad("existing_user_login", "Sorry, that username already exists!")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if u.Email != "" {
			if _, err := tx.GetUserByEmail(ctx, u.Email); err == nil {
				return errBad("existing_user_email", "Sorry, that email address is already used!")
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if err := s.uniqueNicename(ctx, tx, u, true); err != nil {
			return err
		}
		if err := tx.InsertUser(ctx, u); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "user", Action: "created", ID: u.ID, Record: u})
	})
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// applyUser copies the common writable fields of in onto u.
func (s *Site) applyUser(u *store.User, in UserInput) error {
	text := func(p *string) string { return schema.SanitizeTextField(*p) }
	if in.Email != nil {
		u.Email = strings.TrimSpace(*in.Email)
	}
	if in.Name != nil {
		u.DisplayName = text(in.Name)
	}
	if in.FirstName != nil {
		u.FirstName = text(in.FirstName)
	}
	if in.LastName != nil {
		u.LastName = text(in.LastName)
	}
	if in.Nickname != nil {
		u.Nickname = text(in.Nickname)
	}
	if in.Description != nil {
		u.Description = render.KSESPost(*in.Description)
	}
	if in.URL != nil {
		u.URL = schema.EscURLRaw(*in.URL)
	}
	if in.Slug != nil {
		slug := render.Slug(*in.Slug)
		if utf8.RuneCountInString(slug) > 50 {
			return errBad("user_nicename_too_long", "Nicename may not be longer than 50 characters.")
		}
		if slug != "" {
			u.Nicename = slug
		}
	}
	return nil
}

// uniqueNicename sets u's nicename from its login when it has none and,
// when suffix is true, appends -2, -3, … until no other user has it.
// lockAccount locks, for the rest of the write transaction tx, the login
// and the email address (each compared without ASCII case; an empty one
// is left out) that the transaction checks are free before it stores
// them (store.LockKeys).
func lockAccount(ctx context.Context, tx store.Store, login, email string) error {
	var keys []string
	if login != "" {
		keys = append(keys, "user-login:"+strings.ToLower(login))
	}
	if email != "" {
		keys = append(keys, "user-email:"+strings.ToLower(email))
	}
	return store.LockKeys(ctx, tx, keys...)
}

func (s *Site) uniqueNicename(ctx context.Context, tx store.Store, u *store.User, suffix bool) error {
	if u.Nicename == "" {
		u.Nicename = render.Slug(u.Login)
		if len(u.Nicename) > 50 {
			u.Nicename = strings.TrimRight(u.Nicename[:50], "-")
		}
		if u.Nicename == "" {
			u.Nicename = "user"
		}
	}
	base := u.Nicename
	// Nicenames are cut to 50 bytes before a suffix: the first 40 bytes
	// without "-N" suffixes are shared by every candidate.
	if err := store.LockKeys(ctx, tx, "user-nicename:"+slugStem(base, 40)); err != nil {
		return err
	}
	for n := 1; ; n++ {
		cand := base
		if n > 1 {
			suffixStr := "-" + strconv.Itoa(n)
			cand = truncateSlug(base, 50-len(suffixStr)) + suffixStr
		}
		other, err := tx.GetUserBySlug(ctx, cand)
		if errors.Is(err, store.ErrNotFound) || (err == nil && other.ID == u.ID) {
			u.Nicename = cand
			return nil
		}
		if err != nil {
			return err
		}
		if !suffix {
			return errBad("rest_user_invalid_slug", "Slug is invalid.")
		}
	}
}

// UpdateUser validates in and applies it to the stored user old. request
// is the interface request, passed to the rest_pre_insert_user hook point.
// A new password ends the user's other browser sessions (see
// UserInput.KeepSession) in the same transaction; application passwords
// are left alone.
func (s *Site) UpdateUser(ctx context.Context, caller *auth.User, old *store.User, in UserInput, request *rest.Request) (*store.User, error) {
	u := *old
	u.Roles = slices.Clone(old.Roles)
	u.Caps = map[string]bool{}
	for k, v := range old.Caps {
		u.Caps[k] = v
	}
	if in.Username != nil && *in.Username != "" && *in.Username != old.Login {
		return nil, errBad("rest_user_invalid_argument", "Username isn't editable")
	}
	if in.RolesSet {
		if err := s.CheckRoles(ctx, caller, old.ID, in.Roles); err != nil {
			return nil, err
		}
	}
	if in.Password != nil && *in.Password == "" {
		return nil, errBad("rest_user_invalid_password", "Passwords cannot be empty.")
	}
	if err := s.applyUser(&u, in); err != nil {
		return nil, err
	}
	if in.RolesSet {
		u.Roles = slices.Clone(in.Roles)
	}
	if in.Password != nil {
		hash, err := auth.HashPassword(*in.Password)
		if err != nil {
			return nil, fmt.Errorf("update user %d: %w", old.ID, err)
		}
		u.PassHash = hash
	}
	if err := s.preInsertUser(ctx, &u, request); err != nil {
		return nil, err
	}
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if u.Email != "" && !strings.EqualFold(u.Email, old.Email) {
			if err := lockAccount(ctx, tx, "", u.Email); err != nil {
				return err
			}
			if other, err := tx.GetUserByEmail(ctx, u.Email); err == nil && other.ID != u.ID {
				return errBad("rest_user_invalid_email", "Email address is invalid.")
			} else if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if u.Nicename != old.Nicename {
			if err := s.uniqueNicename(ctx, tx, &u, false); err != nil {
				return err
			}
		}
		if err := tx.UpdateUser(ctx, &u); err != nil {
			return err
		}
		if in.Password != nil {
			keep := ""
			if caller != nil && caller.ID() == old.ID {
				keep = in.KeepSession
			}
			if _, err := tx.DeleteOtherSessions(ctx, old.ID, keep); err != nil {
				return err
			}
		}
		return s.changed(ctx, tx, Change{Kind: "user", Action: "updated", ID: u.ID, Record: &u, Old: old})
	})
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		if errors.Is(err, store.ErrConflict) {
			return nil, errBad("rest_user_invalid_email", "Email address is invalid.")
		}
		return nil, fmt.Errorf("update user %d: %w", old.ID, err)
	}
	return &u, nil
}

// DeleteUser removes u. With reassign (a user id other than u's) every post
// of u is given to that user first; without it u's posts are deleted. It
// all happens in one transaction; the user's sessions and application
// passwords go with it.
func (s *Site) DeleteUser(ctx context.Context, u *store.User, reassign int64) error {
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		posts, err := tx.ListPosts(ctx, store.PostQuery{Authors: []int64{u.ID}, OrderBy: "id", Order: "asc"})
		if err != nil {
			return err
		}
		for _, p := range posts {
			if reassign > 0 {
				p.Author = reassign
				if err := tx.UpdatePost(ctx, p); err != nil {
					return err
				}
			} else if err := tx.DeletePost(ctx, p.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if err := tx.DeleteUser(ctx, u.ID); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "user", Action: "deleted", ID: u.ID, Record: u})
	})
	if err != nil {
		return fmt.Errorf("delete user %d: %w", u.ID, err)
	}
	return nil
}

// ListAppPasswords returns the application passwords of user userID,
// oldest first.
func (s *Site) ListAppPasswords(ctx context.Context, userID int64) ([]*store.AppPassword, error) {
	ps, err := s.st.ListAppPasswords(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("list application passwords: %w", err)
	}
	return ps, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("uuid: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// CreateAppPassword makes a new application password called name for user
// userID. It returns the password in clear (to be shown once) and the
// stored record, which keeps only its hash.
func (s *Site) CreateAppPassword(ctx context.Context, userID int64, name string) (string, *store.AppPassword, error) {
	name = schema.SanitizeTextField(name)
	if name == "" {
		return "", nil, errBad("rest_application_password_empty_name", "An application name is required to create an application password.")
	}
	plain, hash, err := auth.GenerateAppPassword()
	if err != nil {
		return "", nil, err
	}
	id, err := newUUID()
	if err != nil {
		return "", nil, err
	}
	p := &store.AppPassword{UUID: id, UserID: userID, Name: name, Hash: hash, Created: s.Now().Truncate(time.Second)}
	if err := s.st.InsertAppPassword(ctx, p); err != nil {
		return "", nil, fmt.Errorf("create application password: %w", err)
	}
	return plain, p, nil
}

// DeleteAppPassword removes the application password uuid of user userID;
// ok is false when the user has none with that uuid.
func (s *Site) DeleteAppPassword(ctx context.Context, userID int64, uuid string) (bool, error) {
	err := s.st.DeleteAppPassword(ctx, userID, uuid)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete application password: %w", err)
	}
	return true, nil
}

// ListSessions returns the browser sessions of user userID that have not
// expired, oldest first.
func (s *Site) ListSessions(ctx context.Context, userID int64) ([]*store.Session, error) {
	all, err := s.st.ListSessions(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	now := s.Now()
	out := make([]*store.Session, 0, len(all))
	for _, x := range all {
		if now.Before(x.Expires) {
			out = append(out, x)
		}
	}
	return out, nil
}

// DeleteSession ends the browser session with token hash tokenHash; ok is
// false when it no longer exists.
func (s *Site) DeleteSession(ctx context.Context, tokenHash string) (bool, error) {
	err := s.st.DeleteSession(ctx, tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete session: %w", err)
	}
	return true, nil
}

// DeleteOtherSessions ends every browser session of user userID except the
// one with token hash keep ("" ends them all) and returns how many ended.
func (s *Site) DeleteOtherSessions(ctx context.Context, userID int64, keep string) (int64, error) {
	n, err := s.st.DeleteOtherSessions(ctx, userID, keep)
	if err != nil {
		return 0, fmt.Errorf("delete sessions of user %d: %w", userID, err)
	}
	return n, nil
}
