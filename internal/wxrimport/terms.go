package wxrimport

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/wxr"
)

// termKind is the summary kind of a taxonomy.
func termKind(taxonomy string) string {
	switch taxonomy {
	case "category":
		return "categories"
	case "post_tag":
		return "tags"
	}
	return "terms: " + taxonomy
}

// cachedTerm returns the id here of a term of taxonomy by slug.
func (im *Importer) cachedTerm(taxonomy, slug string) (int64, bool) {
	id, ok := im.terms[taxonomy][slug]
	return id, ok
}

func (im *Importer) cacheTerm(taxonomy string, id int64, slugs ...string) {
	if im.terms[taxonomy] == nil {
		im.terms[taxonomy] = map[string]int64{}
	}
	for _, s := range slugs {
		if s != "" {
			im.terms[taxonomy][s] = id
		}
	}
}

// term imports a channel-level term definition.
func (im *Importer) term(ctx context.Context, source string, t *wxr.Term) error {
	kind := termKind(t.Taxonomy)
	if t.Taxonomy == "post_format" {
		return nil // formats are the posts' format field
	}
	if len(t.Meta) > 0 {
		im.sum.note("term meta values not kept (Folio has no term meta)", len(t.Meta))
	}
	if internalTaxonomies[t.Taxonomy] {
		im.sum.skip(kind, "WordPress-internal taxonomy")
		return nil
	}
	tax, ok := im.site.Taxonomies().Get(t.Taxonomy)
	if !ok {
		im.sum.skip(kind, "taxonomy not configured (add it to [[taxonomies]] in folio.toml)")
		return nil
	}
	if _, seen := im.cachedTerm(t.Taxonomy, t.Slug); seen && t.Slug != "" {
		return nil // defined twice (wp:category and wp:term), counted once
	}
	id, created, err := im.findOrCreateTerm(ctx, source, tax, t.Name, t.Slug, t.Description, t.Parent, t.ID)
	if err != nil {
		return fmt.Errorf("%s %q: %w", t.Taxonomy, t.Slug, err)
	}
	if id == 0 {
		im.sum.skip(kind, "no usable name or slug")
		return nil
	}
	if created {
		im.sum.created(kind)
	} else {
		im.sum.existing(kind)
	}
	return nil
}

// findOrCreateTerm returns the id here of the term of tax with slug (or
// name), storing it when there is none. parentSlug is the parent's slug in
// the export: when that term is known the parent is set at once, else in
// the last pass.
func (im *Importer) findOrCreateTerm(ctx context.Context, source string, tax *content.Taxonomy, name, slug, description, parentSlug string, oldID int64) (int64, bool, error) {
	if _, err := im.importMap(ctx, source, mapTerm); err != nil {
		return 0, false, err
	}
	var parent int64
	if parentSlug != "" && tax.Hierarchical {
		parent, _ = im.cachedTerm(tax.Name, parentSlug)
	}
	var id int64
	var stored string
	created := false
	err := im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			got, err := im.st.ListTerms(ctx, store.TermQuery{Taxonomy: tax.Name, Slugs: []string{termSlug(slug, name)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(got) > 0 {
				id, stored = got[0].ID, got[0].Slug
			} else if stored = termSlug(slug, name); stored == "" {
				return nil
			} else {
				id, created = im.newID(), true
			}
			return nil
		}
		t, isNew, err := im.site.ImportTerm(ctx, tx, tax, name, slug, description, parent)
		if err != nil {
			return err
		}
		id, stored, created = t.ID, t.Slug, isNew
		key := tax.Name + ":" + stored
		if oldID != 0 {
			key = tax.Name + ":" + strconv.FormatInt(oldID, 10)
		}
		return rec.record(ctx, mapTerm, key, t.ID)
	})
	if err != nil {
		var ce *content.Error
		if errors.As(err, &ce) {
			return 0, false, nil
		}
		return 0, false, err
	}
	im.cacheTerm(tax.Name, id, slug, stored)
	if parentSlug != "" && tax.Hierarchical {
		im.pendingTermParents = append(im.pendingTermParents, termParent{taxonomy: tax.Name, id: id, parentSlug: parentSlug})
	}
	return id, created, nil
}

// termSlug is the slug a term is looked up by: its slug, else its name's.
func termSlug(slug, name string) string {
	if s := render.Slug(slug); s != "" {
		return s
	}
	return render.Slug(name)
}

// itemTerms resolves the terms an item names to ids here, per taxonomy,
// creating undeclared ones (each in its own transaction, so that the ids
// cached are committed ones), and returns the item's post format.
func (im *Importer) itemTerms(ctx context.Context, source, postType string, it *wxr.Item) (map[string][]int64, string, error) {
	terms := map[string][]int64{}
	format := ""
	for _, t := range it.Terms {
		if t.Taxonomy == "post_format" {
			f := strings.TrimPrefix(t.Slug, "post-format-")
			if f == "" {
				f = strings.ToLower(t.Name)
			}
			format = f
			continue
		}
		kind := termKind(t.Taxonomy)
		if internalTaxonomies[t.Taxonomy] {
			im.sum.note("term assignments of WordPress-internal taxonomies skipped", 1)
			continue
		}
		tax, ok := im.site.Taxonomies().Get(t.Taxonomy)
		if !ok {
			im.sum.note(fmt.Sprintf("term assignments skipped: taxonomy %s not configured", t.Taxonomy), 1)
			continue
		}
		if !tax.AppliesTo(postType) {
			im.sum.note(fmt.Sprintf("term assignments skipped: taxonomy %s does not apply to %s", t.Taxonomy, postType), 1)
			continue
		}
		id, ok := im.cachedTerm(t.Taxonomy, t.Slug)
		if !ok || t.Slug == "" {
			var created bool
			var err error
			id, created, err = im.findOrCreateTerm(ctx, source, tax, t.Name, t.Slug, "", "", 0)
			if err != nil {
				return nil, "", fmt.Errorf("%s %q: %w", t.Taxonomy, t.Slug, err)
			}
			if id == 0 {
				continue
			}
			if created {
				im.sum.created(kind)
				im.sum.note(NoteUndeclared(kind), 1)
			}
		}
		if !containsID(terms[t.Taxonomy], id) {
			terms[t.Taxonomy] = append(terms[t.Taxonomy], id)
		}
	}
	return terms, format, nil
}

func containsID(ids []int64, id int64) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}
