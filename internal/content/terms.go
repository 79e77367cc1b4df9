package content

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// DefaultCategoryID is the id of the category ("Uncategorized") the
// store's migrations create: the default_category setting's value unless
// the configuration or an administrator names another (see Settings).
// Posts created without categories get the default category, and it
// cannot be deleted.
const DefaultCategoryID int64 = 1

// Taxonomies returns the taxonomy registry.
func (s *Site) Taxonomies() *Taxonomies { return s.taxonomies }

// TermInput carries the writable term fields of a request; nil means "not
// sent".
type TermInput struct {
	Name        *string
	Slug        *string
	Description *string
	Parent      *int64
}

// GetTerm loads the term id of taxonomy tax; ok is false when it does not
// exist or belongs to another taxonomy.
func (s *Site) GetTerm(ctx context.Context, tax *Taxonomy, id int64) (*store.Term, bool, error) {
	if id <= 0 {
		return nil, false, nil
	}
	t, err := s.st.GetTerm(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if t.Taxonomy != tax.Name {
		return nil, false, nil
	}
	return t, true, nil
}

// ListTerms returns one page of the terms q selects and the number of
// matching terms. A page that starts at or past the end is empty.
func (s *Site) ListTerms(ctx context.Context, q store.TermQuery) ([]*store.Term, int64, error) {
	terms, err := s.st.ListTerms(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if q.Limit > 0 && q.Offset == 0 && len(terms) < q.Limit {
		return terms, int64(len(terms)), nil
	}
	cq := q
	cq.Offset, cq.Limit, cq.OrderBy, cq.Order = 0, 0, "", ""
	total, err := s.st.CountTerms(ctx, cq)
	if err != nil {
		return nil, 0, err
	}
	if int64(q.Offset) >= total {
		terms = nil
	}
	return terms, total, nil
}

// SortTerms orders terms in memory as the terms collection does for the
// terms of one post: by orderby (name when empty or unknown), descending
// when order is "desc".
func SortTerms(terms []*store.Term, orderby, order string) {
	less := func(a, b *store.Term) int {
		switch orderby {
		case "id", "term_group":
			return cmpInt(a.ID, b.ID)
		case "slug":
			return strings.Compare(a.Slug, b.Slug)
		case "description":
			return strings.Compare(a.Description, b.Description)
		case "count":
			return cmpInt(a.Count, b.Count)
		}
		return 0 // name and include keep the stored name order
	}
	sort.SliceStable(terms, func(i, j int) bool { return less(terms[i], terms[j]) < 0 })
	if strings.ToLower(order) == "desc" {
		for i, j := 0, len(terms)-1; i < j; i, j = i+1, j-1 {
			terms[i], terms[j] = terms[j], terms[i]
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// PostTerms loads, in one query, the terms of the given posts in the given
// taxonomies: per post, in name order.
func (s *Site) PostTerms(ctx context.Context, postIDs []int64, taxes []*Taxonomy) (map[int64][]*store.Term, error) {
	return s.postTerms(ctx, postIDs, taxes, s.st.PostTerms)
}

// PostTermsUncounted is PostTerms with every term's Count 0: for the term
// ids and links of posts, which show no count.
func (s *Site) PostTermsUncounted(ctx context.Context, postIDs []int64, taxes []*Taxonomy) (map[int64][]*store.Term, error) {
	return s.postTerms(ctx, postIDs, taxes, s.st.PostTermsUncounted)
}

func (s *Site) postTerms(ctx context.Context, postIDs []int64, taxes []*Taxonomy,
	load func(context.Context, []int64, []string) (map[int64][]*store.Term, error)) (map[int64][]*store.Term, error) {
	if len(postIDs) == 0 || len(taxes) == 0 {
		return map[int64][]*store.Term{}, nil
	}
	names := make([]string, len(taxes))
	for i, tx := range taxes {
		names[i] = tx.Name
	}
	return load(ctx, postIDs, names)
}

// TermAncestors loads every ancestor of the given terms that known does not
// hold yet, one query per level of depth, and adds them (and the terms) to
// known, which it returns (a new map when known is nil).
func (s *Site) TermAncestors(ctx context.Context, terms []*store.Term, known map[int64]*store.Term) (map[int64]*store.Term, error) {
	if known == nil {
		known = map[int64]*store.Term{}
	}
	for _, t := range terms {
		known[t.ID] = t
	}
	missing := func(ts []*store.Term) []int64 {
		var ids []int64
		seen := map[int64]bool{}
		for _, t := range ts {
			if t.Parent != 0 && !seen[t.Parent] {
				if _, ok := known[t.Parent]; !ok {
					ids = append(ids, t.Parent)
					seen[t.Parent] = true
				}
			}
		}
		return ids
	}
	next := missing(terms)
	for depth := 0; len(next) > 0 && depth < 32; depth++ {
		got, err := s.st.GetTerms(ctx, next)
		if err != nil {
			return nil, err
		}
		level := make([]*store.Term, 0, len(got))
		for _, id := range next {
			if t, ok := got[id]; ok {
				known[id] = t
				level = append(level, t)
			} else {
				known[id] = nil // a dangling parent: looked up, missing
			}
		}
		next = missing(level)
	}
	return known, nil
}

// TermLink returns the archive URL of term t under siteRoot; the ancestors
// of a hierarchical term must be in ancestors (see TermAncestors).
// Like Permalink, it points to the external front end when there is one.
func (s *Site) TermLink(siteRoot string, tax *Taxonomy, t *store.Term, ancestors map[int64]*store.Term) string {
	siteRoot = s.LinkRoot(siteRoot)
	base := tax.Name
	switch tax.Name {
	case "post_tag":
		base = "tag"
	case "category":
		base = "category"
	}
	parts := []string{t.Slug}
	if tax.Hierarchical {
		seen := map[int64]bool{t.ID: true}
		for cur := t; cur.Parent != 0; {
			par := ancestors[cur.Parent]
			if par == nil || seen[par.ID] {
				break
			}
			seen[par.ID] = true
			parts = append(parts, par.Slug)
			cur = par
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
	}
	return siteRoot + "/" + base + "/" + strings.Join(parts, "/") + "/"
}

// CanAssignTerms reports whether u may assign terms of every taxonomy named
// in terms (the assign_terms capability, reference §5.2).
func (s *Site) CanAssignTerms(u *auth.User, terms map[string][]int64) bool {
	for name := range terms {
		tx, ok := s.taxonomies.Get(name)
		if ok && !u.HasCap(tx.Caps.AssignTerms) {
			return false
		}
	}
	return true
}

// checkParent applies the parent rules of create and update: a parent on
// a flat taxonomy and a parent that does not exist are refused; 0 means
// top level.
func (s *Site) checkParent(ctx context.Context, tax *Taxonomy, parent int64) error {
	if !tax.Hierarchical {
		return errBad("rest_taxonomy_not_hierarchical", "Can not set resource parent, taxonomy is not hierarchical.")
	}
	if parent == 0 {
		return nil
	}
	if _, ok, err := s.GetTerm(ctx, tax, parent); err != nil {
		return err
	} else if !ok {
		return errBad("rest_term_invalid", "Parent resource doesn't exist.")
	}
	return nil
}

func errEmptyTermName() *Error {
	return errBad("empty_term_name", "A name is required for this term.")
}

// CreateTerm validates in and stores a new term of tax (reference §10.6,
// decisions #5).
func (s *Site) CreateTerm(ctx context.Context, tax *Taxonomy, in TermInput, request *rest.Request) (*store.Term, error) {
	t := &store.Term{Taxonomy: tax.Name}
	if in.Parent != nil {
		if err := s.checkParent(ctx, tax, *in.Parent); err != nil {
			return nil, err
		}
		t.Parent = *in.Parent
	}
	if in.Name != nil {
		t.Name = schema.SanitizeTextField(*in.Name)
	}
	if in.Description != nil {
		t.Description = render.KSESPost(*in.Description)
	}
	slugGiven := false
	if in.Slug != nil {
		t.Slug = render.Slug(*in.Slug)
		slugGiven = t.Slug != ""
	}
	if err := s.preInsertTermHook(ctx, tax, t, request); err != nil {
		return nil, err
	}
	if strings.TrimSpace(t.Name) == "" {
		return nil, errEmptyTermName()
	}
	if t.Slug == "" {
		t.Slug = render.Slug(t.Name)
	}
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := lockTaxonomy(ctx, tx, tax.Name); err != nil {
			return err
		}
		if err := s.checkTermExists(ctx, tx, tax, t, slugGiven); err != nil {
			return err
		}
		if err := s.uniqueTermSlug(ctx, tx, t); err != nil {
			return err
		}
		if err := tx.InsertTerm(ctx, t); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "term", Type: tax.Name, Action: "created", ID: t.ID, Record: t})
	})
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, fmt.Errorf("create term: %w", err)
	}
	s.insertTermHook(ctx, tax, t, request, true)
	return t, nil
}

// checkTermExists refuses a term whose name is taken (at the same level of
// a hierarchical taxonomy) unless a distinct free slug was given, as the
// original's term insertion does; the error carries the existing term's id.
func (s *Site) checkTermExists(ctx context.Context, tx store.Store, tax *Taxonomy, t *store.Term, slugGiven bool) error {
	q := store.TermQuery{Taxonomy: tax.Name, Names: []string{t.Name}, OrderBy: "id"}
	if tax.Hierarchical {
		q.Parent, q.ParentSet = t.Parent, true
	}
	same, err := tx.ListTerms(ctx, q)
	if err != nil || len(same) == 0 {
		return err
	}
	match := same[0]
	if slugGiven && match.Slug != t.Slug {
		taken, err := tx.ListTerms(ctx, store.TermQuery{Taxonomy: tax.Name, Slugs: []string{t.Slug}, Limit: 1})
		if err != nil {
			return err
		}
		if len(taken) == 0 {
			return nil
		}
	}
	msg := "A term with the name provided already exists in this taxonomy."
	if tax.Hierarchical {
		msg = "A term with the name provided already exists with this parent."
	}
	e := errBad("term_exists", msg)
	e.Data = map[string]any{"term_id": match.ID}
	return e
}

// uniqueTermSlug gives t a slug no other term of its taxonomy uses, adding
// -2, -3, ... when needed.
func (s *Site) uniqueTermSlug(ctx context.Context, tx store.Store, t *store.Term) error {
	if t.Slug == "" {
		t.Slug = "term"
	}
	base := t.Slug
	for n := 1; ; n++ {
		cand := base
		if n > 1 {
			suffix := "-" + strconv.Itoa(n)
			cand = truncateSlug(base, 200-len(suffix)) + suffix
		}
		taken, err := tx.ListTerms(ctx, store.TermQuery{Taxonomy: t.Taxonomy, Slugs: []string{cand}, Exclude: nonZero(t.ID), Limit: 1})
		if err != nil {
			return err
		}
		if len(taken) == 0 {
			t.Slug = cand
			return nil
		}
	}
}

// lockTaxonomy locks, for the rest of the write transaction tx, the terms
// of taxonomy against other transactions that create, rename, move or
// delete one of them (store.LockKeys). Those read the taxonomy (is the
// name taken, which slug is free, would the new parent make a loop, which
// children move up) and then write what they found; term writes are rare
// enough for one key per taxonomy. Posts that only use terms take no such
// lock.
func lockTaxonomy(ctx context.Context, tx store.Store, taxonomy string) error {
	return store.LockKeys(ctx, tx, "terms:"+taxonomy)
}

func nonZero(id int64) []int64 {
	if id == 0 {
		return nil
	}
	return []int64{id}
}

// UpdateTerm applies in to the stored term old of tax. When nothing would
// change the term is returned as it is and nothing is written.
func (s *Site) UpdateTerm(ctx context.Context, tax *Taxonomy, old *store.Term, in TermInput, request *rest.Request) (*store.Term, error) {
	if in.Parent != nil {
		if err := s.checkParent(ctx, tax, *in.Parent); err != nil {
			return nil, err
		}
	}
	if in.Name == nil && in.Slug == nil && in.Description == nil && in.Parent == nil {
		return old, nil
	}
	t := *old
	if in.Name != nil {
		t.Name = schema.SanitizeTextField(*in.Name)
	}
	if in.Description != nil {
		t.Description = render.KSESPost(*in.Description)
	}
	if in.Parent != nil {
		t.Parent = *in.Parent
	}
	regenerate := false
	if in.Slug != nil {
		t.Slug = render.Slug(*in.Slug)
		if t.Slug == "" {
			regenerate = true
		}
	}
	if err := s.preInsertTermHook(ctx, tax, &t, request); err != nil {
		return nil, err
	}
	if strings.TrimSpace(t.Name) == "" {
		return nil, errEmptyTermName()
	}
	if regenerate || t.Slug == "" {
		t.Slug = render.Slug(t.Name)
		regenerate = true
	}
	if t == *old {
		return old, nil
	}
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := lockTaxonomy(ctx, tx, tax.Name); err != nil {
			return err
		}
		if t.Parent != old.Parent && t.Parent != 0 {
			if err := s.checkNoLoop(ctx, tx, &t); err != nil {
				return err
			}
		}
		if t.Slug != old.Slug {
			if regenerate || t.Parent != old.Parent {
				if err := s.uniqueTermSlug(ctx, tx, &t); err != nil {
					return err
				}
			} else {
				taken, err := tx.ListTerms(ctx, store.TermQuery{Taxonomy: t.Taxonomy, Slugs: []string{t.Slug}, Exclude: []int64{t.ID}, Limit: 1})
				if err != nil {
					return err
				}
				if len(taken) > 0 {
					return errBad("duplicate_term_slug", fmt.Sprintf("The slug \u201c%s\u201d is already in use by another term", t.Slug))
				}
			}
		}
		if err := tx.UpdateTerm(ctx, &t); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "term", Type: tax.Name, Action: "updated", ID: t.ID, Record: &t, Old: old})
	})
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, fmt.Errorf("update term %d: %w", t.ID, err)
	}
	s.insertTermHook(ctx, tax, &t, request, false)
	return &t, nil
}

