package endpoints_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/testkit"
)

// authStatus is the authorization-required status for a caller.
func authStatus(login string) int {
	if login == "" {
		return 401
	}
	return 403
}

// usersEnv is an env where only "author" has a published post.
func usersEnv(t *testing.T, mutate ...func(*config.Config)) *env {
	t.Helper()
	e := newEnv(t, mutate...)
	e.createPost("author", "post", map[string]any{"title": "Published by author"})
	return e
}

func (e *env) userPath(login string) string {
	return fmt.Sprintf("/api/svc/v2/users/%d", e.ID(login))
}

// noSecrets asserts a body carries no password and no password hash.
func noSecrets(t *testing.T, r *testkit.Response, extra ...string) {
	t.Helper()
	body := string(r.Body)
	for _, bad := range append([]string{`"password"`, `$2a$`, `pass_hash`, `PassHash`}, extra...) {
		if strings.Contains(body, bad) {
			t.Fatalf("response contains %q: %s", bad, body)
		}
	}
}

func TestUsersCollectionVisibilityByRole(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	all := []int64{e.ID("administrator"), e.ID("author"), e.ID("contributor"), e.ID("editor"), e.ID("subscriber")}
	for _, login := range allRoles {
		t.Run("as "+login, func(t *testing.T) {
			r := e.do("GET", "/api/svc/v2/users", login)
			r.WantStatus(200)
			got := ids(r.Array())
			want := []int64{e.ID("author")}
			if login == "administrator" {
				want = all // ordered by name
			}
			if !slices.Equal(got, want) {
				t.Fatalf("ids = %v, want %v", got, want)
			}
			if r.Header.Get("X-API-Total") != fmt.Sprint(len(want)) {
				t.Errorf("X-API-Total = %q, want %d", r.Header.Get("X-API-Total"), len(want))
			}
			noSecrets(t, r)
		})
	}
}

func TestUsersCollectionEditContextNeedsListUsers(t *testing.T) {
	t.Parallel()
	// The beta12.1 security fix.
	e := usersEnv(t)
	for _, login := range allRoles {
		r := e.do("GET", "/api/svc/v2/users?context=edit", login)
		if login == "administrator" {
			r.WantStatus(200)
			first := r.Array()[0].(map[string]any)
			if _, ok := first["email"]; !ok {
				t.Errorf("edit context without email: %v", first)
			}
			noSecrets(t, r)
			continue
		}
		r.WantError(authStatus(login), "rest_forbidden_context")
	}
}

func TestUsersCollectionRolesFilterNeedsListUsers(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	for _, login := range allRoles {
		r := e.do("GET", "/api/svc/v2/users?roles=editor,AUTHOR", login)
		if login == "administrator" {
			r.WantStatus(200)
			if got := ids(r.Array()); !slices.Equal(got, []int64{e.ID("author"), e.ID("editor")}) {
				t.Errorf("roles filter ids = %v", got)
			}
			continue
		}
		r.WantError(authStatus(login), "rest_user_cannot_view")
	}
	r := e.do("GET", "/api/svc/v2/users?roles=nosuchrole", "administrator")
	r.WantStatus(200)
	if len(r.Array()) != 0 {
		t.Errorf("unknown role matched %s", r.Body)
	}
}

func TestUsersCollectionParameters(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	admin := "administrator"
	get := func(q string) []int64 {
		t.Helper()
		r := e.do("GET", "/api/svc/v2/users?"+q, admin)
		r.WantStatus(200)
		return ids(r.Array())
	}
	u := e.ID
	if got := get("orderby=id&order=desc&per_page=2"); !slices.Equal(got, []int64{u("subscriber"), u("contributor")}) {
		t.Errorf("orderby=id desc per_page=2: %v", got)
	}
	if got := get("orderby=id&per_page=2&page=2"); !slices.Equal(got, []int64{u("author"), u("contributor")}) {
		t.Errorf("page 2: %v", got)
	}
	if got := get("orderby=id&offset=3"); !slices.Equal(got, []int64{u("contributor"), u("subscriber")}) {
		t.Errorf("offset=3: %v", got)
	}
	if got := get("include=" + fmt.Sprint(u("editor"), ",", u("author")) + "&orderby=include"); !slices.Equal(got, []int64{u("editor"), u("author")}) {
		t.Errorf("include ordered: %v", got)
	}
	if got := get("exclude=" + fmt.Sprint(u("administrator")) + "&orderby=id"); len(got) != 4 || slices.Contains(got, u("administrator")) {
		t.Errorf("exclude: %v", got)
	}
	if got := get("search=contrib"); !slices.Equal(got, []int64{u("contributor")}) {
		t.Errorf("search: %v", got)
	}
	if got := get("slug=editor"); !slices.Equal(got, []int64{u("editor")}) {
		t.Errorf("slug: %v", got)
	}
	if got := get("orderby=registered_date&order=asc"); len(got) != 5 {
		t.Errorf("registered_date: %v", got)
	}
	r := e.do("GET", "/api/svc/v2/users?per_page=2&orderby=id", admin)
	if r.Header.Get("X-API-Total") != "5" || r.Header.Get("X-API-TotalPages") != "3" || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Errorf("paging headers: %v", r.Header)
	}
	e.do("GET", "/api/svc/v2/users?orderby=email", admin).WantError(400, "rest_invalid_param")
	e.do("GET", "/api/svc/v2/users?per_page=101", admin).WantError(400, "rest_invalid_param")
	e.do("GET", "/api/svc/v2/users?context=nope", admin).WantError(400, "rest_invalid_param")
}

