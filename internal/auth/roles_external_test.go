package auth_test

import (
	"slices"
	"testing"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
)

// adminCapsInOrder is the "capabilities" object of an administrator as the
// original outputs it (see spec/samples, users?context=edit).
var adminCapsInOrder = []string{
	"switch_themes", "edit_themes", "activate_plugins", "edit_plugins", "edit_users", "edit_files",
	"manage_options", "moderate_comments", "manage_categories", "manage_links", "upload_files",
	"import", "unfiltered_html", "edit_posts", "edit_others_posts", "edit_published_posts",
	"publish_posts", "edit_pages", "read", "level_10", "level_9", "level_8", "level_7", "level_6",
	"level_5", "level_4", "level_3", "level_2", "level_1", "level_0", "edit_others_pages",
	"edit_published_pages", "publish_pages", "delete_pages", "delete_others_pages",
	"delete_published_pages", "delete_posts", "delete_others_posts", "delete_published_posts",
	"delete_private_posts", "edit_private_posts", "read_private_posts", "delete_private_pages",
	"edit_private_pages", "read_private_pages", "delete_users", "create_users", "unfiltered_upload",
	"edit_dashboard", "update_plugins", "delete_plugins", "install_plugins", "update_themes",
	"install_themes", "update_core", "list_users", "remove_users", "promote_users",
	"edit_theme_options", "delete_themes", "export", "administrator",
}

func TestUserCapabilitiesOutputMatchesOriginalOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role string
		want []string
	}{
		{"administrator", adminCapsInOrder},
		{"editor", []string{
			"moderate_comments", "manage_categories", "manage_links", "upload_files", "unfiltered_html",
			"edit_posts", "edit_others_posts", "edit_published_posts", "publish_posts", "edit_pages",
			"read", "level_7", "level_6", "level_5", "level_4", "level_3", "level_2", "level_1",
			"level_0", "edit_others_pages", "edit_published_pages", "publish_pages", "delete_pages",
			"delete_others_pages", "delete_published_pages", "delete_posts", "delete_others_posts",
			"delete_published_posts", "delete_private_posts", "edit_private_posts",
			"read_private_posts", "delete_private_pages", "edit_private_pages", "read_private_pages",
			"editor",
		}},
		{"author", []string{
			"upload_files", "edit_posts", "edit_published_posts", "publish_posts", "read", "level_2",
			"level_1", "level_0", "delete_posts", "delete_published_posts", "author",
		}},
		{"contributor", []string{"edit_posts", "read", "level_1", "level_0", "delete_posts", "contributor"}},
		{"subscriber", []string{"read", "level_0", "subscriber"}},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			t.Parallel()
			u := auth.NewTestUser(9, tt.role)
			if got := u.AllCapNames(); !slices.Equal(got, tt.want) {
				t.Errorf("AllCapNames() =\n%q\nwant\n%q", got, tt.want)
			}
			all := u.AllCaps()
			if len(all) != len(tt.want) {
				t.Errorf("AllCaps() has %d entries, want %d", len(all), len(tt.want))
			}
			for _, c := range tt.want {
				if !all[c] || !u.HasCap(c) {
					t.Errorf("cap %q not granted", c)
				}
			}
			extra := u.ExtraCaps()
			if len(extra) != 1 || !extra[tt.role] {
				t.Errorf("ExtraCaps() = %v, want only the role name", extra)
			}
		})
	}
}

// TestRoleCapabilityMatrix checks reference §5.1 cell by cell.
func TestRoleCapabilityMatrix(t *testing.T) {
	t.Parallel()
	roles := []string{"administrator", "editor", "author", "contributor", "subscriber"}
	rows := []struct {
		caps []string
		// who holds them, in the order of roles.
		held [5]bool
	}{
		{[]string{"read"}, [5]bool{true, true, true, true, true}},
		{[]string{"edit_posts", "delete_posts"}, [5]bool{true, true, true, true, false}},
		{[]string{"publish_posts", "edit_published_posts", "delete_published_posts", "upload_files"}, [5]bool{true, true, true, false, false}},
		{[]string{"edit_others_posts", "delete_others_posts", "edit_private_posts", "delete_private_posts", "read_private_posts"}, [5]bool{true, true, false, false, false}},
		{[]string{"edit_pages", "publish_pages", "edit_others_pages", "edit_published_pages", "delete_pages",
			"delete_others_pages", "delete_published_pages", "edit_private_pages", "delete_private_pages",
			"read_private_pages"}, [5]bool{true, true, false, false, false}},
		{[]string{"moderate_comments", "manage_categories", "unfiltered_html"}, [5]bool{true, true, false, false, false}},
		{[]string{"list_users", "create_users", "edit_users", "delete_users", "promote_users", "remove_users", "manage_options"}, [5]bool{true, false, false, false, false}},
		{[]string{"level_10", "level_8"}, [5]bool{true, false, false, false, false}},
		{[]string{"level_7", "level_3"}, [5]bool{true, true, false, false, false}},
		{[]string{"level_2"}, [5]bool{true, true, true, false, false}},
		{[]string{"level_1"}, [5]bool{true, true, true, true, false}},
		{[]string{"level_0"}, [5]bool{true, true, true, true, true}},
		{[]string{"create_posts", "edit_post", "unknown_cap", "do_not_allow"}, [5]bool{}},
	}
	for _, row := range rows {
		for i, role := range roles {
			u := auth.NewTestUser(1, role)
			for _, c := range row.caps {
				if got := u.HasCap(c); got != row.held[i] {
					t.Errorf("%s HasCap(%q) = %v, want %v", role, c, got, row.held[i])
				}
			}
		}
	}
}

