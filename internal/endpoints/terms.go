package endpoints

import (
	"context"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// termsController serves the terms of one taxonomy: /categories, /tags or
// /<rest_base> of a custom taxonomy (reference §10.6).
type termsController struct {
	site   *content.Site
	tax    *content.Taxonomy
	names  rest.Names
	schema *schema.Object
	base   string // "svc/v2/categories"
}

func newTermsController(site *content.Site, tax *content.Taxonomy, names rest.Names) *termsController {
	c := &termsController{site: site, tax: tax, names: names, base: names.Namespace + "/" + tax.RestBase}
	c.schema = termSchema(site, tax)
	return c
}

// termSchema builds the item schema of a taxonomy's terms, in output order.
func termSchema(site *content.Site, tax *content.Taxonomy) *schema.Object {
	V, E, M := schema.View, schema.Edit, schema.Embed
	o := schema.NewObject(tax.SchemaTitle(),
		&schema.Property{Name: "id", Description: "Unique identifier for the resource.", Type: "integer", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "count", Description: "Number of published posts for the resource.", Type: "integer", Context: V | E, Readonly: true},
		&schema.Property{Name: "description", Description: "HTML description of the resource.", Type: "string", Context: V | E},
		&schema.Property{Name: "link", Description: "URL to the resource.", Type: "string", Format: "uri", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "name", Description: "HTML title for the resource.", Type: "string", Context: V | E | M, Required: true},
		&schema.Property{Name: "slug", Description: "An alphanumeric identifier for the resource unique to its type.", Type: "string", Context: V | E | M},
		&schema.Property{Name: "taxonomy", Description: "Type attribution for the resource.", Type: "string", Enum: site.Taxonomies().Names(), Context: V | E | M, Readonly: true},
	)
	if tax.Hierarchical {
		o.Add(&schema.Property{Name: "parent", Description: "The id for the parent of the resource.", Type: "integer", Context: V | E})
	}
	return o
}

func (c *termsController) register(rs *rest.Server, ns string) {
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, "/"+c.tax.RestBase, &rest.Route{
		Schema:     itemSchema,
		Prefetch:   c.prefetchPosts,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.listPermission, Args: c.collectionParams()},
			{Methods: rest.Creatable, Handler: c.create, Permission: c.createPermission, Args: rest.ArgsFromSchema(c.schema, true)},
		},
	})
	rs.Register(ns, "/"+c.tax.RestBase+`/(?P<id>[\d]+)`, &rest.Route{
		Schema:     itemSchema,
		Prefetch:   c.prefetchTerms,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.getPermission, Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Editable, Handler: c.update, Permission: c.updatePermission, Args: rest.ArgsFromSchema(c.schema, false)},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.deletePermission, Args: []*rest.Arg{
				{Name: "force", Description: "Required to be true, as resource does not support trashing.", Type: "boolean", Default: false},
			}},
		},
	})
}