func TestUsersItemVisibilityByRole(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	for _, login := range allRoles {
		t.Run("as "+login, func(t *testing.T) {
			// A user with a published post is public in view and embed
			// context.
			for _, ctx := range []string{"view", "embed"} {
				r := e.do("GET", e.userPath("author")+"?context="+ctx, login)
				r.WantStatus(200)
				m := r.Object()
				if m["slug"] != "author" || m["email"] != nil || m["roles"] != nil {
					t.Errorf("%s context: %v", ctx, m)
				}
				noSecrets(t, r)
			}
			// A user without published posts: yourself, list_users, or,
			// when the user is an author, callers who may list the
			// authors (who=authors: those who may edit posts).
			r := e.do("GET", e.userPath("editor"), login)
			switch login {
			case "administrator", "editor", "author", "contributor":
				r.WantStatus(200)
				noSecrets(t, r)
				if m := r.Object(); login != "administrator" && login != "editor" && (m["email"] != nil || m["username"] != nil) {
					t.Errorf("an author seen by %s shows account fields: %v", login, m)
				}
			default:
				r.WantError(authStatus(login), "rest_user_cannot_view")
			}
			// A subscriber without posts is no author: yourself or
			// list_users only.
			r = e.do("GET", e.userPath("subscriber"), login)
			switch login {
			case "administrator", "subscriber":
				r.WantStatus(200)
			default:
				r.WantError(authStatus(login), "rest_user_cannot_view")
			}
			// Edit context: yourself, or list_users.
			r = e.do("GET", e.userPath("author")+"?context=edit", login)
			switch login {
			case "administrator", "author":
				r.WantStatus(200)
				m := r.Object()
				if m["username"] != "author" || m["email"] != "author@example.com" {
					t.Errorf("edit context: %v", m)
				}
				noSecrets(t, r)
			default:
				r.WantError(authStatus(login), "rest_user_cannot_view")
			}
			// Yourself in edit context.
			if login != "" {
				r := e.do("GET", e.userPath(login)+"?context=edit", login)
				r.WantStatus(200)
				noSecrets(t, r)
			}
		})
	}
	e.do("GET", "/api/svc/v2/users/99999", "administrator").WantError(404, "rest_user_invalid_id")
	e.do("GET", "/api/svc/v2/users/99999", "").WantError(404, "rest_user_invalid_id")
}

