package auth

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/folio-server/folio/internal/store"
)

// User ids of the fixtures.
const (
	idAdmin       = 1
	idEditor      = 2
	idAuthor      = 3
	idAuthor2     = 4
	idContributor = 5
	idSubscriber  = 6
	idOthersOnly  = 7
)

// othersOnly holds edit/delete_others_posts but not the published/private
// caps, to tell the extra requirements apart.
func othersOnlyUser() *User {
	rs := DefaultRoles()
	rs.Add(NewRole("others_only", "Others only", "read", "edit_others_posts", "delete_others_posts"))
	return NewUser(&store.User{ID: idOthersOnly, Roles: []string{"others_only"}}, rs)
}

func fixtureUsers() map[string]*User {
	return map[string]*User{
		"admin":       NewTestUser(idAdmin, "administrator"),
		"editor":      NewTestUser(idEditor, "editor"),
		"author":      NewTestUser(idAuthor, "author"),
		"author2":     NewTestUser(idAuthor2, "author"),
		"contributor": NewTestUser(idContributor, "contributor"),
		"subscriber":  NewTestUser(idSubscriber, "subscriber"),
		"othersOnly":  othersOnlyUser(),
		"anon":        nil,
	}
}

func post(id int64, typ, status string, author int64) *store.Post {
	return &store.Post{ID: id, Type: typ, Status: status, Author: author}
}

func trashed(id int64, typ, pre string, author int64) *store.Post {
	p := post(id, typ, "trash", author)
	p.PreTrashStatus = pre
	return p
}

func child(p *store.Post, parent int64) *store.Post {
	p.Parent = parent
	return p
}

var errBroken = errors.New("database is down")

// fixturePosts is what the Authorizer's GetPost sees.
func fixturePosts() map[int64]*store.Post {
	ps := []*store.Post{
		post(10, "post", "publish", idAuthor),
		post(11, "post", "draft", idAuthor),
		post(12, "post", "private", idAuthor),
		post(13, "post", "publish", idContributor),
		post(14, "post", "pending", idContributor),
		post(20, "page", "publish", idEditor),
		child(post(30, "attachment", "inherit", idAuthor), 30), // its own parent
		child(post(31, "attachment", "inherit", idAuthor), 32),
		child(post(32, "attachment", "inherit", idAuthor), 31),
	}
	m := map[int64]*store.Post{}
	for _, p := range ps {
		m[p.ID] = p
	}
	return m
}

func newAuthorizer() *Authorizer {
	posts := fixturePosts()
	return &Authorizer{
		TypeCaps: func(name string) (TypeCaps, bool) {
			switch name {
			case "book":
				return CapsFor("book"), true
			case "post", "page", "attachment":
				return builtinTypeCaps(name)
			}
			return TypeCaps{}, false
		},
		GetPost: func(_ context.Context, id int64) (*store.Post, error) {
			if id == 99 {
				return nil, errBroken
			}
			p, ok := posts[id]
			if !ok {
				return nil, store.ErrNotFound
			}
			return p, nil
		},
	}
}

type capCase struct {
	name string
	user string
	cap  string
	arg  any
	want bool
}

func runCapCases(t *testing.T, tests []capCase) {
	t.Helper()
	users := fixtureUsers()
	a := newAuthorizer()
	ctx := context.Background()
	for _, tt := range tests {
		u, ok := users[tt.user]
		if !ok {
			t.Fatalf("%s: unknown fixture user %q", tt.name, tt.user)
		}
		var got bool
		if tt.arg == nil {
			got = a.Can(ctx, u, tt.cap)
		} else {
			got = a.Can(ctx, u, tt.cap, tt.arg)
		}
		if got != tt.want {
			t.Errorf("%s: %s Can(%s, %v) = %v, want %v (mapped to %q)", tt.name, tt.user, tt.cap, tt.arg, got, tt.want,
				a.MapMetaCap(ctx, u, tt.cap, tt.arg))
		}
	}
}

