package frontend

import (
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/store"
)

// listedStatuses are the statuses lists and single pages show; the
// visibility of the visitor then keeps private posts to those allowed.
var listedStatuses = []string{"publish", "private"}

// postQuery is the query of a page of posts for the visitor: the
// statuses the reader shows, under the visibility the API applies to the
// same visitor, newest first, and the rest_post_query hook.
func (v *visit) postQuery(page int, mod func(*store.PostQuery)) (store.PostQuery, *content.PostType) {
	pt, _ := v.h.site.Types().Get("post")
	return v.typeQuery(pt, page, mod), pt
}

// typeQuery is postQuery for posts of type pt.
func (v *visit) typeQuery(pt *content.PostType, page int, mod func(*store.PostQuery)) store.PostQuery {
	q := store.PostQuery{
		Types:      []string{pt.Name},
		Statuses:   listedStatuses,
		Visibility: v.h.site.Visibility(v.user, pt),
		OrderBy:    "date",
		Order:      "desc",
		Limit:      v.h.opts.PostsPerPage,
		Offset:     (page - 1) * v.h.opts.PostsPerPage,
	}
	if mod != nil {
		mod(&q)
	}
	return v.h.site.PostQueryHook(v.ctx, pt, q, nil)
}

// list loads one page of posts for q and renders it with the pagination
// pageURL builds; a page past the last is not found.
func (v *visit) list(q store.PostQuery, page int, pageURL func(int) string, p *Page) error {
	if v.r.Method == http.MethodPost {
		v.w.Header().Set("Allow", "GET, HEAD")
		http.Error(v.w, "405 method not allowed", http.StatusMethodNotAllowed)
		return nil
	}
	posts, total, err := v.h.site.ListPosts(v.ctx, q)
	if err != nil {
		return err
	}
	pages := int((total + int64(v.h.opts.PostsPerPage) - 1) / int64(v.h.opts.PostsPerPage))
	if page > 1 && page > pages {
		return errNotFound
	}
	if p.Posts, err = v.posts(posts, false); err != nil {
		return err
	}
	p.Pagination = pagination(page, pages, pageURL)
	return v.render("index.html", http.StatusOK, p)
}

// home is the home page: the newest posts, sticky ones first.
func (v *visit) home(page int) error {
	q, _ := v.postQuery(page, func(q *store.PostQuery) { q.StickyFirst = true })
	title := v.h.site.SettingsOrLast(v.ctx).Title
	if page > 1 {
		title = fmt.Sprintf("%s – Page %d", title, page)
	}
	return v.list(q, page, func(n int) string {
		if n == 1 {
			return v.base + "/"
		}
		return fmt.Sprintf("%s/page/%d/", v.base, n)
	}, &Page{Kind: "home", Title: title})
}

// search lists the posts matching text, with the search of GET
// /posts?search= (protected posts match on their title only).
func (v *visit) search(text string, page int) error {
	text = strings.TrimSpace(text)
	if len([]rune(text)) > content.MaxSearchLength {
		text = string([]rune(text)[:content.MaxSearchLength])
	}
	q, pt := v.postQuery(page, nil)
	q.Search = render.PlainText(text)
	q.SearchProtected = v.h.site.ProtectedSearch(v.user, pt)
	p := &Page{Kind: "search", Search: text, Title: fmt.Sprintf("Search results for “%s”", text)}
	if text == "" {
		p.Title = "Search"
	}
	return v.list(q, page, func(n int) string {
		u := v.base + "/?s=" + url.QueryEscape(text)
		if n > 1 {
			u += "&paged=" + strconv.Itoa(n)
		}
		return u
	}, p)
}

