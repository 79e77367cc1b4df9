package wxrexport

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/store"
)

// authors writes one wp:author per user, in id order. WordPress lists only
// the authors of exported posts; Folio lists every user, so that comment
// authors and users without posts survive the trip too, and adds a user's
// description as wp:author_description when there is one. Each wp:author is
// written on one line, as WordPress's wxr_authors_list() writes it: the
// WordPress importer's regular-expression parser (its fallback when PHP has
// neither SimpleXML nor the XML extension) reads an author only from a
// line that holds both <wp:author> and </wp:author>.
func (e *exporter) authors(ctx context.Context) error {
	for after := int64(0); ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		users, err := e.ex.ExportUsers(ctx, after, e.opts.BatchSize)
		if err != nil {
			return fmt.Errorf("wxrexport: users: %w", err)
		}
		if len(users) == 0 {
			return nil
		}
		for _, u := range users {
			desc := ""
			if u.Description != "" {
				// WordPress writes none and its importer ignores it;
				// Folio's importer reads it back. Line feeds are written
				// as character references to keep the author on one line.
				desc = "<wp:author_description>" + strings.ReplaceAll(cdata(u.Description), "\n", "]]>&#10;<![CDATA[") + "</wp:author_description>"
			}
			e.ws("\t<wp:author>",
				"<wp:author_id>", strconv.FormatInt(u.ID, 10), "</wp:author_id>",
				"<wp:author_login>", cdata(u.Login), "</wp:author_login>",
				"<wp:author_email>", cdata(u.Email), "</wp:author_email>",
				"<wp:author_display_name>", cdata(u.DisplayName), "</wp:author_display_name>",
				"<wp:author_first_name>", cdata(u.FirstName), "</wp:author_first_name>",
				"<wp:author_last_name>", cdata(u.LastName), "</wp:author_last_name>", desc,
				"</wp:author>\n")
		}
		after = users[len(users)-1].ID
		if err := e.flush(); err != nil {
			return err
		}
	}
}

// terms writes the categories, then the tags, then the terms of every
// custom taxonomy, each taxonomy with no child before its parent (as
// WordPress orders them, so that an importer resolving parents by slug
// always finds the parent first).
func (e *exporter) terms(ctx context.Context) error {
	for _, tax := range e.site.Taxonomies().All() {
		var write func(t *store.Term, parent string)
		switch tax.Name {
		case "category":
			write = func(t *store.Term, parent string) {
				e.ws("\t<wp:category>\n")
				e.intEl("\t\t", "wp:term_id", t.ID)
				e.cdataEl("\t\t", "wp:category_nicename", t.Slug)
				e.cdataEl("\t\t", "wp:category_parent", parent)
				if t.Name != "" {
					e.cdataEl("\t\t", "wp:cat_name", t.Name)
				}
				if t.Description != "" {
					e.cdataEl("\t\t", "wp:category_description", t.Description)
				}
				e.ws("\t</wp:category>\n")
			}
		case "post_tag":
			write = func(t *store.Term, _ string) {
				e.ws("\t<wp:tag>\n")
				e.intEl("\t\t", "wp:term_id", t.ID)
				e.cdataEl("\t\t", "wp:tag_slug", t.Slug)
				if t.Name != "" {
					e.cdataEl("\t\t", "wp:tag_name", t.Name)
				}
				if t.Description != "" {
					e.cdataEl("\t\t", "wp:tag_description", t.Description)
				}
				e.ws("\t</wp:tag>\n")
			}
		default:
			write = func(t *store.Term, parent string) {
				e.ws("\t<wp:term>\n")
				e.intEl("\t\t", "wp:term_id", t.ID)
				e.cdataEl("\t\t", "wp:term_taxonomy", t.Taxonomy)
				e.cdataEl("\t\t", "wp:term_slug", t.Slug)
				e.cdataEl("\t\t", "wp:term_parent", parent)
				if t.Name != "" {
					e.cdataEl("\t\t", "wp:term_name", t.Name)
				}
				if t.Description != "" {
					e.cdataEl("\t\t", "wp:term_description", t.Description)
				}
				e.ws("\t</wp:term>\n")
			}
		}
		if err := e.taxonomy(ctx, tax.Name, write); err != nil {
			return err
		}
	}
	return nil
}

// taxonomy walks the terms of one taxonomy in id order and writes each
// once its parent is written. A parent almost always has a smaller id than
// its children, so in one pass a term is ready when its parent id is
// smaller and was not held back; only the others (children of terms
// created later, after a re-parenting) are held in memory and written in
// further passes once their parents are out. Terms whose parent is missing
// are written as top-level terms; a cycle is broken by writing its terms
// as they are.
func (e *exporter) taxonomy(ctx context.Context, name string, write func(t *store.Term, parent string)) error {
	held := map[int64]bool{}
	var waiting []*store.Term
	emit := func(terms []*store.Term) error {
		if len(terms) == 0 {
			return nil
		}
		var parentIDs []int64
		for _, t := range terms {
			if t.Parent != 0 {
				parentIDs = append(parentIDs, t.Parent)
			}
		}
		parents, err := e.st.GetTerms(ctx, parentIDs)
		if err != nil {
			return fmt.Errorf("wxrexport: %s parents: %w", name, err)
		}
		for _, t := range terms {
			slug := ""
			if p, ok := parents[t.Parent]; ok && t.Parent != 0 {
				slug = p.Slug
			}
			write(t, slug)
		}
		return e.flush()
	}
	for after := int64(0); ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, err := e.ex.ExportTerms(ctx, name, after, e.opts.BatchSize)
		if err != nil {
			return fmt.Errorf("wxrexport: %s terms: %w", name, err)
		}
		if len(batch) == 0 {
			break
		}
		ready := batch[:0:0]
		for _, t := range batch {
			if t.Parent != 0 && (t.Parent >= t.ID || held[t.Parent]) {
				held[t.ID] = true
				waiting = append(waiting, t)
				continue
			}
			ready = append(ready, t)
		}
		if err := emit(ready); err != nil {
			return err
		}
		after = batch[len(batch)-1].ID
	}
	for len(waiting) > 0 {
		var ready, rest []*store.Term
		for _, t := range waiting {
			if held[t.Parent] {
				rest = append(rest, t)
			} else {
				ready = append(ready, t)
			}
		}
		if len(ready) == 0 { // a cycle: nothing will ever be ready
			ready, rest = rest, nil
		}
		if err := emit(ready); err != nil {
			return err
		}
		for _, t := range ready {
			delete(held, t.ID)
		}
		waiting = rest
	}
	return nil
}

// exportTypes are the post types whose posts are exported: every
// registered type but revisions (WordPress's can_export types).
func (e *exporter) exportTypes() []string {
	var out []string
	for _, pt := range e.site.Types().All() {
		if pt.Name != "revision" {
			out = append(out, pt.Name)
		}
	}
	return out
}