func TestEditPostOwnAndOthers(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"own draft needs edit_posts", "contributor", "edit_post", post(1, "post", "draft", idContributor), true},
		{"own pending needs edit_posts", "contributor", "edit_post", post(1, "post", "pending", idContributor), true},
		{"own published needs edit_published_posts", "contributor", "edit_post", post(1, "post", "publish", idContributor), false},
		{"own scheduled needs edit_published_posts", "contributor", "edit_post", post(1, "post", "future", idContributor), false},
		{"author edits own published", "author", "edit_post", post(1, "post", "publish", idAuthor), true},
		{"author edits own scheduled", "author", "edit_post", post(1, "post", "future", idAuthor), true},
		{"own private needs edit_posts", "author", "edit_post", post(1, "post", "private", idAuthor), true},
		{"subscriber cannot edit own draft", "subscriber", "edit_post", post(1, "post", "draft", idSubscriber), false},
		{"author cannot edit others draft", "author", "edit_post", post(1, "post", "draft", idAuthor2), false},
		{"author cannot edit others published", "author", "edit_post", post(1, "post", "publish", idAuthor2), false},
		{"editor edits others draft", "editor", "edit_post", post(1, "post", "draft", idAuthor), true},
		{"editor edits others published", "editor", "edit_post", post(1, "post", "publish", idAuthor), true},
		{"editor edits others private", "editor", "edit_post", post(1, "post", "private", idAuthor), true},
		{"others draft needs edit_others_posts only", "othersOnly", "edit_post", post(1, "post", "draft", idAuthor), true},
		{"others published also needs edit_published_posts", "othersOnly", "edit_post", post(1, "post", "publish", idAuthor), false},
		{"others scheduled also needs edit_published_posts", "othersOnly", "edit_post", post(1, "post", "future", idAuthor), false},
		{"others private also needs edit_private_posts", "othersOnly", "edit_post", post(1, "post", "private", idAuthor), false},
		{"post without author is others", "author", "edit_post", post(1, "post", "draft", 0), false},
		{"anonymous cannot edit", "anon", "edit_post", post(1, "post", "draft", 0), false},
		{"anonymous cannot edit published", "anon", "edit_post", post(1, "post", "publish", idAuthor), false},
		{"nil post", "admin", "edit_post", (*store.Post)(nil), false},
		{"missing argument", "admin", "edit_post", nil, false},
		{"unknown post type", "admin", "edit_post", post(1, "nope", "draft", idAdmin), false},
	})
}

func TestEditPostTrashUsesPreTrashStatus(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"own trashed draft", "contributor", "edit_post", trashed(1, "post", "draft", idContributor), true},
		{"own trashed published", "contributor", "edit_post", trashed(1, "post", "publish", idContributor), false},
		{"own trashed scheduled", "contributor", "edit_post", trashed(1, "post", "future", idContributor), false},
		{"own trashed without pre-trash status", "contributor", "edit_post", trashed(1, "post", "", idContributor), true},
		{"author own trashed published", "author", "edit_post", trashed(1, "post", "publish", idAuthor), true},
		{"others trashed draft", "othersOnly", "edit_post", trashed(1, "post", "draft", idAuthor), true},
		{"others trashed published", "othersOnly", "edit_post", trashed(1, "post", "publish", idAuthor), false},
		{"others trashed private", "othersOnly", "edit_post", trashed(1, "post", "private", idAuthor), false},
		{"editor others trashed private", "editor", "edit_post", trashed(1, "post", "private", idAuthor), true},
		{"delete own trashed published", "contributor", "delete_post", trashed(1, "post", "publish", idContributor), false},
		{"delete own trashed draft", "contributor", "delete_post", trashed(1, "post", "draft", idContributor), true},
	})
}

func TestDeletePost(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"own draft needs delete_posts", "contributor", "delete_post", post(1, "post", "draft", idContributor), true},
		{"own published needs delete_published_posts", "contributor", "delete_post", post(1, "post", "publish", idContributor), false},
		{"author deletes own published", "author", "delete_post", post(1, "post", "publish", idAuthor), true},
		{"author cannot delete others", "author", "delete_post", post(1, "post", "draft", idAuthor2), false},
		{"editor deletes others private", "editor", "delete_post", post(1, "post", "private", idAuthor), true},
		{"others draft needs delete_others_posts", "othersOnly", "delete_post", post(1, "post", "draft", idAuthor), true},
		{"others published needs delete_published_posts", "othersOnly", "delete_post", post(1, "post", "publish", idAuthor), false},
		{"others private needs delete_private_posts", "othersOnly", "delete_post", post(1, "post", "private", idAuthor), false},
		{"subscriber", "subscriber", "delete_post", post(1, "post", "draft", idSubscriber), false},
		{"anonymous", "anon", "delete_post", post(1, "post", "publish", idAuthor), false},
		{"by id", "author", "delete_post", int64(10), true},
		{"by int id", "author2", "delete_post", 10, false},
		{"missing id", "admin", "delete_post", int64(404), false},
	})
}