// termArchive lists the posts of the term whose slug path is path.
func (v *visit) termArchive(tx *content.Taxonomy, path []string, page int) error {
	if !tx.Hierarchical && len(path) != 1 {
		return errNotFound
	}
	terms, _, err := v.h.site.ListTerms(v.ctx, store.TermQuery{Taxonomy: tx.Name, Slugs: []string{path[len(path)-1]}})
	if err != nil {
		return err
	}
	var term *store.Term
	var archiveURL string
	for _, t := range terms {
		known, err := v.h.site.TermAncestors(v.ctx, []*store.Term{t}, nil)
		if err != nil {
			return err
		}
		link := v.h.site.TermLink(v.base, tx, t, known)
		if link == v.base+"/"+taxonomyBase(tx.Name)+"/"+strings.Join(path, "/")+"/" {
			term, archiveURL = t, link
			break
		}
	}
	if term == nil {
		return errNotFound
	}
	// The archive lists posts when the taxonomy has them, else the first
	// public type it has (one type: one visibility rule per query).
	var pt *content.PostType
	for _, name := range tx.ObjectTypes {
		if t, ok := v.h.site.Types().Get(name); ok && t.Public && t.ShowInRest && name != "attachment" && (pt == nil || name == "post") {
			pt = t
		}
	}
	if pt == nil {
		return errNotFound
	}
	q := v.typeQuery(pt, page, func(q *store.PostQuery) {
		q.Terms = []store.TermFilter{{Taxonomy: tx.Name, IDs: []int64{term.ID}}}
	})
	label := tx.SingularLabel
	p := &Page{Kind: "archive", Title: label + ": " + term.Name,
		Archive: &Archive{Kind: tx.Name, Label: label, Name: term.Name, Description: plain(term.Description), URL: archiveURL}}
	return v.list(q, page, func(n int) string {
		if n == 1 {
			return archiveURL
		}
		return fmt.Sprintf("%spage/%d/", archiveURL, n)
	}, p)
}

// authorArchive lists the posts of the author whose nicename is slug, who
// must be someone the visitor may see (as GET /users/<id>).
func (v *visit) authorArchive(slug string, page int) error {
	users, _, err := v.h.site.ListUsers(v.ctx, store.UserQuery{Slugs: []string{slug}, Limit: 1})
	if err != nil {
		return err
	}
	if len(users) == 0 {
		return errNotFound
	}
	u := users[0]
	ok, err := v.h.site.CanViewUser(v.ctx, v.user, u.ID)
	if err != nil {
		return err
	}
	if !ok {
		return errNotFound
	}
	archiveURL := v.h.site.AuthorLink(v.base, u)
	q, _ := v.postQuery(page, func(q *store.PostQuery) { q.Authors = []int64{u.ID} })
	p := &Page{Kind: "archive", Title: "Author: " + u.DisplayName,
		Archive: &Archive{Kind: "author", Label: "Author", Name: u.DisplayName, Description: plain(u.Description), URL: archiveURL}}
	return v.list(q, page, func(n int) string {
		if n == 1 {
			return archiveURL
		}
		return fmt.Sprintf("%spage/%d/", archiveURL, n)
	}, p)
}

// pagination links pages 1..total; nil when there is only one.
func pagination(current, total int, pageURL func(int) string) *Pagination {
	if total <= 1 {
		return nil
	}
	p := &Pagination{Current: current, Total: total}
	if current > 1 {
		p.Prev = pageURL(current - 1)
	}
	if current < total {
		p.Next = pageURL(current + 1)
	}
	for n := 1; n <= total; n++ {
		// Around the current page, the ends, and no more than that.
		if n == 1 || n == total || (n >= current-2 && n <= current+2) {
			p.Pages = append(p.Pages, PageLink{Number: n, URL: pageURL(n), Current: n == current})
		}
	}
	return p
}