// checkNoLoop refuses a parent that is the term itself or one of its
// descendants.
func (s *Site) checkNoLoop(ctx context.Context, tx store.Store, t *store.Term) error {
	seen := map[int64]bool{}
	for cur := t.Parent; cur != 0 && !seen[cur]; {
		if cur == t.ID {
			return errBad("rest_term_invalid", "A term cannot be its own parent or the child of one of its children.")
		}
		seen[cur] = true
		p, err := tx.GetTerm(ctx, cur)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		cur = p.Parent
	}
	return nil
}

// DeleteTerm removes term t of tax. Its posts lose it (a post left without
// a category gets the default one) and its children move to its parent.
// The default category (the default_category setting) cannot be deleted
// (rest_cannot_delete, 500, as the original answers).
func (s *Site) DeleteTerm(ctx context.Context, tax *Taxonomy, t *store.Term) error {
	var reassign int64
	if tax.Name == "category" {
		set, err := s.Settings(ctx)
		if err != nil {
			return fmt.Errorf("delete term %d: %w", t.ID, err)
		}
		if t.ID == set.DefaultCategory {
			return &Error{Code: "rest_cannot_delete", Message: "The resource cannot be deleted.", Status: 500}
		}
		reassign = set.DefaultCategory
	}
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := lockTaxonomy(ctx, tx, tax.Name); err != nil {
			return err
		}
		if err := tx.DeleteTerm(ctx, t.ID, reassign); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "term", Type: tax.Name, Action: "deleted", ID: t.ID, Record: t})
	})
	if err != nil {
		return fmt.Errorf("delete term %d: %w", t.ID, err)
	}
	return nil
}