func TestPagesUsePageCapabilities(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"author cannot edit own page draft", "author", "edit_post", post(1, "page", "draft", idAuthor), false},
		{"contributor cannot edit own page", "contributor", "edit_page", post(1, "page", "draft", idContributor), false},
		{"editor edits others published page", "editor", "edit_post", post(1, "page", "publish", idAuthor), true},
		{"edit_page names the same check", "editor", "edit_page", post(1, "page", "private", idAuthor), true},
		{"author cannot delete own page", "author", "delete_page", post(1, "page", "draft", idAuthor), false},
		{"editor deletes page", "editor", "delete_post", post(1, "page", "publish", idAdmin), true},
		{"author cannot publish page", "author", "publish_post", post(1, "page", "draft", idAuthor), false},
		{"editor publishes page", "editor", "publish_post", post(1, "page", "draft", idAuthor), true},
		{"author publishes post", "author", "publish_post", post(1, "post", "draft", idAuthor), true},
		{"contributor cannot publish", "contributor", "publish_post", post(1, "post", "draft", idContributor), false},
		{"subscriber cannot read others private page", "subscriber", "read_page", post(1, "page", "private", idEditor), false},
		{"editor reads private page", "editor", "read_page", post(1, "page", "private", idAdmin), true},
	})
}

func TestRevisionsAreCheckedAgainstTheirParent(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"author edits revision of own published post", "author", "edit_post", child(post(50, "revision", "inherit", idAuthor), 10), true},
		{"revision author does not matter", "author", "edit_post", child(post(50, "revision", "inherit", idAuthor2), 10), true},
		{"other author cannot", "author2", "edit_post", child(post(50, "revision", "inherit", idAuthor2), 10), false},
		{"contributor cannot edit revision of published", "contributor", "edit_post", child(post(50, "revision", "inherit", idContributor), 13), false},
		{"contributor edits revision of own pending", "contributor", "edit_post", child(post(50, "revision", "inherit", idContributor), 14), true},
		{"delete follows parent", "author", "delete_post", child(post(50, "revision", "inherit", idAuthor), 11), true},
		{"delete by other author", "author2", "delete_post", child(post(50, "revision", "inherit", idAuthor2), 11), false},
		{"read follows parent private", "subscriber", "read_post", child(post(50, "revision", "inherit", idSubscriber), 12), false},
		{"read follows parent published", "anon", "read_post", child(post(50, "revision", "inherit", 0), 10), true},
		{"missing parent", "admin", "edit_post", child(post(50, "revision", "inherit", idAdmin), 404), false},
		{"no parent", "admin", "edit_post", post(50, "revision", "inherit", idAdmin), false},
		{"parent load fails", "admin", "read_post", child(post(50, "revision", "inherit", idAdmin), 99), false},
	})
}

func TestInheritAttachments(t *testing.T) {
	t.Parallel()
	att := func(author, parent int64) *store.Post {
		return child(post(60, "attachment", "inherit", author), parent)
	}
	runCapCases(t, []capCase{
		{"anonymous reads unattached", "anon", "read_post", att(idAuthor, 0), true},
		{"anonymous reads attached to published", "anon", "read_post", att(idAuthor, 10), true},
		{"anonymous cannot read attached to draft", "anon", "read_post", att(idAuthor, 11), false},
		{"anonymous cannot read attached to private", "anon", "read_post", att(idAuthor, 12), false},
		{"subscriber cannot read attached to private", "subscriber", "read_post", att(idSubscriber, 12), false},
		{"parent author reads attached to private", "author", "read_post", att(idAuthor2, 12), true},
		{"editor reads attached to private", "editor", "read_post", att(idAuthor, 12), true},
		{"missing parent counts as unattached", "anon", "read_post", att(idAuthor, 404), true},
		{"parent load fails", "admin", "read_post", att(idAuthor, 99), false},
		{"parent cycle", "admin", "read_post", int64(30), false},
		{"longer parent cycle", "admin", "edit_post", int64(31), false},
		{"edit follows parent draft", "author", "edit_post", att(idAuthor2, 11), true},
		{"edit follows parent draft, other author", "author2", "edit_post", att(idAuthor2, 11), false},
		{"editor edits attached", "editor", "edit_post", att(idAuthor, 11), true},
		{"unattached own counts as published", "author", "edit_post", att(idAuthor, 0), true},
		{"unattached own needs edit_published_posts", "contributor", "edit_post", att(idContributor, 0), false},
		{"unattached others needs edit_others_posts", "author", "edit_post", att(idAuthor2, 0), false},
		{"unattached others needs edit_published_posts", "othersOnly", "edit_post", att(idAuthor, 0), false},
		{"delete unattached own", "author", "delete_post", att(idAuthor, 0), true},
		{"delete unattached others", "author", "delete_post", att(idAuthor2, 0), false},
		{"delete follows parent", "contributor", "delete_post", att(idAuthor, 14), true},
		{"private attachment own", "author", "read_post", post(60, "attachment", "private", idAuthor), true},
		{"private attachment others", "author", "read_post", post(60, "attachment", "private", idAuthor2), false},
	})
}

