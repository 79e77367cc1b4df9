package endpoints

import (
	"strconv"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

func (c *commentsController) prepareOne(r *rest.Request, cm *store.Comment, ctx schema.Context) (*rest.Resource, error) {
	out, err := c.prepareMany(r, []*store.Comment{cm}, ctx)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// related loads what the resources of list need, through the request
// cache, with a fixed number of queries: their posts, the parents of
// hierarchical posts (one query per depth level) and which comments have
// replies.
func (c *commentsController) related(r *rest.Request, list []*store.Comment) (*commentRelated, error) {
	cache := r.Cache()
	rel := &commentRelated{parents: map[int64]*store.Post{}, replies: map[int64]bool{}}
	postIDs := make([]int64, 0, len(list))
	var ids []int64
	for _, cm := range list {
		postIDs = append(postIDs, cm.PostID)
		if v, ok := cache[hasRepliesKey(cm.ID)]; ok {
			rel.replies[cm.ID] = v.(bool)
		} else {
			ids = append(ids, cm.ID)
		}
	}
	var err error
	if rel.posts, err = c.posts(r, postIDs); err != nil {
		return nil, err
	}
	// Parent chains of hierarchical posts, level by level.
	var next []int64
	for _, p := range rel.posts {
		rel.parents[p.ID] = p
		if pt, ok := c.site.Types().Get(p.Type); ok && pt.Hierarchical && p.Parent != 0 {
			next = append(next, p.Parent)
		}
	}
	for depth := 0; len(next) > 0 && depth < 32; depth++ {
		got, err := c.posts(r, next)
		if err != nil {
			return nil, err
		}
		next = next[:0]
		for _, p := range got {
			if _, seen := rel.parents[p.ID]; !seen {
				rel.parents[p.ID] = p
				if p.Parent != 0 {
					next = append(next, p.Parent)
				}
			}
		}
	}
	if len(ids) > 0 {
		got, err := c.site.CommentsWithReplies(r.Context(), ids)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			rel.replies[id] = got[id]
			cache[hasRepliesKey(id)] = got[id]
		}
	}
	return rel, nil
}

// commentRelated is what related loads.
type commentRelated struct {
	posts   map[int64]*store.Post
	parents map[int64]*store.Post
	replies map[int64]bool
}

// hasRepliesKey caches whether a comment has replies.
type hasRepliesKey int64

// prepareMany builds resources for a page of comments with a fixed number
// of queries (see related).
func (c *commentsController) prepareMany(r *rest.Request, list []*store.Comment, ctx schema.Context) ([]*rest.Resource, error) {
	o, sizes := c.items.forSettings(requestSettings(r, c.site))
	rel, err := c.related(r, list)
	if err != nil {
		return nil, err
	}
	siteRoot := r.SiteURL("")
	out := make([]*rest.Resource, len(list))
	for i, cm := range list {
		out[i] = c.prepare(r, o, sizes, cm, ctx, rel.posts[cm.PostID], rel.parents, siteRoot, rel.replies[cm.ID])
	}
	return out, nil
}

func (c *commentsController) prepare(r *rest.Request, o *schema.Object, sizes []int, cm *store.Comment, ctx schema.Context,
	post *store.Post, parents map[int64]*store.Post, siteRoot string, hasReplies bool) *rest.Resource {
	res := rest.NewResource(o, ctx)
	res.Set("id", cm.ID)
	res.Set("post", cm.PostID)
	res.Set("parent", cm.Parent)
	res.Set("author", cm.AuthorID)
	res.Set("author_name", cm.AuthorName)
	res.Set("author_email", cm.AuthorEmail)
	res.Set("author_url", cm.AuthorURL)
	res.Set("author_ip", cm.AuthorIP)
	res.Set("author_user_agent", cm.AuthorUserAgent)
	setDate(res, "date", cm.Date)
	setDate(res, "date_gmt", cm.DateGMT)
	if r.Wants("content") {
		rendered := ""
		if r.Wants("content.rendered") {
			rendered = c.site.RenderComment(cm)
		}
		res.Set("content", map[string]any{"raw": cm.Content, "rendered": rendered})
	}
	res.Set("karma", cm.Karma)
	anchor := "#comment-" + strconv.FormatInt(cm.ID, 10)
	switch {
	case !r.Wants("link"):
	case post != nil:
		res.Set("link", c.site.Permalink(siteRoot, post, parents)+anchor)
	default:
		res.Set("link", siteRoot+"/"+anchor)
	}
	res.Set("status", content.CommentStatus(cm.Approved))
	typ := cm.Type
	if typ == "" {
		typ = "comment"
	}
	res.Set("type", typ)
	if len(sizes) > 0 && r.Wants("author_avatar_urls") {
		avatars := make(map[string]any, len(sizes))
		for _, sz := range sizes {
			avatars[strconv.Itoa(sz)] = content.AvatarURL(cm.AuthorEmail, sz)
		}
		res.Set("author_avatar_urls", avatars)
	}
	if r.WantsLinks() {
		c.links(r, res, cm, post, hasReplies)
	}
	return res
}

// links adds the relations of reference §6.3, plus `children` when the
// comment has replies (as later versions do).
func (c *commentsController) links(r *rest.Request, res *rest.Resource, cm *store.Comment, post *store.Post, hasReplies bool) {
	ns := c.names.Namespace
	id := strconv.FormatInt(cm.ID, 10)
	res.AddLink("self", r.URL(c.base+"/"+id), false)
	res.AddLink("collection", r.URL(c.base), false)
	if cm.AuthorID != 0 {
		res.AddLink("author", r.URL(ns+"/users/"+strconv.FormatInt(cm.AuthorID, 10)), true)
	}
	if post != nil {
		if pt, ok := c.site.Types().Get(post.Type); ok && pt.ShowInRest {
			res.AddLink("up", r.URL(ns+"/"+pt.RestBase+"/"+strconv.FormatInt(post.ID, 10)), true,
				rest.LinkAttr{Key: "post_type", Value: post.Type})
		}
	}
	if cm.Parent != 0 {
		res.AddLink("in-reply-to", r.URL(c.base+"/"+strconv.FormatInt(cm.Parent, 10)), true)
	}
	if hasReplies {
		res.AddLink("children", r.URL(c.base+"?parent="+id), true)
	}
}