// setPostTerms writes the term arrays of a post inside the write
// transaction tx: each taxonomy of pt that terms names is replaced, with
// the ids that are not terms of that taxonomy skipped silently (reference
// "Terms on write"); a new `post` that names no categories gets
// defaultCategory (0 when the post is not new). Taxonomies that do not
// apply to pt are ignored.
func (s *Site) setPostTerms(ctx context.Context, tx store.Store, pt *PostType, p *store.Post, terms map[string][]int64, defaultCategory int64) error {
	_, err := s.linkPostTerms(ctx, tx, pt, p, terms, defaultCategory, false)
	return err
}

// linkPostTerms is setPostTerms that, where the store tells which terms it
// linked (store.PostTermsLinker), also tells them: linked, called once the
// transaction has committed, returns for each taxonomy of the post's type
// the ids of the terms it linked the post to, in the order PostTerms lists
// a post's terms (name, then id). For a new post, which had no terms, they
// are its terms. linked returns nil where the store does not tell. fresh
// says p is the post the transaction has just inserted, with no terms
// yet: a store.NewPostTermsLinker then links them without reading the
// post first, and may tell what it linked only with the commit.
func (s *Site) linkPostTerms(ctx context.Context, tx store.Store, pt *PostType, p *store.Post, terms map[string][]int64, defaultCategory int64, fresh bool) (linked func() map[string][]int64, err error) {
	taxes := s.taxonomies.ForType(pt.Name)
	var all []int64
	for _, tax := range taxes {
		all = append(all, terms[tax.Name]...)
	}
	var known map[int64]*store.Term
	if len(all) > 0 {
		if known, err = tx.GetTerms(ctx, all); err != nil {
			return nil, err
		}
	}
	linker, _ := tx.(store.PostTermsLinker)
	// got holds each taxonomy's linked ids, filled at once or by the
	// commit (LinkNewPostTerms).
	got := make(map[string]*[]int64, len(taxes))
	var newLinker store.NewPostTermsLinker
	if fresh {
		newLinker, _ = tx.(store.NewPostTermsLinker)
	}
	for _, tax := range taxes {
		given, ok := terms[tax.Name]
		var ids []int64
		switch {
		case ok:
			ids = make([]int64, 0, len(given))
			for _, id := range given {
				if t, found := known[id]; found && t.Taxonomy == tax.Name {
					ids = append(ids, id)
				}
			}
		case defaultCategory != 0 && pt.Name == "post" && tax.Name == "category":
			ids = []int64{defaultCategory}
		default:
			continue
		}
		if linker == nil {
			if err := tx.SetPostTerms(ctx, p.ID, tax.Name, ids); err != nil {
				return nil, err
			}
			continue
		}
		linkedIDs := new([]int64)
		if newLinker != nil {
			err = newLinker.LinkNewPostTerms(ctx, p.ID, p.Status == "publish", tax.Name, ids, linkedIDs)
		} else {
			*linkedIDs, err = linker.SetPostTermsLinked(ctx, p.ID, tax.Name, ids)
		}
		if err != nil {
			return nil, err
		}
		got[tax.Name] = linkedIDs
	}
	return func() map[string][]int64 {
		if linker == nil {
			return nil
		}
		linked := make(map[string][]int64, len(got))
		for tax, ids := range got {
			// The ids given were read above with their names; a default
			// category is one term.
			slices.SortFunc(*ids, func(a, b int64) int {
				ta, tb := known[a], known[b]
				if ta != nil && tb != nil {
					if c := store.CompareNames(ta.Name, tb.Name); c != 0 {
						return c
					}
				}
				return cmp.Compare(a, b)
			})
			linked[tax] = *ids
		}
		return linked
	}, nil
}