func TestReadPost(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"anonymous reads published", "anon", "read_post", post(1, "post", "publish", idAuthor), true},
		{"anonymous reads published by id", "anon", "read_post", int64(10), true},
		{"anonymous reads published page", "anon", "read_page", post(1, "page", "publish", idEditor), true},
		{"anonymous reads published custom type", "anon", "read_post", post(1, "book", "publish", idEditor), true},
		{"anonymous cannot read draft", "anon", "read_post", post(1, "post", "draft", idAuthor), false},
		{"anonymous cannot read draft by id", "anon", "read_post", int64(11), false},
		{"anonymous cannot read private", "anon", "read_post", post(1, "post", "private", idAuthor), false},
		{"anonymous cannot read scheduled", "anon", "read_post", post(1, "post", "future", idAuthor), false},
		{"anonymous cannot read trash", "anon", "read_post", trashed(1, "post", "publish", idAuthor), false},
		{"anonymous cannot read authorless draft", "anon", "read_post", post(1, "post", "draft", 0), false},
		{"subscriber cannot read others private", "subscriber", "read_post", post(1, "post", "private", idAuthor), false},
		{"author reads own private", "author", "read_post", post(1, "post", "private", idAuthor), true},
		{"author cannot read others private", "author", "read_post", post(1, "post", "private", idAuthor2), false},
		{"editor reads others private", "editor", "read_post", post(1, "post", "private", idAuthor), true},
		{"contributor reads own scheduled", "contributor", "read_post", post(1, "post", "future", idContributor), true},
		{"own draft needs read", "subscriber", "read_post", post(1, "post", "draft", idSubscriber), true},
		{"contributor cannot read others pending", "contributor", "read_post", post(1, "post", "pending", idAuthor), false},
		{"author cannot read others draft", "author", "read_post", post(1, "post", "draft", idAuthor2), false},
		{"editor reads others draft", "editor", "read_post", post(1, "post", "draft", idAuthor), true},
		{"others draft reads as edit_post", "othersOnly", "read_post", post(1, "post", "draft", idAuthor), true},
		{"others scheduled reads as edit_post", "othersOnly", "read_post", post(1, "post", "future", idAuthor), false},
		{"editor reads others trash", "editor", "read_post", trashed(1, "post", "draft", idAuthor), true},
		{"unknown post type", "admin", "read_post", post(1, "nope", "publish", idAdmin), false},
		{"missing id", "admin", "read_post", int64(404), false},
		{"failing store", "admin", "read_post", int64(99), false},
		{"non-post argument", "admin", "read_post", "10", false},
	})
}

func TestUserMetaCaps(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"edit yourself", "subscriber", "edit_user", int64(idSubscriber), true},
		{"edit yourself, int id", "contributor", "edit_user", idContributor, true},
		{"edit yourself, *User", "author", "edit_user", NewTestUser(idAuthor), true},
		{"edit yourself, *store.User", "author", "edit_user", &store.User{ID: idAuthor}, true},
		{"subscriber cannot edit others", "subscriber", "edit_user", int64(idAdmin), false},
		{"editor cannot edit others", "editor", "edit_user", int64(idAuthor), false},
		{"admin edits others", "admin", "edit_user", int64(idAuthor), true},
		{"anonymous cannot edit user 0", "anon", "edit_user", int64(0), false},
		{"anonymous cannot edit", "anon", "edit_user", int64(idAdmin), false},
		{"edit_user without id", "editor", "edit_user", nil, false},
		{"cannot delete yourself without delete_users", "subscriber", "delete_user", int64(idSubscriber), false},
		{"admin deletes", "admin", "delete_user", int64(idAuthor), true},
		{"editor cannot delete", "editor", "delete_user", int64(idAuthor), false},
		{"admin promotes", "admin", "promote_user", int64(idAuthor), true},
		{"editor cannot promote", "editor", "promote_user", int64(idAuthor), false},
		{"cannot promote yourself without promote_users", "author", "promote_user", int64(idAuthor), false},
		{"admin removes", "admin", "remove_user", int64(idAuthor), true},
		{"editor cannot remove", "editor", "remove_user", int64(idAuthor), false},
	})
}

