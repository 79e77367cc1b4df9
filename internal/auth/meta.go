package auth

import (
	"context"
	"errors"

	"github.com/folio-server/folio/internal/store"
)

// Authorizer resolves meta capabilities (checks against one object, such as
// edit_post on post 7) to the primitive capabilities a user must hold. It is
// the single place where per-object permission rules live (reference §5.2).
//
// A nil *Authorizer, or one with nil fields, still works for the built-in
// post types (post, page, attachment, revision); without GetPost, checks
// that need a parent post fail closed.
type Authorizer struct {
	// TypeCaps returns the capability names of a registered post type.
	TypeCaps func(postType string) (TypeCaps, bool)
	// GetPost loads a post by id: the parent of a revision or attachment,
	// the post of a comment, or a post given by id.
	GetPost func(ctx context.Context, id int64) (*store.Post, error)
}

// maxParentDepth bounds how many parents a check follows, so that a cycle
// in stored data cannot loop.
const maxParentDepth = 8

type postAction int

const (
	actEdit postAction = iota
	actDelete
	actRead
	actPublish
)

// MapMetaCap returns the primitive capabilities u must hold for cap on the
// objects in args. The result is never empty; CapDoNotAllow means nobody
// may, CapExist means everybody may (the anonymous caller included).
//
// Meta capabilities:
//
//   - edit_post, delete_post, read_post, publish_post (and edit_page,
//     delete_page, read_page; with a *store.Post argument also the names
//     its post type's TypeCaps gives them): args[0] is a *store.Post or a
//     post id (int64 or int).
//   - edit_user, delete_user, promote_user, remove_user: args[0] is a user
//     id (int64, int, *User or *store.User). Editing yourself is always
//     allowed; otherwise edit_users, delete_users, promote_users or
//     remove_users is needed.
//   - edit_comment: args[0] is the comment's post (*store.Post or id, may be
//     nil or 0): edit_post of that post, or edit_posts when there is none.
//   - manage_terms, edit_terms, delete_terms (and edit_term, delete_term)
//     need manage_categories; assign_terms (and assign_term) edit_posts.
//
// Any other cap is primitive and returned as is.
func (a *Authorizer) MapMetaCap(ctx context.Context, u *User, cap string, args ...any) []string {
	var arg any
	if len(args) > 0 {
		arg = args[0]
	}
	switch cap {
	case "edit_post", "edit_page":
		return a.mapPostArg(ctx, u, actEdit, arg)
	case "delete_post", "delete_page":
		return a.mapPostArg(ctx, u, actDelete, arg)
	case "read_post", "read_page":
		return a.mapPostArg(ctx, u, actRead, arg)
	case "publish_post":
		return a.mapPostArg(ctx, u, actPublish, arg)
	case "edit_user":
		id, ok := userIDArg(arg)
		if ok && id != 0 && id == u.ID() {
			return []string{CapExist}
		}
		return []string{"edit_users"}
	case "delete_user":
		return []string{"delete_users"}
	case "promote_user", "add_users":
		return []string{"promote_users"}
	case "remove_user":
		return []string{"remove_users"}
	case "edit_comment":
		return a.mapComment(ctx, u, arg)
	case "manage_terms", "edit_terms", "delete_terms", "edit_term", "delete_term":
		return []string{"manage_categories"}
	case "assign_terms", "assign_term":
		return []string{"edit_posts"}
	}
	// A post type's own names for the post meta capabilities (edit_book).
	if p, ok := arg.(*store.Post); ok && p != nil {
		if tc, ok := a.typeCaps(p.Type); ok {
			switch cap {
			case tc.EditPost:
				return a.mapPost(ctx, u, actEdit, p, 0)
			case tc.DeletePost:
				return a.mapPost(ctx, u, actDelete, p, 0)
			case tc.ReadPost:
				return a.mapPost(ctx, u, actRead, p, 0)
			}
		}
	}
	return []string{cap}
}

// Can reports whether u (nil for the anonymous caller) holds cap, primitive
// or meta, for the objects in args.
func (a *Authorizer) Can(ctx context.Context, u *User, cap string, args ...any) bool {
	for _, c := range a.MapMetaCap(ctx, u, cap, args...) {
		switch c {
		case CapExist:
			continue
		case CapDoNotAllow:
			return false
		}
		if !u.HasCap(c) {
			return false
		}
	}
	return true
}

