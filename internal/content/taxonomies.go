package content

import (
	"strings"

	"github.com/folio-server/folio/internal/config"
)

// TaxonomyCaps are the capability names of a taxonomy's four operations.
type TaxonomyCaps struct {
	ManageTerms string
	EditTerms   string
	DeleteTerms string
	AssignTerms string
}

// Taxonomy describes one taxonomy: its names, the post types it applies to
// and its capabilities.
type Taxonomy struct {
	Name          string
	RestBase      string
	Label         string
	SingularLabel string
	Description   string
	Hierarchical  bool
	// ObjectTypes are the post types whose posts take terms of the taxonomy.
	ObjectTypes []string
	// ShowInRest exposes the taxonomy through the interface.
	ShowInRest bool
	ShowCloud  bool
	Builtin    bool
	Caps       TaxonomyCaps
}

// SchemaTitle is the title of the taxonomy's term schema: `tag` for tags,
// the taxonomy name otherwise (reference §10.6).
func (t *Taxonomy) SchemaTitle() string {
	if t.Name == "post_tag" {
		return "tag"
	}
	return t.Name
}

// AppliesTo reports whether posts of type postType take terms of t.
func (t *Taxonomy) AppliesTo(postType string) bool {
	for _, ot := range t.ObjectTypes {
		if ot == postType {
			return true
		}
	}
	return false
}

// CapabilityMap returns the taxonomy's capability names keyed as the
// original's cap object.
func (t *Taxonomy) CapabilityMap() map[string]any {
	return map[string]any{
		"manage_terms": t.Caps.ManageTerms,
		"edit_terms":   t.Caps.EditTerms,
		"delete_terms": t.Caps.DeleteTerms,
		"assign_terms": t.Caps.AssignTerms,
	}
}

// Labels returns the taxonomy's label strings, keyed as the original's
// labels object; labels that do not apply to the kind of taxonomy are nil.
func (t *Taxonomy) Labels() map[string]any {
	plural, single := t.Label, t.SingularLabel
	lower := strings.ToLower(plural)
	l := map[string]any{
		"name":                       plural,
		"singular_name":              single,
		"search_items":               "Search " + plural,
		"popular_items":              "Popular " + plural,
		"all_items":                  "All " + plural,
		"parent_item":                nil,
		"parent_item_colon":          nil,
		"edit_item":                  "Edit " + single,
		"view_item":                  "View " + single,
		"update_item":                "Update " + single,
		"add_new_item":               "Add New " + single,
		"new_item_name":              "New " + single + " Name",
		"separate_items_with_commas": "Separate " + lower + " with commas",
		"add_or_remove_items":        "Add or remove " + lower,
		"choose_from_most_used":      "Choose from the most used " + lower,
		"not_found":                  "No " + lower + " found.",
		"no_terms":                   "No " + lower,
		"items_list_navigation":      plural + " list navigation",
		"items_list":                 plural + " list",
		"menu_name":                  plural,
		"name_admin_bar":             single,
	}
	if t.Hierarchical {
		l["popular_items"] = nil
		l["parent_item"] = "Parent " + single
		l["parent_item_colon"] = "Parent " + single + ":"
		l["separate_items_with_commas"] = nil
		l["add_or_remove_items"] = nil
		l["choose_from_most_used"] = nil
	}
	return l
}

// termCaps are the capabilities of categories, tags and (as the original's
// defaults) every custom taxonomy: managing terms needs manage_categories,
// assigning them edit_posts (reference §5.2).
var termCaps = TaxonomyCaps{
	ManageTerms: "manage_categories",
	EditTerms:   "manage_categories",
	DeleteTerms: "manage_categories",
	AssignTerms: "edit_posts",
}

// builtinTaxonomies returns category and post_tag as the original registers
// them.
func builtinTaxonomies() []*Taxonomy {
	return []*Taxonomy{
		{
			Name: "category", RestBase: "categories", Label: "Categories", SingularLabel: "Category",
			Hierarchical: true, ObjectTypes: []string{"post"}, ShowInRest: true, ShowCloud: true,
			Builtin: true, Caps: termCaps,
		},
		{
			Name: "post_tag", RestBase: "tags", Label: "Tags", SingularLabel: "Tag",
			ObjectTypes: []string{"post"}, ShowInRest: true, ShowCloud: true,
			Builtin: true, Caps: termCaps,
		},
	}
}

// customTaxonomy builds a taxonomy declared in folio.toml.
func customTaxonomy(c config.Taxonomy) *Taxonomy {
	base := c.RestBase
	if base == "" {
		base = c.Name
	}
	label := c.Label
	if label == "" {
		label = titleCase(c.Name) + "s"
	}
	single := c.SingularLabel
	if single == "" {
		single = titleCase(c.Name)
	}
	return &Taxonomy{
		Name: c.Name, RestBase: base, Label: label, SingularLabel: single,
		Description: c.Description, Hierarchical: c.Hierarchical,
		ObjectTypes: append([]string(nil), c.ObjectTypes...),
		ShowInRest:  true, ShowCloud: true, Caps: termCaps,
	}
}

// Taxonomies is the ordered registry of taxonomies: category, post_tag,
// then the custom ones in configuration order.
type Taxonomies struct {
	list   []*Taxonomy
	byName map[string]*Taxonomy
}

func newTaxonomies(custom []config.Taxonomy) *Taxonomies {
	t := &Taxonomies{byName: map[string]*Taxonomy{}}
	for _, tx := range builtinTaxonomies() {
		t.add(tx)
	}
	for _, c := range custom {
		t.add(customTaxonomy(c))
	}
	return t
}

func (t *Taxonomies) add(tx *Taxonomy) {
	if _, ok := t.byName[tx.Name]; ok {
		for i, old := range t.list {
			if old.Name == tx.Name {
				t.list[i] = tx
			}
		}
	} else {
		t.list = append(t.list, tx)
	}
	t.byName[tx.Name] = tx
}

// Get returns the taxonomy called name.
func (t *Taxonomies) Get(name string) (*Taxonomy, bool) {
	tx, ok := t.byName[name]
	return tx, ok
}

// All returns every taxonomy in registration order.
func (t *Taxonomies) All() []*Taxonomy { return t.list }

// Names returns the names of every taxonomy in registration order.
func (t *Taxonomies) Names() []string {
	out := make([]string, len(t.list))
	for i, tx := range t.list {
		out[i] = tx.Name
	}
	return out
}

// ForType returns the taxonomies exposed to the interface whose object
// types include postType, in registration order.
func (t *Taxonomies) ForType(postType string) []*Taxonomy {
	var out []*Taxonomy
	for _, tx := range t.list {
		if tx.ShowInRest && tx.AppliesTo(postType) {
			out = append(out, tx)
		}
	}
	return out
}