func TestEditComment(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"no post needs edit_posts", "contributor", "edit_comment", nil, true},
		{"no post, subscriber", "subscriber", "edit_comment", nil, false},
		{"post 0 needs edit_posts", "contributor", "edit_comment", int64(0), true},
		{"nil post needs edit_posts", "subscriber", "edit_comment", (*store.Post)(nil), false},
		{"missing post needs edit_posts", "contributor", "edit_comment", int64(404), true},
		{"failing store", "admin", "edit_comment", int64(99), false},
		{"own published post", "author", "edit_comment", int64(10), true},
		{"others published post", "author2", "edit_comment", int64(10), false},
		{"contributor on own published post", "contributor", "edit_comment", int64(13), false},
		{"editor on any post", "editor", "edit_comment", post(1, "post", "private", idAuthor), true},
		{"anonymous", "anon", "edit_comment", nil, false},
	})
}

func TestTermAndPrimitiveCaps(t *testing.T) {
	t.Parallel()
	runCapCases(t, []capCase{
		{"manage_terms", "editor", "manage_terms", nil, true},
		{"manage_terms author", "author", "manage_terms", nil, false},
		{"edit_terms", "editor", "edit_terms", nil, true},
		{"edit_terms contributor", "contributor", "edit_terms", nil, false},
		{"delete_terms", "admin", "delete_terms", nil, true},
		{"delete_terms author", "author", "delete_terms", nil, false},
		{"assign_terms contributor", "contributor", "assign_terms", nil, true},
		{"assign_terms subscriber", "subscriber", "assign_terms", nil, false},
		{"list_users admin", "admin", "list_users", nil, true},
		{"list_users editor", "editor", "list_users", nil, false},
		{"moderate_comments editor", "editor", "moderate_comments", nil, true},
		{"moderate_comments author", "author", "moderate_comments", nil, false},
		{"upload_files author", "author", "upload_files", nil, true},
		{"upload_files contributor", "contributor", "upload_files", nil, false},
		{"role name", "editor", "editor", nil, true},
		{"other role name", "editor", "administrator", nil, false},
		{"anonymous read", "anon", "read", nil, false},
		{"anonymous exist", "anon", "exist", nil, true},
		{"do_not_allow", "admin", "do_not_allow", nil, false},
		{"unknown cap", "admin", "fly", nil, false},
	})
}

func TestMapMetaCapResults(t *testing.T) {
	t.Parallel()
	a := newAuthorizer()
	ctx := context.Background()
	author := NewTestUser(idAuthor, "author")
	book := post(1, "book", "publish", idAuthor2)
	tests := []struct {
		name string
		cap  string
		args []any
		want []string
	}{
		{"others published post", "edit_post", []any{post(1, "post", "publish", idAuthor2)}, []string{"edit_others_posts", "edit_published_posts"}},
		{"others private page", "edit_post", []any{post(1, "page", "private", idAuthor2)}, []string{"edit_others_pages", "edit_private_pages"}},
		{"others draft book", "delete_post", []any{post(1, "book", "draft", idAuthor2)}, []string{"delete_others_books"}},
		{"others published book", "edit_book", []any{book}, []string{"edit_others_books", "edit_published_books"}},
		{"delete_book", "delete_book", []any{book}, []string{"delete_others_books", "delete_published_books"}},
		{"read_book private", "read_book", []any{post(1, "book", "private", idAuthor2)}, []string{"read_private_books"}},
		{"read own draft", "read_post", []any{post(1, "post", "draft", idAuthor)}, []string{"read"}},
		{"read published", "read_post", []any{post(1, "post", "publish", idAuthor2)}, []string{CapExist}},
		{"own published", "edit_post", []any{post(1, "post", "publish", idAuthor)}, []string{"edit_published_posts"}},
		{"own draft page", "delete_page", []any{post(1, "page", "draft", idAuthor)}, []string{"delete_pages"}},
		{"publish book", "publish_post", []any{book}, []string{"publish_books"}},
		{"attachment uses posts family", "edit_post", []any{post(1, "attachment", "private", idAuthor2)}, []string{"edit_others_posts", "edit_private_posts"}},
		{"yourself", "edit_user", []any{int64(idAuthor)}, []string{CapExist}},
		{"other user", "edit_user", []any{int64(idAdmin)}, []string{"edit_users"}},
		{"delete user", "delete_user", []any{int64(idAuthor)}, []string{"delete_users"}},
		{"terms", "edit_terms", nil, []string{"manage_categories"}},
		{"assign terms", "assign_terms", nil, []string{"edit_posts"}},
		{"comment without post", "edit_comment", nil, []string{"edit_posts"}},
		{"primitive", "list_users", nil, []string{"list_users"}},
		{"edit_book on a post is primitive", "edit_book", []any{post(1, "post", "draft", idAuthor)}, []string{"edit_book"}},
		{"unknown type", "edit_post", []any{post(1, "nope", "draft", idAuthor)}, []string{CapDoNotAllow}},
	}
	for _, tt := range tests {
		if got := a.MapMetaCap(ctx, author, tt.cap, tt.args...); !slices.Equal(got, tt.want) {
			t.Errorf("%s: MapMetaCap(%s) = %q, want %q", tt.name, tt.cap, got, tt.want)
		}
	}
}