func (a *Authorizer) typeCaps(postType string) (TypeCaps, bool) {
	if a != nil && a.TypeCaps != nil {
		if tc, ok := a.TypeCaps(postType); ok {
			return tc, true
		}
	}
	return builtinTypeCaps(postType)
}

// loadPost returns the post with id; found is false when it does not exist.
func (a *Authorizer) loadPost(ctx context.Context, id int64) (p *store.Post, found bool, err error) {
	if a == nil || a.GetPost == nil {
		return nil, false, errors.New("auth: no post loader configured")
	}
	p, err = a.GetPost(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && p == nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return p, true, nil
}

func (a *Authorizer) mapPostArg(ctx context.Context, u *User, act postAction, arg any) []string {
	switch v := arg.(type) {
	case *store.Post:
		return a.mapPost(ctx, u, act, v, 0)
	case int64, int:
		id, _ := intArg(v)
		if id <= 0 {
			return []string{CapDoNotAllow}
		}
		p, found, err := a.loadPost(ctx, id)
		if err != nil || !found {
			return []string{CapDoNotAllow}
		}
		return a.mapPost(ctx, u, act, p, 0)
	}
	return []string{CapDoNotAllow}
}

func (a *Authorizer) mapComment(ctx context.Context, u *User, arg any) []string {
	switch v := arg.(type) {
	case *store.Post:
		if v != nil {
			return a.mapPost(ctx, u, actEdit, v, 0)
		}
	case int64, int:
		id, _ := intArg(v)
		if id > 0 {
			p, found, err := a.loadPost(ctx, id)
			if err != nil {
				return []string{CapDoNotAllow}
			}
			if found {
				return a.mapPost(ctx, u, actEdit, p, 0)
			}
		}
	}
	return []string{"edit_posts"}
}

// mapPost applies the per-post rules of reference §5.2 to p.
func (a *Authorizer) mapPost(ctx context.Context, u *User, act postAction, p *store.Post, depth int) []string {
	if p == nil || depth > maxParentDepth {
		return []string{CapDoNotAllow}
	}
	// A revision is checked against the post it belongs to.
	if p.Type == "revision" {
		if p.Parent == 0 {
			return []string{CapDoNotAllow}
		}
		parent, found, err := a.loadPost(ctx, p.Parent)
		if err != nil || !found {
			return []string{CapDoNotAllow}
		}
		return a.mapPost(ctx, u, act, parent, depth+1)
	}
	tc, ok := a.typeCaps(p.Type)
	if !ok {
		return []string{CapDoNotAllow}
	}
	if act == actPublish {
		return []string{tc.PublishPosts}
	}

	status := p.Status
	// An attachment (status inherit) follows its parent; without one it
	// counts as published.
	if status == "inherit" {
		if p.Parent != 0 {
			parent, found, err := a.loadPost(ctx, p.Parent)
			if err != nil {
				return []string{CapDoNotAllow}
			}
			if found {
				return a.mapPost(ctx, u, act, parent, depth+1)
			}
		}
		if act == actRead {
			return []string{CapExist}
		}
		status = "publish"
	}

	uid := u.ID()
	own := p.Author != 0 && uid != 0 && p.Author == uid

	if act == actRead {
		switch {
		case status == "publish":
			return []string{CapExist}
		case own:
			return []string{tc.Read}
		case status == "private":
			return []string{tc.ReadPrivatePosts}
		}
		return a.mapPost(ctx, u, actEdit, p, depth+1)
	}

	// A trashed post is judged by the status it had before.
	if status == "trash" {
		status = p.PreTrashStatus
	}
	published := status == "publish" || status == "future"

	posts, others, pub, priv := tc.EditPosts, tc.EditOthersPosts, tc.EditPublishedPosts, tc.EditPrivatePosts
	if act == actDelete {
		posts, others, pub, priv = tc.DeletePosts, tc.DeleteOthersPosts, tc.DeletePublishedPosts, tc.DeletePrivatePosts
	}
	if own {
		if published {
			return []string{pub}
		}
		return []string{posts}
	}
	caps := []string{others}
	if published {
		caps = append(caps, pub)
	} else if status == "private" {
		caps = append(caps, priv)
	}
	return caps
}

func intArg(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}

func userIDArg(v any) (int64, bool) {
	switch x := v.(type) {
	case *User:
		return x.ID(), x != nil
	case *store.User:
		if x == nil {
			return 0, false
		}
		return x.ID, true
	}
	return intArg(v)
}