func (c *termsController) collectionParams() []*rest.Arg {
	args := collectionArgs()
	args = append(args,
		&rest.Arg{Name: "exclude", Description: "Ensure result set excludes specific ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "include", Description: "Limit result set to specific ids.", Type: "array", Items: "integer", Default: []int64{}},
	)
	if !c.tax.Hierarchical {
		args = append(args, &rest.Arg{Name: "offset", Description: "Offset the result set by a specific number of items.", Type: "integer", Sanitize: rest.AbsInt})
	}
	args = append(args,
		&rest.Arg{Name: "order", Description: "Order sort attribute ascending or descending.", Type: "string", Default: "asc",
			Enum: []string{"asc", "desc"}, Sanitize: sanitizeKey},
		&rest.Arg{Name: "orderby", Description: "Sort collection by resource attribute.", Type: "string", Default: "name",
			Enum: []string{"id", "include", "name", "slug", "term_group", "description", "count"}, Sanitize: sanitizeKey},
		&rest.Arg{Name: "hide_empty", Description: "Whether to hide resources not assigned to any posts.", Type: "boolean", Default: false},
	)
	if c.tax.Hierarchical {
		args = append(args, &rest.Arg{Name: "parent", Description: "Limit result set to resources assigned to a specific parent.", Type: "integer", Sanitize: rest.AbsInt})
	}
	args = append(args,
		&rest.Arg{Name: "post", Description: "Limit result set to resources assigned to a specific post.", Type: "integer"},
		slugArg(c.names, "resources"),
	)
	return args
}

// ---- request-scoped caches, shared with embedded sub-requests ----

// termKey caches a loaded term (nil when missing).
type termKey int64

// postTermsKey caches the terms of one post in one taxonomy.
type postTermsKey struct {
	post     int64
	taxonomy string
}

// termAncestorsKey caches every term loaded for links (parents and up).
type termAncestorsKey struct{}

func (c *termsController) loadTerm(r *rest.Request, id int64) (*store.Term, error) {
	t, err := cachedLoad[termKey](r, id, func(ctx context.Context, id int64) (*store.Term, bool, error) {
		return c.site.GetTerm(ctx, c.tax, id)
	})
	if err != nil || t == nil || t.Taxonomy != c.tax.Name {
		return nil, err
	}
	return t, nil
}

// loadOwn loads the term named by the request's id when it is of this
// controller's taxonomy; nil otherwise.
func (c *termsController) loadOwn(r *rest.Request) (*store.Term, error) {
	id := r.Int("id")
	if id <= 0 {
		return nil, nil
	}
	return c.loadTerm(r, id)
}

// loadPost loads a post through the posts controllers' request cache.
func loadPost(r *rest.Request, site *content.Site, id int64) (*store.Post, error) {
	return cachedLoad[postKey](r, id, site.GetPost)
}

// prefetchTerms batch-loads the terms of many embedded item requests
// (the `up` links of a page of terms).
func (c *termsController) prefetchTerms(reqs []*rest.Request) {
	prefetchByID[termKey](reqs, c.site.GetTerms)
}

// prefetchPosts batch-loads, for many embedded `?post=<id>` requests (the
// term links of a page of posts), the posts and their terms in this
// taxonomy, unless the posts controller already put them in the cache.
func (c *termsController) prefetchPosts(reqs []*rest.Request) {
	if len(reqs) == 0 {
		return
	}
	ctx := reqs[0].Context()
	cache := reqs[0].Cache()
	var postIDs, termIDs []int64
	for _, r := range reqs {
		id := r.Int("post")
		if id <= 0 {
			continue
		}
		if _, ok := cache[postKey(id)]; !ok {
			postIDs = append(postIDs, id)
		}
		if _, ok := cache[postTermsKey{id, c.tax.Name}]; !ok {
			termIDs = append(termIDs, id)
		}
	}
	if len(postIDs) > 0 {
		got, err := c.site.GetPosts(ctx, postIDs)
		if err != nil {
			return
		}
		for _, id := range postIDs {
			if p, ok := got[id]; ok {
				cache[postKey(id)] = p
			} else {
				cache[postKey(id)] = (*store.Post)(nil)
			}
		}
	}
	if len(termIDs) > 0 {
		got, err := c.site.PostTerms(ctx, termIDs, []*content.Taxonomy{c.tax})
		if err != nil {
			return
		}
		for _, id := range termIDs {
			cache[postTermsKey{id, c.tax.Name}] = got[id]
		}
	}
}

// ---- permissions ----

func (c *termsController) listPermission(r *rest.Request) error {
	if r.ContextName() == "edit" && !r.User.HasCap(c.tax.Caps.EditTerms) {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you cannot view this resource with edit context.")
	}
	if id := r.Int("post"); id > 0 {
		p, err := loadPost(r, c.site, id)
		if err != nil {
			return err
		}
		if p != nil && !c.site.CanRead(r.Context(), r.User, p) {
			return rest.AuthError(r, "rest_forbidden_context", "Sorry, you are not allowed to view terms for this post.")
		}
	}
	return nil
}

func (c *termsController) getPermission(r *rest.Request) error {
	if r.ContextName() == "edit" && !r.User.HasCap(c.tax.Caps.EditTerms) {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you cannot view this resource with edit context.")
	}
	return nil
}

func (c *termsController) createPermission(r *rest.Request) error {
	if !r.User.HasCap(c.tax.Caps.ManageTerms) {
		return rest.AuthError(r, "rest_cannot_create", "Sorry, you cannot create new resource.")
	}
	return nil
}

func errTermNotFound() error {
	return rest.NewError("rest_term_invalid", 404, "Resource doesn't exist.")
}

func (c *termsController) updatePermission(r *rest.Request) error {
	return c.termCapPermission(r, c.tax.Caps.EditTerms, "rest_cannot_update", "Sorry, you cannot update resource.")
}

func (c *termsController) deletePermission(r *rest.Request) error {
	return c.termCapPermission(r, c.tax.Caps.DeleteTerms, "rest_cannot_delete", "Sorry, you cannot delete resource.")
}

// termCapPermission checks that the request's term exists in this
// taxonomy (404 rest_term_invalid otherwise) and that the caller has
// capability cap (else code and msg).
func (c *termsController) termCapPermission(r *rest.Request, cap, code, msg string) error {
	if _, err := loadItem(r, c.loadOwn, errTermNotFound); err != nil {
		return err
	}
	if !r.User.HasCap(cap) {
		return rest.AuthError(r, code, msg)
	}
	return nil
}

// ---- handlers ----

func (c *termsController) list(r *rest.Request) (*rest.Response, error) {
	page, perPage := pageArgs(r)
	offset := (page - 1) * perPage
	if o := int(r.Int("offset")); o > 0 {
		offset = o
	}
	var terms []*store.Term
	var total int64
	if postID := r.Int("post"); postID > 0 {
		all, err := c.postTerms(r, postID)
		if err != nil {
			return nil, err
		}
		sorted := append([]*store.Term(nil), all...)
		content.SortTerms(sorted, r.String("orderby"), r.String("order"))
		total = int64(len(sorted))
		if offset < len(sorted) {
			terms = sorted[offset:min(offset+perPage, len(sorted))]
		}
	} else {
		q := store.TermQuery{
			Taxonomy:     c.tax.Name,
			Search:       render.PlainText(r.String("search")),
			Include:      r.IDs("include"),
			Exclude:      r.IDs("exclude"),
			HideEmpty:    r.Bool("hide_empty"),
			Hierarchical: c.tax.Hierarchical,
			OrderBy:      r.String("orderby"),
			Order:        r.String("order"),
			Offset:       offset,
			Limit:        perPage,
		}
		q.Slugs = slugFilter(r)
		if c.tax.Hierarchical && r.Has("parent") {
			q.Parent, q.ParentSet = r.Int("parent"), true
		}
		var err error
		if terms, total, err = c.site.ListTerms(r.Context(), q); err != nil {
			return nil, err
		}
	}
	res, err := c.prepareMany(r, terms, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	// The page the window starts on, derived from the offset as the
	// original does, drives prev/next.
	resp.Paginate(r, total, offset/perPage+1, perPage)
	return resp, nil
}

// postTerms returns the terms of post id in this taxonomy (none when the
// post does not exist), from the request cache when a prefetch or the
// posts controller loaded them.
func (c *termsController) postTerms(r *rest.Request, id int64) ([]*store.Term, error) {
	if v, ok := r.Cache()[postTermsKey{id, c.tax.Name}]; ok {
		ts, _ := v.([]*store.Term)
		return ts, nil
	}
	p, err := loadPost(r, c.site, id)
	if err != nil || p == nil {
		return nil, err
	}
	got, err := c.site.PostTerms(r.Context(), []int64{id}, []*content.Taxonomy{c.tax})
	if err != nil {
		return nil, err
	}
	r.Cache()[postTermsKey{id, c.tax.Name}] = got[id]
	return got[id], nil
}

func (c *termsController) get(r *rest.Request) (*rest.Response, error) {
	return getItem(r, c.loadOwn, errTermNotFound, c.prepareOne, nil)
}

// input is prepare-for-database: the request's fields as a domain input.
func (c *termsController) input(r *rest.Request) content.TermInput {
	var in content.TermInput
	in.Name = optString(r, "name")
	in.Slug = optString(r, "slug")
	in.Description = optString(r, "description")
	in.Parent = optInt(r, "parent")
	return in
}

func (c *termsController) create(r *rest.Request) (*rest.Response, error) {
	t, err := c.site.CreateTerm(r.Context(), c.tax, c.input(r), r)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[termKey(t.ID)] = t
	res, err := c.prepareOne(r, t, schema.View)
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(201, res)
	resp.SetHeader("Location", r.URL(c.base+"/"+strconv.FormatInt(t.ID, 10)))
	return resp, nil
}

func (c *termsController) update(r *rest.Request) (*rest.Response, error) {
	old, err := loadItem(r, c.loadOwn, errTermNotFound)
	if err != nil {
		return nil, err
	}
	t, err := c.site.UpdateTerm(r.Context(), c.tax, old, c.input(r), r)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[termKey(t.ID)] = t
	res, err := c.prepareOne(r, t, schema.View)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, res), nil
}

func (c *termsController) delete(r *rest.Request) (*rest.Response, error) {
	t, err := loadItem(r, c.loadOwn, errTermNotFound)
	if err != nil {
		return nil, err
	}
	if !r.Bool("force") {
		return nil, rest.NewError("rest_trash_not_supported", 501, "Resource does not support trashing.")
	}
	res, err := c.prepareOne(r, t, schema.View)
	if err != nil {
		return nil, err
	}
	if err := c.site.DeleteTerm(r.Context(), c.tax, t); err != nil {
		return nil, cannotDelete(r, "The resource cannot be deleted.", err)
	}
	delete(r.Cache(), termKey(t.ID))
	c.site.DeleteTermHook(r.Context(), c.tax, t, res, r)
	return rest.NewResponse(200, res), nil
}

// ---- prepare for response ----

func (c *termsController) prepareOne(r *rest.Request, t *store.Term, ctx schema.Context) (*rest.Resource, error) {
	out, err := c.prepareMany(r, []*store.Term{t}, ctx)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// prepareMany builds resources for a page of terms with a fixed number of
// queries: the ancestors of hierarchical terms, one query per depth level,
// shared through the request cache with embedded sub-requests.
func (c *termsController) prepareMany(r *rest.Request, terms []*store.Term, ctx schema.Context) ([]*rest.Resource, error) {
	var ancestors map[int64]*store.Term
	if c.tax.Hierarchical {
		var err error
		if ancestors, err = c.ancestors(r, terms); err != nil {
			return nil, err
		}
	}
	siteRoot := r.SiteURL("")
	out := make([]*rest.Resource, len(terms))
	for i, t := range terms {
		out[i] = c.prepare(r, t, ctx, siteRoot, ancestors)
	}
	return out, nil
}

// ancestors returns the ancestors of terms, loading only those no earlier
// step of this request loaded.
func (c *termsController) ancestors(r *rest.Request, terms []*store.Term) (map[int64]*store.Term, error) {
	cache := r.Cache()
	known, _ := cache[termAncestorsKey{}].(map[int64]*store.Term)
	known, err := c.site.TermAncestors(r.Context(), terms, known)
	if err != nil {
		return nil, err
	}
	cache[termAncestorsKey{}] = known
	return known, nil
}

func (c *termsController) prepare(r *rest.Request, t *store.Term, ctx schema.Context, siteRoot string, ancestors map[int64]*store.Term) *rest.Resource {
	res := rest.NewResource(c.schema, ctx)
	res.Set("id", t.ID)
	res.Set("count", t.Count)
	res.Set("description", t.Description)
	if r.Wants("link") {
		res.Set("link", c.site.TermLink(siteRoot, c.tax, t, ancestors))
	}
	res.Set("name", t.Name)
	res.Set("slug", t.Slug)
	res.Set("taxonomy", t.Taxonomy)
	if c.tax.Hierarchical {
		res.Set("parent", t.Parent)
	}
	if r.WantsLinks() {
		c.links(r, res, t, ancestors)
	}
	c.site.PrepareTermHook(r.Context(), c.tax, t, res, r)
	return res
}

// links adds the relations of reference §6.3.
func (c *termsController) links(r *rest.Request, res *rest.Resource, t *store.Term, ancestors map[int64]*store.Term) {
	ns := c.names.Namespace
	id := strconv.FormatInt(t.ID, 10)
	res.AddLink("self", r.URL(c.base+"/"+id), false)
	res.AddLink("collection", r.URL(c.base), false)
	res.AddLink("about", r.URL(ns+"/taxonomies/"+c.tax.Name), false)
	if t.Parent != 0 && ancestors[t.Parent] != nil {
		res.AddLink("up", r.URL(c.base+"/"+strconv.FormatInt(t.Parent, 10)), true)
	}
	for _, name := range c.tax.ObjectTypes {
		pt, ok := c.site.Types().Get(name)
		if !ok || !pt.ShowInRest {
			continue
		}
		res.AddLink(c.names.RelBase+"post_type", r.URL(ns+"/"+pt.RestBase+"?"+c.tax.RestBase+"="+id), false)
	}
}

// ---- term arrays on posts (reference §10.1, §10.2, §6.3) ----

// addPostTermProps adds one term-array property per taxonomy of pt that is
// exposed to the interface, named by the taxonomy's rest base.
func addPostTermProps(site *content.Site, pt *content.PostType, o *schema.Object) {
	for _, tax := range site.Taxonomies().ForType(pt.Name) {
		o.Add(&schema.Property{
			Name:        tax.RestBase,
			Description: "The terms assigned to the object in the " + tax.Name + " taxonomy.",
			Type:        "array", Items: &schema.Property{Type: "integer"},
			Context: schema.View | schema.Edit,
		})
	}
}

// termCollectionParams are the per-taxonomy filters of a post collection.
func (c *postsController) termCollectionParams() []*rest.Arg {
	var args []*rest.Arg
	for _, tax := range c.site.Taxonomies().ForType(c.pt.Name) {
		args = append(args, &rest.Arg{
			Name:        tax.RestBase,
			Description: "Limit result set to all items that have the specified term assigned in the " + tax.RestBase + " taxonomy.",
			Type:        "array", Items: "integer", Default: []int64{},
		})
	}
	return args
}

// addTermFilters adds the per-taxonomy collection filters to q: posts with
// any of the given ids in a taxonomy (children not included), AND between
// taxonomies.
func (c *postsController) addTermFilters(r *rest.Request, q *store.PostQuery) {
	for _, tax := range c.site.Taxonomies().ForType(c.pt.Name) {
		if ids := r.IDs(tax.RestBase); len(ids) > 0 {
			q.Terms = append(q.Terms, store.TermFilter{Taxonomy: tax.Name, IDs: ids})
		}
	}
}

// addSlugFilter applies filter[category_name] and filter[tag] (decisions
// #11) as the original's query did: a comma separates slugs of which any
// may match, a plus (or white space, which is what a plus in a query
// string decodes to) slugs that must all match; categories include their
// children and a category path keeps its last segment.
func addSlugFilter(q *store.PostQuery, key, val string) {
	taxonomy, children := "post_tag", false
	if key == "category_name" {
		taxonomy, children = "category", true
		if i := strings.LastIndex(strings.TrimRight(val, "/"), "/"); i >= 0 {
			val = strings.TrimRight(val, "/")[i+1:]
		}
	}
	slugs := func(parts []string) []string {
		var out []string
		for _, p := range parts {
			if s := render.Slug(p); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if strings.Contains(val, ",") {
		q.Terms = append(q.Terms, store.TermFilter{Taxonomy: taxonomy, Slugs: slugs(strings.Split(val, ",")), IncludeChildren: children})
		return
	}
	parts := slugs(strings.FieldsFunc(val, func(r rune) bool { return r == '+' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }))
	if len(parts) == 0 {
		q.Terms = append(q.Terms, store.TermFilter{Taxonomy: taxonomy})
		return
	}
	for _, s := range parts {
		q.Terms = append(q.Terms, store.TermFilter{Taxonomy: taxonomy, Slugs: []string{s}, IncludeChildren: children})
	}
}

// termInput reads the term arrays of a post write: for each taxonomy whose
// rest base was sent, the ids cast to non-negative integers.
func (c *postsController) termInput(r *rest.Request) map[string][]int64 {
	var out map[string][]int64
	for _, tax := range c.site.Taxonomies().ForType(c.pt.Name) {
		if !r.Has(tax.RestBase) {
			continue
		}
		if out == nil {
			out = map[string][]int64{}
		}
		ids := r.IDs(tax.RestBase)
		if ids == nil {
			ids = []int64{}
		}
		out[tax.Name] = ids
	}
	return out
}

// assignCheck refuses term arrays of taxonomies whose terms the caller
// may not assign.
func (c *postsController) assignCheck(r *rest.Request) error {
	if !c.site.CanAssignTerms(r.User, c.termInput(r)) {
		return rest.AuthError(r, "rest_cannot_assign_term", "Sorry, you are not allowed to assign the provided terms.")
	}
	return nil
}

// writtenTermsKey is the request cache's key of the terms a create wrote
// for post id: for each taxonomy the ids, in PostTerms' order.
type writtenTermsKey int64

// writtenTerms returns the terms of the one post of posts as its create
// wrote them (writtenTermsKey), as PostTermsUncounted would read them
// back: id and taxonomy, which is all a response without embedded terms
// shows. ok is false when they are not known or more is needed.
func writtenTerms(r *rest.Request, posts []*store.Post, embeds bool) (map[int64][]*store.Term, bool) {
	if embeds || len(posts) != 1 {
		return nil, false
	}
	written, ok := r.Cache()[writtenTermsKey(posts[0].ID)].(map[string][]int64)
	if !ok {
		return nil, false
	}
	var terms []*store.Term
	for tax, ids := range written {
		for _, id := range ids {
			terms = append(terms, &store.Term{ID: id, Taxonomy: tax})
		}
	}
	return map[int64][]*store.Term{posts[0].ID: terms}, true
}

// addTerms sets the term arrays and adds the `{rel_base}term` links of a
// page of posts, loading the terms of the whole page in one query. The
// loaded terms are cached for the embedded term collections. A create's own
// post takes the terms the create wrote (writtenTerms).
func (c *postsController) addTerms(r *rest.Request, posts []*store.Post, out []*rest.Resource, taxes []*content.Taxonomy, links *postLinks) error {
	if links == nil {
		// Without links only the term fields _fields asks for are needed.
		var wanted []*content.Taxonomy
		for _, tax := range taxes {
			if r.Wants(tax.RestBase) {
				wanted = append(wanted, tax)
			}
		}
		taxes = wanted
	}
	if len(taxes) == 0 || len(posts) == 0 {
		return nil
	}
	ids := make([]int64, len(posts))
	for i, p := range posts {
		ids[i] = p.ID
	}
	// The embedded term requests (?post=<id>) find the terms in the
	// request cache, with their counts; without _embed only their ids are
	// shown, and the counts are not read.
	load := c.site.PostTermsUncounted
	var cache map[any]any
	if r.Embeds() {
		load, cache = c.site.PostTerms, r.Cache()
	}
	got, ok := writtenTerms(r, posts, cache != nil)
	if !ok {
		var err error
		if got, err = load(r.Context(), ids, taxes); err != nil {
			return err
		}
	}
	var attrs [][]rest.LinkAttr
	if links != nil {
		// One attribute list per taxonomy, shared by the links of every post.
		attrs = make([][]rest.LinkAttr, len(taxes))
		for k, tax := range taxes {
			attrs[k] = []rest.LinkAttr{{Key: "taxonomy", Value: tax.Name}}
		}
	}
	var idBuf [20]byte
	for i, p := range posts {
		all := got[p.ID]
		id := strconv.AppendInt(idBuf[:0], p.ID, 10)
		for k, tax := range taxes {
			var terms []*store.Term
			for _, t := range all {
				if t.Taxonomy == tax.Name {
					terms = append(terms, t)
				}
			}
			if cache != nil {
				cache[postTermsKey{p.ID, tax.Name}] = terms
			}
			tids := make([]int64, len(terms))
			for j, t := range terms {
				tids[j] = t.ID
			}
			out[i].Set(tax.RestBase, tids)
			if links != nil {
				out[i].AddLink(c.relTerm, links.api+links.ns+"/"+tax.RestBase+"?post="+string(id), true, attrs[k]...)
			}
		}
	}
	return nil
}
