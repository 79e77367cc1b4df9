package endpoints

import (
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

func (c *postsController) prepareOne(r *rest.Request, p *store.Post, ctx schema.Context) (*rest.Resource, error) {
	out, err := c.prepareMany(r, []*store.Post{p}, ctx)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// prepareMany builds resources for a page of posts with a fixed number of
// queries (the parents of hierarchical posts, one query per depth level).
// Fields the request's _fields leaves out are not computed: no parent
// chains without link, no term query without term fields or links, no
// rendering of title, content or excerpt nobody asked for.
func (c *postsController) prepareMany(r *rest.Request, posts []*store.Post, ctx schema.Context) ([]*rest.Resource, error) {
	var parents map[int64]*store.Post
	if c.pt.Hierarchical && r.Wants("link") {
		var err error
		if parents, err = c.site.ParentChains(r.Context(), posts); err != nil {
			return nil, err
		}
	}
	siteRoot := r.SiteURL("")
	password := r.String("password")
	var links *postLinks
	if r.WantsLinks() {
		links = c.newPostLinks(r)
	}
	taxes := c.site.Taxonomies().ForType(c.pt.Name)
	// Room for the links of links() and one per taxonomy of addTerms.
	out := rest.NewResources(c.schema, ctx, len(posts), 9+len(taxes))
	if ctx == schema.Edit {
		// Edit context needs edit rights on each item: the others of a
		// page are shown as in view context (no password, no raw text).
		editable, err := c.site.Editable(r.Context(), r.User, posts)
		if err != nil {
			return nil, err
		}
		for i, ok := range editable {
			if !ok {
				out[i].Context = schema.View
			}
		}
	}
	for i, p := range posts {
		c.prepare(r, out[i], p, siteRoot, parents, password, links)
	}
	if err := c.addTerms(r, posts, out, taxes, links); err != nil {
		return nil, err
	}
	// The media controller fires rest_prepare_attachment itself, once its
	// own fields are set.
	if c.pt.Name != "attachment" {
		for i, p := range posts {
			c.site.PreparePostHook(r.Context(), c.pt, p, out[i], r)
		}
	}
	return out, nil
}

// prepare fills res, a new resource in its context, with p. links is nil
// when the response needs no links.
func (c *postsController) prepare(r *rest.Request, res *rest.Resource, p *store.Post, siteRoot string, parents map[int64]*store.Post, password string, links *postLinks) {
	ctx := res.Context
	want := func(name string) bool {
		prop := c.schema.Prop(name)
		return prop != nil && prop.Context&ctx != 0 && r.Wants(name)
	}
	res.Set("id", p.ID)
	setDate(res, "date", p.Date)
	setDate(res, "date_gmt", p.DateGMT)
	if want("guid") {
		res.Set("guid", map[string]any{"rendered": p.GUID, "raw": p.GUID})
	}
	setDate(res, "modified", p.Modified)
	setDate(res, "modified_gmt", p.ModifiedGMT)
	res.Set("password", p.Password)
	res.Set("slug", p.Slug)
	res.Set("status", p.Status)
	res.Set("type", p.Type)
	if want("link") {
		res.Set("link", c.site.Permalink(siteRoot, p, parents))
	}

	protected := p.Password != ""
	// In view and embed context a protected post shows its content only
	// with the right password; edit context always shows it (decisions #15).
	locked := protected && ctx != schema.Edit && password != p.Password
	if want("title") {
		t := ""
		if r.Wants("title.rendered") {
			t = c.site.RenderTitle(p)
		}
		switch {
		case protected:
			t = "Protected: " + t
		case p.Status == "private":
			t = "Private: " + t
		}
		res.Set("title", map[string]any{"raw": p.Title, "rendered": t})
	}
	if want("content") {
		rendered := ""
		if !locked && r.Wants("content.rendered") {
			rendered = c.site.RenderContent(p)
		}
		res.Set("content", map[string]any{"raw": p.Content, "rendered": rendered, "protected": protected})
	}
	if want("excerpt") {
		rendered := ""
		if !locked && r.Wants("excerpt.rendered") {
			rendered = c.site.RenderExcerpt(p)
		}
		res.Set("excerpt", map[string]any{"raw": p.Excerpt, "rendered": rendered, "protected": protected})
	}
	res.Set("author", p.Author)
	res.Set("featured_media", p.FeaturedMedia)
	res.Set("parent", p.Parent)
	res.Set("menu_order", p.MenuOrder)
	res.Set("comment_status", p.CommentStatus)
	res.Set("ping_status", p.PingStatus)
	res.Set("sticky", p.Sticky)
	res.Set("template", p.Template)
	if p.Format == "" {
		res.Set("format", "standard")
	} else {
		res.Set("format", p.Format)
	}
	if links != nil {
		c.links(res, p, links)
	}
}

// setDate sets a date field, null for the all-zero date.
func setDate(res *rest.Resource, name string, t time.Time) {
	if s, ok := content.FormatDate(t); ok {
		res.Set(name, s)
	} else {
		res.Set(name, nil)
	}
}

// postLinks holds what the links of every post of a response share: the
// API root and the URLs that do not depend on the post.
type postLinks struct {
	api        string // Request.URL(""): "http://host/api/"
	base       string // the collection's path under api: "svc/v2/posts"
	ns         string // the namespace's path under api: "svc/v2"
	collection string
	about      string
}

func (c *postsController) newPostLinks(r *rest.Request) *postLinks {
	l := &postLinks{
		api:  r.URL(""),
		base: strings.TrimPrefix(c.base, "/"),
		ns:   strings.TrimPrefix(c.names.Namespace, "/"),
	}
	l.collection = l.api + l.base
	l.about = l.api + l.ns + "/types/" + c.pt.Name
	return l
}

// links adds the relations of reference §6.3. Each URL is built in one
// concatenation (they are Request.URL of the same paths).
func (c *postsController) links(res *rest.Resource, p *store.Post, l *postLinks) {
	var idBuf, numBuf [20]byte
	id := strconv.AppendInt(idBuf[:0], p.ID, 10)
	num := func(n int64) []byte { return strconv.AppendInt(numBuf[:0], n, 10) }
	res.AddLink("self", l.api+l.base+"/"+string(id), false)
	res.AddLink("collection", l.collection, false)
	res.AddLink("about", l.about, false)
	builtin := c.pt.Name == "post" || c.pt.Name == "page"
	if (builtin || c.pt.Supports(content.SupportAuthor)) && p.Author != 0 {
		res.AddLink("author", l.api+l.ns+"/users/"+string(num(p.Author)), true)
	}
	if builtin || c.pt.Supports(content.SupportComments) {
		res.AddLink("replies", l.api+l.ns+"/comments?post="+string(id), true)
	}
	if builtin || c.pt.Supports(content.SupportRevisions) {
		res.AddLink("version-history", l.api+l.base+"/"+string(id)+"/revisions", false)
	}
	if c.pt.Hierarchical && p.Parent != 0 {
		res.AddLink("up", l.api+l.base+"/"+string(num(p.Parent)), true)
	}
	if p.FeaturedMedia != 0 {
		res.AddLink(c.relFeatured, l.api+l.ns+"/media/"+string(num(p.FeaturedMedia)), true)
	}
	if c.pt.Name != "attachment" {
		res.AddLink(c.relAttachment, l.api+l.ns+"/media?parent="+string(id), false)
	}
}
