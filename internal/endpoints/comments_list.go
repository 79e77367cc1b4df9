package endpoints

import (
	"slices"

	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// statusQuery maps the collection's status vocabulary to stored values:
// approve, hold, spam, trash, all (approve and hold), any (no filter).
func statusQuery(s string) []string {
	switch s {
	case "approve":
		return []string{store.CommentApproved}
	case "hold":
		return []string{store.CommentHeld}
	case "all":
		return []string{store.CommentApproved, store.CommentHeld}
	case "any":
		return nil
	}
	return []string{s}
}

// typeQuery maps the collection's type vocabulary: comment, pings
// (pingbacks and trackbacks), all (no filter).
func typeQuery(t string) []string {
	switch t {
	case "all":
		return nil
	case "pings":
		return []string{"pingback", "trackback"}
	}
	return []string{t}
}

// query turns the collection parameters into a store query (before the
// rest_comment_query hook) and returns it with the page and page size.
func (c *commentsController) query(r *rest.Request) (store.CommentQuery, int, int, error) {
	page, perPage := pageArgs(r)
	postIDs := r.IDs("post")
	var unlocked []int64
	if len(postIDs) == 1 && r.Has("password") {
		posts, err := c.posts(r, postIDs)
		if err != nil {
			return store.CommentQuery{}, 0, 0, err
		}
		if p, ok := posts[postIDs[0]]; ok && p.Password != "" && p.Password == r.String("password") {
			unlocked = postIDs
		}
	}
	q := store.CommentQuery{
		Search: render.PlainText(r.String("search")),
		// Emails and IPs are shown only to moderators (edit context), so
		// only they may search them.
		SearchPrivate: r.User.HasCap("moderate_comments"),
		Authors:       r.IDs("author"),
		AuthorExclude: r.IDs("author_exclude"),
		AuthorEmail:   r.String("author_email"),
		Include:       r.IDs("include"),
		Exclude:       r.IDs("exclude"),
		Posts:         postIDs,
		Parents:       r.IDs("parent"),
		ParentExclude: r.IDs("parent_exclude"),
		Approved:      statusQuery(r.String("status")),
		Types:         typeQuery(r.String("type")),
		Access:        c.site.CommentAccess(r.User, unlocked),
		OrderBy:       r.String("orderby"),
		Order:         r.String("order"),
		Limit:         perPage,
	}
	q.Karma = optInt(r, "karma")
	var err error
	if q.After, q.Before, err = dateRange(c.site, r); err != nil {
		return q, 0, 0, err
	}
	q.Offset = pageOffset(r, page, perPage)
	return q, page, perPage, nil
}

// repliesKey caches, per post, the first page of comments loaded for many
// embedded `replies` links at once.
type repliesKey int64

type repliesPage struct {
	list  []*store.Comment
	total int64
}

// repliesPost returns the post id of a request that is a plain `replies`
// link (only `post` with one id, and `context`), 0 otherwise.
func repliesPost(r *rest.Request) int64 {
	ids := r.IDs("post")
	if len(ids) != 1 || ids[0] == 0 {
		return 0
	}
	for _, name := range r.Params() {
		if name != "post" && name != "context" && r.Has(name) {
			return 0
		}
	}
	return ids[0]
}

// prefetchLists serves the embedded `replies` links of a page of posts:
// their posts, first pages and totals, the replies of those comments and
// the posts' parent chains are loaded once for all of them.
func (c *commentsController) prefetchLists(reqs []*rest.Request) {
	var posts []int64
	var first *rest.Request
	for _, r := range reqs {
		if id := repliesPost(r); id != 0 {
			if first == nil {
				first = r
			}
			if !slices.Contains(posts, id) {
				posts = append(posts, id)
			}
		}
	}
	if first == nil || !c.site.CanPageCommentsOfPosts() {
		return
	}
	cache := first.Cache()
	records, err := c.posts(first, posts)
	if err != nil {
		return // each request reports its own error
	}
	q, _, _, err := c.query(first)
	if err != nil {
		return
	}
	q = c.site.CommentQueryHook(first.Context(), q, first)
	// A post's comment_count is its number of approved comments: when
	// only approved ones are asked for, a post that has none needs no
	// query (most posts of a page, on most sites).
	query := posts
	if slices.Equal(q.Approved, []string{store.CommentApproved}) {
		query = slices.DeleteFunc(slices.Clone(posts), func(id int64) bool {
			p := records[id]
			return p != nil && p.CommentCount == 0
		})
	}
	pages, totals := map[int64][]*store.Comment{}, map[int64]int64{}
	if len(query) > 0 {
		if pages, totals, err = c.site.FirstCommentsOfPosts(first.Context(), q, query); err != nil {
			return
		}
	}
	var all []*store.Comment
	for _, id := range posts {
		cache[repliesKey(id)] = &repliesPage{list: pages[id], total: totals[id]}
		all = append(all, pages[id]...)
	}
	// Warm the per-page lookups of prepareMany.
	_, _ = c.related(first, all)
}

func (c *commentsController) list(r *rest.Request) (*rest.Response, error) {
	var list []*store.Comment
	var total int64
	page, perPage := int(r.Int("page")), int(r.Int("per_page"))
	if v, ok := r.Cache()[repliesKey(repliesPost(r))].(*repliesPage); ok {
		// Batch-loaded by prefetchLists with this very query shape.
		list, total = v.list, v.total
	} else {
		q, qPage, qPerPage, err := c.query(r)
		if err != nil {
			return nil, err
		}
		page, perPage = qPage, qPerPage
		q = c.site.CommentQueryHook(r.Context(), q, r)
		if list, total, err = c.site.ListComments(r.Context(), q); err != nil {
			return nil, err
		}
	}
	res, err := c.prepareMany(r, list, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	resp.Paginate(r, total, page, perPage)
	return resp, nil
}