func TestRoleNamesCountAsCapabilities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		roles []string
		cap   string
		want  bool
	}{
		{[]string{"editor"}, "editor", true},
		{[]string{"editor"}, "administrator", false},
		{[]string{"editor", "subscriber"}, "subscriber", true},
		// An unregistered role gives no capabilities but its name.
		{[]string{"ghost"}, "ghost", true},
		{[]string{"ghost"}, "read", false},
		{nil, "read", false},
	}
	for _, tt := range tests {
		if got := auth.NewTestUser(1, tt.roles...).HasCap(tt.cap); got != tt.want {
			t.Errorf("roles %v HasCap(%q) = %v, want %v", tt.roles, tt.cap, got, tt.want)
		}
	}
}

func TestDirectCapabilitiesOverrideRoles(t *testing.T) {
	t.Parallel()
	u := auth.NewUser(&store.User{
		ID:    3,
		Roles: []string{"author"},
		Caps:  map[string]bool{"publish_posts": false, "moderate_comments": true},
	}, auth.DefaultRoles())
	tests := []struct {
		cap  string
		want bool
	}{
		{"publish_posts", false},
		{"moderate_comments", true},
		{"edit_posts", true},
		{"author", true},
		{"exist", true},
		{"do_not_allow", false},
	}
	for _, tt := range tests {
		if got := u.HasCap(tt.cap); got != tt.want {
			t.Errorf("HasCap(%q) = %v, want %v", tt.cap, got, tt.want)
		}
	}
	all := u.AllCaps()
	if v, ok := all["publish_posts"]; !ok || v {
		t.Errorf("AllCaps()[publish_posts] = %v, %v; want false, present", v, ok)
	}
	// A denied role cap keeps its position; new direct caps follow the
	// role names.
	names := u.AllCapNames()
	if got, want := names[len(names)-3:], []string{"delete_published_posts", "author", "moderate_comments"}; !slices.Equal(got, want) {
		t.Errorf("AllCapNames() tail = %q, want %q", got, want)
	}
	extra := u.ExtraCaps()
	want := map[string]bool{"author": true, "publish_posts": false, "moderate_comments": true}
	if len(extra) != len(want) {
		t.Fatalf("ExtraCaps() = %v, want %v", extra, want)
	}
	for k, v := range want {
		if got, ok := extra[k]; !ok || got != v {
			t.Errorf("ExtraCaps()[%q] = %v, %v; want %v", k, got, ok, v)
		}
	}
}

func TestAnonymousUser(t *testing.T) {
	t.Parallel()
	var u *auth.User
	if u.ID() != 0 || u.Record() != nil || u.Roles() != nil || u.AllCapNames() != nil {
		t.Errorf("nil user: ID %d Record %v Roles %v", u.ID(), u.Record(), u.Roles())
	}
	for _, c := range []string{"read", "exist", "level_0"} {
		if u.HasCap(c) {
			t.Errorf("nil user HasCap(%q) = true", c)
		}
	}
	if len(u.AllCaps()) != 0 || len(u.ExtraCaps()) != 0 {
		t.Errorf("nil user has caps")
	}
	if auth.NewUser(nil, nil) != nil {
		t.Errorf("NewUser(nil) != nil")
	}
}

func TestRolesRegistry(t *testing.T) {
	t.Parallel()
	rs := auth.DefaultRoles()
	if got, want := rs.Names(), []string{"administrator", "editor", "author", "contributor", "subscriber"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	rs.Add(auth.NewRole("shop_manager", "Shop manager", "read", "manage_shop"))
	rs.Add(&auth.Role{Name: "subscriber", DisplayName: "Reader", Caps: map[string]bool{"read": true, "b_cap": true, "a_cap": false}})
	if got, want := rs.Names(), []string{"administrator", "editor", "author", "contributor", "subscriber", "shop_manager"}; !slices.Equal(got, want) {
		t.Errorf("after Add, Names() = %q, want %q", got, want)
	}
	sub, ok := rs.Get("subscriber")
	if !ok || sub.DisplayName != "Reader" {
		t.Fatalf("Get(subscriber) = %+v, %v", sub, ok)
	}
	if got, want := sub.CapNames(), []string{"a_cap", "b_cap", "read"}; !slices.Equal(got, want) {
		t.Errorf("literal role CapNames() = %q, want %q", got, want)
	}
	if _, ok := rs.Get("nobody"); ok {
		t.Errorf("Get(nobody) found a role")
	}
	u := auth.NewUser(&store.User{ID: 5, Roles: []string{"shop_manager", "subscriber"}}, rs)
	tests := map[string]bool{"manage_shop": true, "b_cap": true, "a_cap": false, "level_0": false, "shop_manager": true}
	for c, want := range tests {
		if got := u.HasCap(c); got != want {
			t.Errorf("HasCap(%q) = %v, want %v", c, got, want)
		}
	}
	// auth.DefaultRoles returns independent registries.
	if _, ok := auth.DefaultRoles().Get("shop_manager"); ok {
		t.Errorf("DefaultRoles shares state between calls")
	}
	var zero auth.Roles
	zero.Add(auth.NewRole("x", "X", "read"))
	if _, ok := zero.Get("x"); !ok {
		t.Errorf("zero Roles cannot Add")
	}
}