func TestNilAuthorizerUsesBuiltinTypes(t *testing.T) {
	t.Parallel()
	var a *Authorizer
	ctx := context.Background()
	editor := NewTestUser(idEditor, "editor")
	tests := []struct {
		name string
		u    *User
		cap  string
		arg  any
		want bool
	}{
		{"page", editor, "edit_post", post(1, "page", "publish", idAuthor), true},
		{"custom type unknown", editor, "edit_post", post(1, "book", "draft", idAuthor), false},
		{"published read anonymous", nil, "read_post", post(1, "post", "publish", idAuthor), true},
		{"revision needs a loader", editor, "edit_post", child(post(2, "revision", "inherit", idAuthor), 1), false},
		{"id needs a loader", editor, "edit_post", int64(1), false},
		{"unattached attachment", nil, "read_post", post(1, "attachment", "inherit", idAuthor), true},
		{"attached attachment needs a loader", editor, "read_post", child(post(1, "attachment", "inherit", idAuthor), 5), false},
	}
	for _, tt := range tests {
		if got := a.Can(ctx, tt.u, tt.cap, tt.arg); got != tt.want {
			t.Errorf("%s: Can = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCapsFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got, want TypeCaps
	}{
		{CapsFor("post"), TypeCaps{
			EditPost: "edit_post", ReadPost: "read_post", DeletePost: "delete_post",
			EditPosts: "edit_posts", EditOthersPosts: "edit_others_posts", PublishPosts: "publish_posts",
			ReadPrivatePosts: "read_private_posts", Read: "read", DeletePosts: "delete_posts",
			DeletePrivatePosts: "delete_private_posts", DeletePublishedPosts: "delete_published_posts",
			DeleteOthersPosts: "delete_others_posts", EditPrivatePosts: "edit_private_posts",
			EditPublishedPosts: "edit_published_posts", CreatePosts: "edit_posts",
		}},
		{CapsFor("page"), TypeCaps{
			EditPost: "edit_page", ReadPost: "read_page", DeletePost: "delete_page",
			EditPosts: "edit_pages", EditOthersPosts: "edit_others_pages", PublishPosts: "publish_pages",
			ReadPrivatePosts: "read_private_pages", Read: "read", DeletePosts: "delete_pages",
			DeletePrivatePosts: "delete_private_pages", DeletePublishedPosts: "delete_published_pages",
			DeleteOthersPosts: "delete_others_pages", EditPrivatePosts: "edit_private_pages",
			EditPublishedPosts: "edit_published_pages", CreatePosts: "edit_pages",
		}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("CapsFor = %+v\nwant %+v", tt.got, tt.want)
		}
	}
	b := CapsFor("book")
	if b.EditPost != "edit_book" || b.EditOthersPosts != "edit_others_books" || b.CreatePosts != "edit_books" || b.Read != "read" {
		t.Errorf("CapsFor(book) = %+v", b)
	}
	if p := CapsForPlural("person", "people"); p.EditPosts != "edit_people" || p.ReadPost != "read_person" {
		t.Errorf("CapsForPlural = %+v", p)
	}
	m := MediaCaps()
	if m.CreatePosts != "upload_files" || m.EditPosts != "edit_posts" {
		t.Errorf("MediaCaps = %+v", m)
	}
	tc := DefaultTaxCaps()
	if tc != (TaxCaps{"manage_categories", "manage_categories", "manage_categories", "edit_posts"}) {
		t.Errorf("DefaultTaxCaps = %+v", tc)
	}
}