func TestUsersItemFieldsAndCapabilitiesOrder(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	r := e.do("GET", e.userPath("subscriber")+"?context=edit", "administrator")
	r.WantStatus(200)
	body := string(r.Body)
	// capabilities keep the role's order: read, level_0, then the role name.
	i, j, k := strings.Index(body, `"read":true`), strings.Index(body, `"level_0":true`), strings.Index(body, `"subscriber":true`)
	if !(i >= 0 && i < j && j < k) {
		t.Errorf("capabilities order wrong: %s", body)
	}
	m := r.Object()
	want := []string{"id", "username", "name", "first_name", "last_name", "email", "url", "description", "link", "nickname",
		"slug", "registered_date", "roles", "capabilities", "extra_capabilities", "avatar_urls", "_links"}
	if got := keys(m); len(got) != len(want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
	if !strings.HasSuffix(m["registered_date"].(string), "+00:00") {
		t.Errorf("registered_date = %v", m["registered_date"])
	}
	if fmt.Sprint(m["roles"]) != "[subscriber]" {
		t.Errorf("roles = %v", m["roles"])
	}
	if fmt.Sprint(m["extra_capabilities"]) != "map[subscriber:true]" {
		t.Errorf("extra_capabilities = %v", m["extra_capabilities"])
	}
	if !strings.HasSuffix(m["link"].(string), "/author/subscriber/") {
		t.Errorf("link = %v", m["link"])
	}
	av := m["avatar_urls"].(map[string]any)
	if len(av) != 3 || !strings.HasPrefix(av["48"].(string), "https://secure.gravatar.com/avatar/") || !strings.HasSuffix(av["48"].(string), "?s=48&d=mm&r=g") {
		t.Errorf("avatar_urls = %v", av)
	}
	links := m["_links"].(map[string]any)
	if len(links) != 2 || links["self"] == nil || links["collection"] == nil {
		t.Errorf("_links = %v", links)
	}
	// The schema declares password but never outputs it.
	o := e.do("OPTIONS", "/api/svc/v2/users", "")
	props := o.Object()["schema"].(map[string]any)["properties"].(map[string]any)
	if pw, ok := props["password"].(map[string]any); !ok || len(pw["context"].([]any)) != 0 {
		t.Errorf("password schema = %v", props["password"])
	}
}

func TestUsersAvatarsFollowShowAvatarsAndHook(t *testing.T) {
	t.Parallel()
	off := usersEnv(t, func(c *config.Config) { c.Site.ShowAvatars = false })
	m := off.do("GET", off.userPath("author"), "").Object()
	if _, ok := m["avatar_urls"]; ok {
		t.Errorf("avatar_urls with show_avatars off: %v", m)
	}
	o := off.do("OPTIONS", "/api/svc/v2/users", "")
	if strings.Contains(string(o.Body), "avatar_urls") {
		t.Errorf("schema has avatar_urls with show_avatars off")
	}
}

func TestUsersMe(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	for _, login := range allRoles {
		r := e.do("GET", "/api/svc/v2/users/me", login)
		if login == "" {
			r.WantError(401, "rest_not_logged_in")
			continue
		}
		r.WantStatus(200)
		m := r.Object()
		if int64(m["id"].(float64)) != e.ID(login) || m["email"] != nil {
			t.Errorf("%s: /users/me view = %v", login, m)
		}
		r = e.do("GET", "/api/svc/v2/users/me?context=edit", login)
		r.WantStatus(200)
		if r.Object()["username"] != login {
			t.Errorf("%s: /users/me edit = %s", login, r.Body)
		}
		noSecrets(t, r)
	}
	e.do("GET", "/api/svc/v2/users/me", "", nil, "Authorization", "Basic "+basic("editor", "wrong")).WantError(401, "rest_authentication_failed")
}

func TestUsersCreateByRole(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	for i, login := range allRoles {
		body := map[string]any{"username": fmt.Sprintf("new%d", i), "email": fmt.Sprintf("new%d@example.com", i), "password": "pw-secret-1"}
		r := e.do("POST", "/api/svc/v2/users", login, body)
		if login != "administrator" {
			r.WantError(authStatus(login), "rest_cannot_create_user")
			continue
		}
		r.WantStatus(201)
		m := r.Object()
		if m["username"] != "new0" || fmt.Sprint(m["roles"]) != "[subscriber]" || m["slug"] != "new0" || m["name"] != "new0" {
			t.Errorf("created = %v", m)
		}
		if !strings.HasSuffix(r.Header.Get("Location"), fmt.Sprintf("/api/svc/v2/users/%v", m["id"])) {
			t.Errorf("Location = %q", r.Header.Get("Location"))
		}
		noSecrets(t, r, "pw-secret-1")
	}
}

func TestUsersCreateRules(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	post := func(body map[string]any) *testkit.Response {
		return e.do("POST", "/api/svc/v2/users", "administrator", body)
	}
	m := post(map[string]any{"username": "nopw", "email": "nopw@example.com"}).WantError(400, "rest_missing_callback_param")
	if fmt.Sprint(m["data"].(map[string]any)["params"]) != "[password]" {
		t.Errorf("missing params = %v", m["data"])
	}
	post(map[string]any{"username": "x1", "email": "not-an-email", "password": "p"}).WantError(400, "rest_invalid_param")
	post(map[string]any{"id": 5, "username": "x2", "email": "x2@example.com", "password": "p"}).WantError(400, "rest_user_exists")
	post(map[string]any{"username": "EDITOR", "email": "x3@example.com", "password": "p"}).WantError(400, "existing_user_login")
	post(map[string]any{"username": "x4", "email": "Editor@Example.com", "password": "p"}).WantError(400, "existing_user_email")
	post(map[string]any{"username": "x5", "email": "x5@example.com", "password": ""}).WantError(400, "rest_user_invalid_password")
	post(map[string]any{"username": "x6", "email": "x6@example.com", "password": "p", "roles": []string{"pirate"}}).WantError(400, "rest_user_invalid_role")
	post(map[string]any{"username": "<>", "email": "x7@example.com", "password": "p"}).WantError(400, "empty_user_login")
	post(map[string]any{"username": strings.Repeat("a", 61), "email": "x8@example.com", "password": "p"}).WantError(400, "user_login_too_long")

	r := post(map[string]any{"username": "ed2", "email": "ed2@example.com", "password": "p", "roles": "editor",
		"name": "<b>Ed</b> Two", "url": "example.org/ed", "description": "<script>x</script><em>hi</em>", "slug": "editor"})
	r.WantStatus(201)
	m = r.Object()
	if fmt.Sprint(m["roles"]) != "[editor]" || m["name"] != "Ed Two" || m["url"] != "http://example.org/ed" ||
		strings.Contains(m["description"].(string), "<script") || m["slug"] != "editor-2" {
		t.Errorf("created = %v", m)
	}
	if m["capabilities"].(map[string]any)["edit_others_posts"] != true {
		t.Errorf("capabilities of an editor: %v", m["capabilities"])
	}
	// The new account password works for signing in, and is stored hashed.
	u, err := e.db.GetUserByLogin(context.Background(), "ed2")
	if err != nil || u.PassHash == "" || u.PassHash == "p" {
		t.Fatalf("stored user %+v %v", u, err)
	}
	var hooked []string
	e.site.Hooks().InsertUser.BindFunc(func(ev *events.InsertUserEvent) error {
		hooked = append(hooked, fmt.Sprint(ev.User.Login, ev.Creating))
		return ev.Next()
	})
	post(map[string]any{"username": "hooked", "email": "hooked@example.com", "password": "p"}).WantStatus(201)
	e.do("POST", e.userPath("subscriber"), "administrator", map[string]any{"name": "Sub"}).WantStatus(200)
	if fmt.Sprint(hooked) != "[hookedtrue subscriberfalse]" {
		t.Errorf("rest_insert_user fired %v", hooked)
	}
}

func TestUsersUpdateByRole(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	for _, login := range allRoles {
		t.Run("as "+login, func(t *testing.T) {
			if login != "" {
				r := e.do("PUT", e.userPath(login), login, map[string]any{"first_name": "Me", "url": "https://example.com/" + login})
				r.WantStatus(200)
				m := r.Object()
				if m["first_name"] != "Me" || m["url"] != "https://example.com/"+login {
					t.Errorf("self update = %v", m)
				}
				noSecrets(t, r)
				// Roles need edit_users, even your own.
				r = e.do("POST", e.userPath(login), login, map[string]any{"roles": []string{"administrator"}})
				if login != "administrator" {
					r.WantError(403, "rest_cannot_edit_roles")
				}
			}
			r := e.do("PATCH", e.userPath("contributor"), login, map[string]any{"last_name": "Other"})
			switch login {
			case "administrator", "contributor":
				r.WantStatus(200)
			default:
				r.WantError(authStatus(login), "rest_cannot_edit")
			}
		})
	}
}

func TestUsersUpdateRules(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	admin := "administrator"
	put := func(login string, body map[string]any) *testkit.Response {
		return e.do("PUT", e.userPath(login), admin, body)
	}
	put("author", map[string]any{"username": "renamed"}).WantError(400, "rest_user_invalid_argument")
	put("author", map[string]any{"username": "author"}).WantStatus(200)
	put("author", map[string]any{"email": "editor@example.com"}).WantError(400, "rest_user_invalid_email")
	put("author", map[string]any{"slug": "editor"}).WantError(400, "rest_user_invalid_slug")
	put("author", map[string]any{"roles": []string{"pirate"}}).WantError(400, "rest_user_invalid_role")
	e.do("PUT", "/api/svc/v2/users/99999", admin, map[string]any{"name": "x"}).WantError(400, "rest_user_invalid_id")
	// A body id overrides the path id (reference §3.2).
	e.do("PUT", e.userPath("author"), admin, map[string]any{"id": 99999}).WantError(400, "rest_user_invalid_id")

	// An administrator cannot take edit_users away from themselves.
	e.do("PUT", e.userPath(admin), admin, map[string]any{"roles": []string{"editor"}}).WantError(403, "rest_user_invalid_role")
	e.do("PUT", e.userPath(admin), admin, map[string]any{"roles": []string{"administrator"}}).WantStatus(200)

	r := put("author", map[string]any{"roles": "editor,subscriber", "email": "new-author@example.com", "slug": "writer", "nickname": "Wri"})
	r.WantStatus(200)
	m := r.Object()
	if fmt.Sprint(m["roles"]) != "[editor subscriber]" || m["email"] != "new-author@example.com" || m["slug"] != "writer" || m["nickname"] != "Wri" {
		t.Errorf("updated = %v", m)
	}
	// Changing the password through the interface.
	before, _ := e.db.GetUser(context.Background(), e.ID("author"))
	r = put("author", map[string]any{"password": "new-secret"})
	r.WantStatus(200)
	noSecrets(t, r, "new-secret")
	after, _ := e.db.GetUser(context.Background(), e.ID("author"))
	if after.PassHash == before.PassHash || after.PassHash == "new-secret" {
		t.Errorf("password not changed or stored in clear")
	}
	put("author", map[string]any{"password": ""}).WantError(400, "rest_user_invalid_password")
}

func TestUsersDeleteByRole(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	for _, login := range allRoles {
		if login == "administrator" {
			continue // below, once the others failed
		}
		e.do("DELETE", e.userPath("subscriber")+"?force=true", login).WantError(authStatus(login), "rest_user_cannot_delete")
	}
	r := e.do("DELETE", e.userPath("subscriber")+"?force=true", "administrator")
	r.WantStatus(200)
	if m := r.Object(); m["username"] != "subscriber" || m["email"] == nil {
		t.Errorf("delete response = %v", m)
	}
	noSecrets(t, r)
	e.do("GET", e.userPath("subscriber"), "administrator").WantError(404, "rest_user_invalid_id")
}

func TestUsersDeleteRules(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	admin := "administrator"
	e.do("DELETE", e.userPath("author"), admin).WantError(501, "rest_trash_not_supported")
	e.do("DELETE", e.userPath("author")+"?force=false", admin).WantError(501, "rest_trash_not_supported")
	e.do("DELETE", "/api/svc/v2/users/99999?force=true", admin).WantError(400, "rest_user_invalid_id")
	e.do("DELETE", e.userPath("author")+"?force=true&reassign=99999", admin).WantError(400, "rest_user_invalid_reassign")
	e.do("DELETE", e.userPath("author")+fmt.Sprintf("?force=true&reassign=%d", e.ID("author")), admin).WantError(400, "rest_user_invalid_reassign")

	// reassign gives the posts to another user.
	p := e.createPost("author", "post", map[string]any{"title": "Keep me"})
	e.do("DELETE", e.userPath("author")+fmt.Sprintf("?force=true&reassign=%d", e.ID("editor")), admin).WantStatus(200)
	got, err := e.db.GetPost(context.Background(), p.ID)
	if err != nil || got.Author != e.ID("editor") {
		t.Fatalf("post after reassign: %+v %v", got, err)
	}
	// Without reassign the user's posts go with the user.
	q := e.createPost("editor", "post", map[string]any{"title": "Goes away"})
	e.do("DELETE", e.userPath("editor")+"?force=true", admin).WantStatus(200)
	if _, err := e.db.GetPost(context.Background(), q.ID); err == nil {
		t.Errorf("post of a deleted user without reassign still exists")
	}
}

func TestUsersEmbeddedAsPostAuthor(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	r := e.do("GET", "/api/svc/v2/posts?_embed", "")
	r.WantStatus(200)
	post := r.Array()[0].(map[string]any)
	authors := post["_embedded"].(map[string]any)["author"].([]any)
	a := authors[0].(map[string]any)
	if a["slug"] != "author" || a["email"] != nil {
		t.Errorf("embedded author = %v", a)
	}
}

func TestAppPasswordsOverREST(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	base := func(login string) string { return e.userPath(login) + "/application-passwords" }

	// Create for yourself: the plain password is shown once.
	r := e.do("POST", base("author"), "author", map[string]any{"name": "My phone"})
	r.WantStatus(201)
	m := r.Object()
	plain, _ := m["password"].(string)
	uuid, _ := m["uuid"].(string)
	if len(strings.ReplaceAll(plain, " ", "")) != 24 || uuid == "" || m["name"] != "My phone" || m["last_used"] != nil {
		t.Fatalf("created = %v", m)
	}
	if !strings.HasSuffix(r.Header.Get("Location"), "/application-passwords/"+uuid) {
		t.Errorf("Location = %q", r.Header.Get("Location"))
	}
	// It works for Basic authentication, and its use is recorded.
	req, _ := http.NewRequest("GET", e.URL+"/api/svc/v2/users/me", nil)
	req.SetBasicAuth("author", plain)
	res, err := e.HTTP.Client().Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("Basic with the new password: %v %v", res, err)
	}
	res.Body.Close()

	// Listing never shows a password or a hash.
	r = e.do("GET", base("author"), "author")
	r.WantStatus(200)
	list := r.Array()
	if len(list) != 2 {
		t.Fatalf("list = %s", r.Body)
	}
	noSecrets(t, r, plain)
	var found map[string]any
	for _, it := range list {
		if it.(map[string]any)["uuid"] == uuid {
			found = it.(map[string]any)
		}
	}
	if found == nil || found["last_used"] == nil || found["last_ip"] != "127.0.0.1" {
		t.Errorf("listed = %v", found)
	}
	stored, _ := e.db.ListAppPasswords(context.Background(), e.ID("author"))
	for _, p := range stored {
		if strings.Contains(string(r.Body), p.Hash) {
			t.Fatalf("list shows a stored hash")
		}
	}
	// "me" is the caller.
	e.do("GET", "/api/svc/v2/users/me/application-passwords", "author").WantStatus(200)
	e.do("GET", "/api/svc/v2/users/me/application-passwords", "").WantError(401, "rest_not_logged_in")

	// Others' passwords: administrators only.
	for _, login := range allRoles {
		r := e.do("GET", base("author"), login)
		switch login {
		case "administrator", "author":
			r.WantStatus(200)
		default:
			r.WantError(authStatus(login), "rest_cannot_list_application_passwords")
		}
		r = e.do("POST", base("subscriber"), login, map[string]any{"name": "by " + login})
		switch login {
		case "administrator", "subscriber":
			r.WantStatus(201)
		default:
			r.WantError(authStatus(login), "rest_cannot_create_application_passwords")
		}
		r = e.do("DELETE", base("author")+"/"+uuid, login)
		switch login {
		case "administrator", "author":
		default:
			r.WantError(authStatus(login), "rest_cannot_delete_application_password")
		}
	}
	e.do("POST", base("author"), "author", map[string]any{}).WantError(400, "rest_missing_callback_param")
	e.do("POST", base("author"), "author", map[string]any{"name": "  "}).WantError(400, "rest_application_password_empty_name")
	e.do("GET", "/api/svc/v2/users/99999/application-passwords", "administrator").WantError(404, "rest_user_invalid_id")

	// The deleted password (the administrator deleted it in the loop)
	// no longer signs in.
	e.do("GET", base("author")+"/"+uuid, "author").WantError(404, "rest_application_password_not_found")
	req, _ = http.NewRequest("GET", e.URL+"/api/svc/v2/users/me", nil)
	req.SetBasicAuth("author", plain)
	res, err = e.HTTP.Client().Do(req)
	if err != nil || res.StatusCode != 401 {
		t.Fatalf("deleted password: %v %v", res, err)
	}
	res.Body.Close()
}

func TestUsersAvatarSizesHook(t *testing.T) {
	t.Parallel()
	e := usersEnv(t)
	e.site.Hooks().AvatarSizes.BindFunc(func(ev *events.AvatarSizesEvent) error {
		ev.Sizes = append(ev.Sizes, 128)
		return ev.Next()
	})
	m := e.do("GET", e.userPath("author"), "").Object()
	av := m["avatar_urls"].(map[string]any)
	if len(av) != 4 || !strings.HasSuffix(av["128"].(string), "?s=128&d=mm&r=g") {
		t.Errorf("avatar_urls = %v", av)
	}
	o := e.do("OPTIONS", "/api/svc/v2/users", "")
	if !strings.Contains(string(o.Body), `"128"`) {
		t.Errorf("schema lacks the 128 size: %s", o.Body)
	}
}