// posts turns stored posts into what templates show, with their authors
// and terms loaded in a fixed number of queries. full fills Content (single
// pages); lists get the excerpt.
func (v *visit) posts(list []*store.Post, full bool) ([]*Post, error) {
	if len(list) == 0 {
		return nil, nil
	}
	site := v.h.site
	var authorIDs []int64
	seen := map[int64]bool{}
	for _, p := range list {
		if p.Author != 0 && !seen[p.Author] {
			seen[p.Author] = true
			authorIDs = append(authorIDs, p.Author)
		}
	}
	authors := map[int64]*store.User{}
	if len(authorIDs) > 0 {
		us, _, err := site.ListUsers(v.ctx, store.UserQuery{Include: authorIDs, Limit: len(authorIDs)})
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			authors[u.ID] = u
		}
	}
	var parents map[int64]*store.Post
	for _, p := range list {
		if pt, ok := site.Types().Get(p.Type); ok && pt.Hierarchical {
			var err error
			if parents, err = site.ParentChains(v.ctx, list); err != nil {
				return nil, err
			}
			break
		}
	}
	out := make([]*Post, len(list))
	for i, p := range list {
		out[i] = v.post(p, parents, authors[p.Author], full)
	}
	if err := v.addTerms(list, out); err != nil {
		return nil, err
	}
	return out, nil
}

// post is one post as templates show it. A protected post's text is left
// out unless its password was given on this browser.
func (v *visit) post(p *store.Post, parents map[int64]*store.Post, author *store.User, full bool) *Post {
	site := v.h.site
	out := &Post{
		ID:        p.ID,
		Type:      p.Type,
		URL:       site.Permalink(v.base, p, parents),
		Date:      p.Date,
		DateISO:   p.DateGMT.UTC().Format(time.RFC3339),
		Protected: p.Password != "",
		Private:   p.Status == "private",
		Sticky:    p.Sticky,
	}
	title := site.RenderTitle(p)
	switch {
	case out.Protected:
		title = "Protected: " + title
	case out.Private:
		title = "Private: " + title
	}
	out.Title = template.HTML(title) // sanitised when written (KSES)
	out.Locked = out.Protected && v.unlockedPassword(p) == ""
	if !out.Locked {
		if full {
			out.Content = template.HTML(site.RenderContent(p))
		} else {
			out.Excerpt = template.HTML(site.RenderExcerpt(p))
		}
	}
	if author != nil && p.Type != "page" && p.Type != "attachment" {
		out.Author = &Author{Name: author.DisplayName, URL: site.AuthorLink(v.base, author)}
	}
	return out
}

// addTerms fills the term groups of out, the views of list, with every
// taxonomy's terms loaded at once.
func (v *visit) addTerms(list []*store.Post, out []*Post) error {
	site := v.h.site
	byType := map[string][]*content.Taxonomy{}
	var all []*content.Taxonomy
	have := map[string]bool{}
	for _, p := range list {
		if _, ok := byType[p.Type]; ok {
			continue
		}
		for _, tx := range site.Taxonomies().ForType(p.Type) {
			if !tx.ShowInRest {
				continue
			}
			byType[p.Type] = append(byType[p.Type], tx)
			if !have[tx.Name] {
				have[tx.Name] = true
				all = append(all, tx)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.ID
	}
	terms, err := site.PostTerms(v.ctx, ids, all)
	if err != nil {
		return err
	}
	var flat []*store.Term
	for _, ts := range terms {
		flat = append(flat, ts...)
	}
	known, err := site.TermAncestors(v.ctx, flat, nil)
	if err != nil {
		return err
	}
	for i, p := range list {
		for _, tx := range byType[p.Type] {
			g := &TermGroup{Taxonomy: tx.Name, Label: tx.Label}
			for _, t := range terms[p.ID] {
				if t.Taxonomy == tx.Name {
					g.Terms = append(g.Terms, &Term{Name: t.Name, URL: site.TermLink(v.base, tx, t, known)})
				}
			}
			if len(g.Terms) > 0 {
				out[i].Terms = append(out[i].Terms, g)
			}
		}
	}
	return nil
}

// plain turns stored text that may hold markup or entities into plain
// text for a template to escape.
func plain(s string) string {
	return strings.TrimSpace(html.UnescapeString(render.StripTags(s)))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
