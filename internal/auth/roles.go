package auth

import (
	"fmt"
	"slices"
	"sync"
)

// Role is a named set of primitive capabilities.
type Role struct {
	Name        string
	DisplayName string
	// Caps maps capability names to granted (true) or denied (false).
	Caps map[string]bool

	// order remembers the order capabilities were granted in, so that the
	// users endpoint lists them as the original does. Roles built as struct
	// literals have none; their capabilities are then listed by name.
	order []string
}

// NewRole returns a role that grants caps, remembering their order.
func NewRole(name, displayName string, caps ...string) *Role {
	r := &Role{Name: name, DisplayName: displayName, Caps: make(map[string]bool, len(caps))}
	for _, c := range caps {
		r.Grant(c)
	}
	return r
}

// Grant adds cap to the role (or turns a denied cap into a granted one).
func (r *Role) Grant(cap string) {
	if r.Caps == nil {
		r.Caps = map[string]bool{}
	}
	if _, ok := r.Caps[cap]; !ok {
		r.order = append(r.order, cap)
	}
	r.Caps[cap] = true
}

// CapNames returns the names in Caps: first in the order they were granted
// through NewRole or Grant, then any others sorted by name.
func (r *Role) CapNames() []string {
	out := make([]string, 0, len(r.Caps))
	seen := make(map[string]bool, len(r.Caps))
	for _, c := range r.order {
		if _, ok := r.Caps[c]; ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	var rest []string
	for c := range r.Caps {
		if !seen[c] {
			rest = append(rest, c)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// Roles is an ordered registry of roles. It is safe for concurrent use.
type Roles struct {
	mu    sync.RWMutex
	names []string
	m     map[string]*Role
}

// NewRoles returns an empty registry.
func NewRoles() *Roles {
	return &Roles{m: map[string]*Role{}}
}

// Add registers role. A role with the same name is replaced in place,
// keeping its position.
func (r *Roles) Add(role *Role) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*Role{}
	}
	if _, ok := r.m[role.Name]; !ok {
		r.names = append(r.names, role.Name)
	}
	r.m[role.Name] = role
}

// Get returns the role called name.
func (r *Roles) Get(name string) (*Role, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	role, ok := r.m[name]
	return role, ok
}

// Names returns the role names in registration order.
func (r *Roles) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.names)
}

// levels returns level_n … level_0, the legacy user levels a role carries.
func levels(n int) []string {
	out := make([]string, 0, n+1)
	for i := n; i >= 0; i-- {
		out = append(out, fmt.Sprintf("level_%d", i))
	}
	return out
}

// DefaultRoles returns a new registry with the five default roles:
// administrator, editor, author, contributor and subscriber, each holding
// exactly the capabilities the original platform's role set-up gives it, in
// the same order (the order they appear in a user's "capabilities").
func DefaultRoles() *Roles {
	rs := NewRoles()

	admin := NewRole("administrator", "Administrator",
		"switch_themes", "edit_themes", "activate_plugins", "edit_plugins",
		"edit_users", "edit_files", "manage_options", "moderate_comments",
		"manage_categories", "manage_links", "upload_files", "import",
		"unfiltered_html", "edit_posts", "edit_others_posts",
		"edit_published_posts", "publish_posts", "edit_pages", "read")
	grantAll(admin, levels(10)...)
	grantAll(admin, pagesAndPrivateCaps...)
	grantAll(admin,
		"delete_users", "create_users", "unfiltered_upload", "edit_dashboard",
		"update_plugins", "delete_plugins", "install_plugins", "update_themes",
		"install_themes", "update_core", "list_users", "remove_users",
		"promote_users", "edit_theme_options", "delete_themes", "export")
	rs.Add(admin)

	editor := NewRole("editor", "Editor",
		"moderate_comments", "manage_categories", "manage_links",
		"upload_files", "unfiltered_html", "edit_posts", "edit_others_posts",
		"edit_published_posts", "publish_posts", "edit_pages", "read")
	grantAll(editor, levels(7)...)
	grantAll(editor, pagesAndPrivateCaps...)
	rs.Add(editor)

	author := NewRole("author", "Author",
		"upload_files", "edit_posts", "edit_published_posts", "publish_posts", "read")
	grantAll(author, levels(2)...)
	grantAll(author, "delete_posts", "delete_published_posts")
	rs.Add(author)

	contributor := NewRole("contributor", "Contributor", "edit_posts", "read")
	grantAll(contributor, levels(1)...)
	grantAll(contributor, "delete_posts")
	rs.Add(contributor)

	subscriber := NewRole("subscriber", "Subscriber", "read")
	grantAll(subscriber, levels(0)...)
	rs.Add(subscriber)

	return rs
}

// pagesAndPrivateCaps are the capabilities administrators and editors gained
// together when pages, deletion and private posts got their own caps.
var pagesAndPrivateCaps = []string{
	"edit_others_pages", "edit_published_pages", "publish_pages",
	"delete_pages", "delete_others_pages", "delete_published_pages",
	"delete_posts", "delete_others_posts", "delete_published_posts",
	"delete_private_posts", "edit_private_posts", "read_private_posts",
	"delete_private_pages", "edit_private_pages", "read_private_pages",
}

func grantAll(r *Role, caps ...string) {
	for _, c := range caps {
		r.Grant(c)
	}
}

// defaultRoles is a shared read-only registry for NewTestUser.
var defaultRoles = DefaultRoles()
