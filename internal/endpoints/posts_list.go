package endpoints

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

func (c *postsController) list(r *rest.Request) (*rest.Response, error) {
	q, page, perPage, err := c.query(r)
	if err != nil {
		return nil, err
	}
	q = c.site.PostQueryHook(r.Context(), c.pt, q, r)
	posts, total, err := c.site.ListPosts(r.Context(), q)
	if err != nil {
		return nil, err
	}
	// Embedded sub-requests (replies, parents, …) find these in the
	// request cache instead of loading them again.
	if r.Embeds() {
		cache := r.Cache()
		for _, p := range posts {
			cache[postKey(p.ID)] = p
			// The author of a published post of a public type may be
			// seen by anyone: the embedded author needs no query for it.
			if p.Status == "publish" && c.pt.Public {
				cache[publishedKey(p.Author)] = true
			}
		}
	}
	res, err := c.prepareMany(r, posts, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	resp.Paginate(r, total, page, perPage)
	return resp, nil
}

// query turns the collection parameters (and the whitelisted `filter[]`
// vars, decisions #11) into a store query.
func (c *postsController) query(r *rest.Request) (store.PostQuery, int, int, error) {
	page, perPage := pageArgs(r)
	q := store.PostQuery{
		Types:      []string{c.pt.Name},
		Search:     render.PlainText(r.String("search")),
		Include:    r.IDs("include"),
		Exclude:    r.IDs("exclude"),
		OrderBy:    r.String("orderby"),
		Order:      r.String("order"),
		Visibility: c.site.Visibility(r.User, c.pt),
		Authors:    r.IDs("author"),

		SearchProtected: c.site.ProtectedSearch(r.User, c.pt),
		SearchPassword:  r.String("password"),
		AuthorExclude:   r.IDs("author_exclude"),
	}
	if c.pt.Hierarchical {
		if r.Has("parent") {
			q.Parents, q.ParentsSet = r.IDs("parent"), true
		}
		q.ParentExclude = r.IDs("parent_exclude")
	}
	if r.Has("menu_order") && c.pt.Supports(content.SupportPageAttributes) {
		m := r.Int("menu_order")
		q.MenuOrder = &m
	}
	q.Slugs = slugFilter(r)
	var err error
	if q.After, q.Before, err = dateRange(c.site, r); err != nil {
		return q, 0, 0, err
	}
	q.Statuses = c.statuses(r.String("status"))
	c.addTermFilters(r, &q)

	canEdit := r.User.HasCap(c.pt.Caps.EditPosts)
	for key, val := range filterVars(r) {
		switch key {
		case "year":
			q.Year = atoi(val)
		case "monthnum":
			q.Month = atoi(val)
		case "day":
			q.Day = atoi(val)
		case "posts_per_page":
			if n := atoi(val); n > 0 {
				perPage = min(n, 100)
			}
		case "paged":
			if n := atoi(val); n > 0 {
				page = n
			}
		case "orderby":
			if ob, ok := filterOrderBy[strings.ToLower(val)]; ok {
				q.OrderBy = ob
			}
		case "order":
			if o := strings.ToLower(val); o == "asc" || o == "desc" {
				q.Order = o
			}
		case "s":
			q.Search = render.PlainText(val)
		case "author_name":
			u, ok, err := c.site.GetUserBySlug(r.Context(), render.Slug(val))
			if err != nil {
				return q, 0, 0, err
			}
			if ok {
				q.Authors = []int64{u.ID}
			} else {
				q.Authors = []int64{-1} // nobody
			}
		case "ignore_sticky_posts":
			if c.pt.Name == "post" {
				q.StickyFirst = !truthy(val)
			}
		case "post_status":
			if canEdit {
				q.Statuses = c.statuses(keyUnsafe.ReplaceAllString(strings.ToLower(val), ""))
			}
		case "category_name", "tag":
			addSlugFilter(&q, key, val)
		}
	}
	if r.String("orderby") == "relevance" && strings.TrimSpace(q.Search) == "" {
		// As later WordPress answers it.
		return q, 0, 0, rest.NewError("rest_no_search_term_defined", 400, "You need to define a search term to order by relevance.")
	}
	if q.OrderBy == "" {
		q.OrderBy = "date"
	}
	if q.Order == "" {
		q.Order = "desc"
	}
	q.Limit = perPage
	q.Offset = pageOffset(r, page, perPage)
	return q, page, perPage, nil
}

var filterOrderBy = map[string]string{
	"date": "date", "title": "title", "name": "slug", "id": "id", "modified": "modified",
	"menu_order": "menu_order", "author": "author", "parent": "parent", "post__in": "include",
	"relevance": "relevance",
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false":
		return false
	}
	return true
}

// statuses maps the `status` parameter to the statuses queried.
func (c *postsController) statuses(s string) []string {
	switch s {
	case "", "publish":
		return []string{"publish"}
	case "any":
		var out []string
		for _, st := range c.site.Statuses().All() {
			if !st.Internal {
				out = append(out, st.Name)
			}
		}
		return out
	default:
		return []string{s}
	}
}

// filterVars collects `filter[key]=value` parameters from the JSON body,
// the form body and the query string (in that precedence).
func filterVars(r *rest.Request) map[string]string {
	out := map[string]string{}
	add := func(vals url.Values) {
		for k, vs := range vals {
			if strings.HasPrefix(k, "filter[") && strings.HasSuffix(k, "]") && len(vs) > 0 {
				key := k[len("filter[") : len(k)-1]
				if _, ok := out[key]; !ok {
					out[key] = vs[0]
				}
			}
		}
	}
	if v, ok := r.Get("filter"); ok {
		if m, ok := v.(map[string]any); ok {
			for k, val := range m {
				switch t := val.(type) {
				case string:
					out[k] = t
				case float64:
					out[k] = strconv.FormatFloat(t, 'f', -1, 64)
				case bool:
					out[k] = strconv.FormatBool(t)
				}
			}
		}
	}
	add(r.Form)
	add(r.Query)
	return out
}
