package content

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
)

// CanRead reports whether u may read p (reference §5.2 read_post, with
// password-protected posts readable by everyone who may read the post,
// decisions #15).
func (s *Site) CanRead(ctx context.Context, u *auth.User, p *store.Post) bool {
	pt, ok := s.types.Get(p.Type)
	if !ok || !pt.ShowInRest {
		return false
	}
	if p.Status == "publish" {
		return true
	}
	if p.Status == "inherit" {
		if p.Parent > 0 {
			parent, err := s.st.GetPost(ctx, p.Parent)
			if err != nil {
				return errors.Is(err, store.ErrNotFound)
			}
			return s.CanRead(ctx, u, parent)
		}
		return true
	}
	return s.authz.Can(ctx, u, "read_post", p)
}

// CanEdit reports whether u may edit p.
func (s *Site) CanEdit(ctx context.Context, u *auth.User, p *store.Post) bool {
	if pt, ok := s.types.Get(p.Type); !ok || !pt.ShowInRest {
		return false
	}
	return s.authz.Can(ctx, u, "edit_post", p)
}

// CanDelete reports whether u may delete p.
func (s *Site) CanDelete(ctx context.Context, u *auth.User, p *store.Post) bool {
	if pt, ok := s.types.Get(p.Type); !ok || !pt.ShowInRest {
		return false
	}
	return s.authz.Can(ctx, u, "delete_post", p)
}

// Editable reports, for each post of a page, whether u may edit it, with
// the parents that decide attachments and revisions loaded in one query.
// A collection in edit context shows the posts u may not edit as in view
// context: no password, no raw fields (the item route refuses them).
func (s *Site) Editable(ctx context.Context, u *auth.User, posts []*store.Post) ([]bool, error) {
	var parents []int64
	for _, p := range posts {
		if (p.Status == "inherit" || p.Type == "revision") && p.Parent > 0 {
			parents = append(parents, p.Parent)
		}
	}
	if len(parents) > 0 {
		known, err := s.st.GetPosts(ctx, parents)
		if err != nil {
			return nil, err
		}
		ctx = withKnownPosts(ctx, known)
	}
	out := make([]bool, len(posts))
	for i, p := range posts {
		out[i] = s.CanEdit(ctx, u, p)
	}
	return out, nil
}

type knownPostsKey struct{}

// withKnownPosts lets permission checks under ctx find the posts of known
// without a query; ids known does not hold are loaded as usual.
func withKnownPosts(ctx context.Context, known map[int64]*store.Post) context.Context {
	return context.WithValue(ctx, knownPostsKey{}, known)
}

// knownPosts wraps a post loader so that it answers from the posts
// withKnownPosts put in the context first.
func knownPosts(load func(context.Context, int64) (*store.Post, error)) func(context.Context, int64) (*store.Post, error) {
	return func(ctx context.Context, id int64) (*store.Post, error) {
		if known, ok := ctx.Value(knownPostsKey{}).(map[int64]*store.Post); ok {
			if p, ok := known[id]; ok {
				return p, nil
			}
		}
		return load(ctx, id)
	}
}

// Visibility returns the restriction that keeps a post query to what u may
// read of type pt. It mirrors read_post in SQL so that collection totals
// equal what can be listed.
func (s *Site) Visibility(u *auth.User, pt *PostType) *store.Visibility {
	v := &store.Visibility{Public: []string{"publish"}}
	if pt.Name == "attachment" {
		v.Public = append(v.Public, "inherit")
	}
	if u == nil {
		return v
	}
	c := pt.Caps
	v.Owner = u.ID()
	v.OwnStatuses = []string{"private"}
	if u.HasCap(c.EditPosts) {
		v.OwnStatuses = append(v.OwnStatuses, "draft", "pending", "future", "trash")
	}
	if u.HasCap(c.ReadPrivatePosts) {
		v.OthersStatuses = append(v.OthersStatuses, "private")
	}
	if u.HasCap(c.EditOthersPosts) {
		v.OthersStatuses = append(v.OthersStatuses, "draft", "pending")
		if u.HasCap(c.EditPublishedPosts) {
			v.OthersStatuses = append(v.OthersStatuses, "future")
		}
		if u.HasCap(c.DeleteOthersPosts) {
			v.OthersStatuses = append(v.OthersStatuses, "trash")
		}
	}
	return v
}

// MaxSearchLength bounds the `search` parameter of every collection, in
// characters: longer searches are refused (rest_invalid_param), so that one
// request cannot make the store match a pathological pattern.
const MaxSearchLength = 200

// ProtectedSearch returns which password-protected posts of type pt a
// search by u may match on their excerpt and content: those u may edit.
// Everybody else sees a protected post's text only with its password
// (decisions #15), so search must not reveal it either; nil means none.
func (s *Site) ProtectedSearch(u *auth.User, pt *PostType) *store.Visibility {
	v := editVisibility(u, pt)
	if len(v.Public) == 0 && len(v.OwnStatuses) == 0 && len(v.OthersStatuses) == 0 {
		return nil
	}
	return &v
}

// ListPosts runs a collection query and returns one page of posts and the
// total number of matching posts.
func (s *Site) ListPosts(ctx context.Context, q store.PostQuery) ([]*store.Post, int64, error) {
	posts, err := s.st.ListPosts(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if q.Limit > 0 && q.Offset == 0 && len(posts) < q.Limit {
		// The whole result fits on this page: no second query needed.
		return posts, int64(len(posts)), nil
	}
	total, err := s.countPosts(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	return posts, total, nil
}

// countPosts counts the posts q matches. Counts are cached by the store's
// write version, so a count never outlives a write on any node, and a
// page of a large collection does not rescan it for X-API-Total. The
// version the API server read for the request (store.ContextVersion) is
// used when there is one.
func (s *Site) countPosts(ctx context.Context, q store.PostQuery) (int64, error) {
	version, ok := store.ContextVersion(ctx)
	if !ok {
		var err error
		if version, err = s.st.Version(ctx); err != nil {
			return 0, err
		}
	}
	q.Offset, q.Limit, q.OrderBy, q.Order, q.StickyFirst = 0, 0, "", "", false
	keyJSON, err := json.Marshal(q)
	if err != nil {
		return 0, err
	}
	key := string(keyJSON)
	if n, ok := s.counts.get(version, key); ok {
		return n, nil
	}
	n, err := s.st.CountPosts(ctx, q)
	if err != nil {
		return 0, err
	}
	s.counts.put(version, key, n)
	return n, nil
}

// GetPost loads one post; ok is false when it does not exist.
func (s *Site) GetPost(ctx context.Context, id int64) (*store.Post, bool, error) {
	p, err := s.st.GetPost(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return p, true, nil
}
