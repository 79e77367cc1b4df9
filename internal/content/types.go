package content

import (
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
)

// Support names a feature a post type may support (as in the original's
// post_type_supports).
type Support string

// The features post types can support.
const (
	SupportTitle          Support = "title"
	SupportEditor         Support = "editor"
	SupportAuthor         Support = "author"
	SupportExcerpt        Support = "excerpt"
	SupportThumbnail      Support = "thumbnail"
	SupportComments       Support = "comments"
	SupportRevisions      Support = "revisions"
	SupportPageAttributes Support = "page-attributes"
	SupportPostFormats    Support = "post-formats"
)

// PostType describes one post type: its names, features and capabilities.
type PostType struct {
	Name          string
	RestBase      string
	Label         string
	SingularLabel string
	Description   string
	Hierarchical  bool
	Public        bool
	// ShowInRest exposes the type through the interface.
	ShowInRest bool
	// Builtin marks post, page and attachment.
	Builtin  bool
	supports map[Support]bool
	Caps     auth.TypeCaps
	// Trashable says whether DELETE without force moves items to the trash.
	Trashable bool
}

// Supports reports whether the type supports feature f.
func (t *PostType) Supports(f Support) bool { return t.supports[f] }

// Labels returns the type's label strings, keyed as the original's labels
// object.
func (t *PostType) Labels() map[string]any {
	plural, single := t.Label, t.SingularLabel
	lower := strings.ToLower(plural)
	lowerSingle := strings.ToLower(single)
	l := map[string]any{
		"name":                  plural,
		"singular_name":         single,
		"add_new":               "Add New",
		"add_new_item":          "Add New " + single,
		"edit_item":             "Edit " + single,
		"new_item":              "New " + single,
		"view_item":             "View " + single,
		"search_items":          "Search " + plural,
		"not_found":             "No " + lower + " found.",
		"not_found_in_trash":    "No " + lower + " found in Trash.",
		"parent_item_colon":     nil,
		"all_items":             "All " + plural,
		"archives":              plural,
		"insert_into_item":      "Insert into " + lowerSingle,
		"uploaded_to_this_item": "Uploaded to this " + lowerSingle,
		"featured_image":        "Featured Image",
		"set_featured_image":    "Set featured image",
		"remove_featured_image": "Remove featured image",
		"use_featured_image":    "Use as featured image",
		"filter_items_list":     "Filter " + lower + " list",
		"items_list_navigation": plural + " list navigation",
		"items_list":            plural + " list",
		"menu_name":             plural,
		"name_admin_bar":        single,
	}
	if t.Hierarchical {
		l["parent_item_colon"] = "Parent " + single + ":"
	}
	return l
}

// CapabilityMap returns the type's capability names keyed as the original's
// cap object.
func (t *PostType) CapabilityMap() map[string]any {
	c := t.Caps
	return map[string]any{
		"edit_post":              c.EditPost,
		"read_post":              c.ReadPost,
		"delete_post":            c.DeletePost,
		"edit_posts":             c.EditPosts,
		"edit_others_posts":      c.EditOthersPosts,
		"publish_posts":          c.PublishPosts,
		"read_private_posts":     c.ReadPrivatePosts,
		"read":                   c.Read,
		"delete_posts":           c.DeletePosts,
		"delete_private_posts":   c.DeletePrivatePosts,
		"delete_published_posts": c.DeletePublishedPosts,
		"delete_others_posts":    c.DeleteOthersPosts,
		"edit_private_posts":     c.EditPrivatePosts,
		"edit_published_posts":   c.EditPublishedPosts,
		"create_posts":           c.CreatePosts,
	}
}

func supportSet(fs ...Support) map[Support]bool {
	m := make(map[Support]bool, len(fs))
	for _, f := range fs {
		m[f] = true
	}
	return m
}

// builtinTypes returns post, page and attachment as the original registers
// them. Their field sets are fixed (reference §10.1), whatever their supports.
func builtinTypes() []*PostType {
	post := &PostType{
		Name: "post", RestBase: "posts", Label: "Posts", SingularLabel: "Post",
		Public: true, ShowInRest: true, Builtin: true, Trashable: true,
		supports: supportSet(SupportTitle, SupportEditor, SupportAuthor, SupportExcerpt,
			SupportThumbnail, SupportComments, SupportRevisions, SupportPostFormats),
		Caps: auth.CapsFor("post"),
	}
	page := &PostType{
		Name: "page", RestBase: "pages", Label: "Pages", SingularLabel: "Page",
		Public: true, ShowInRest: true, Builtin: true, Hierarchical: true, Trashable: true,
		supports: supportSet(SupportTitle, SupportEditor, SupportAuthor, SupportExcerpt,
			SupportThumbnail, SupportComments, SupportRevisions, SupportPageAttributes),
		Caps: auth.CapsFor("page"),
	}
	mediaCaps := auth.CapsFor("post")
	mediaCaps.CreatePosts = "upload_files"
	media := &PostType{
		Name: "attachment", RestBase: "media", Label: "Media", SingularLabel: "Media",
		Public: true, ShowInRest: true, Builtin: true, Trashable: false,
		supports: supportSet(SupportTitle, SupportAuthor, SupportComments),
		Caps:     mediaCaps,
	}
	// Revisions are posts of type revision whose parent is the revised
	// post; the type is internal and not exposed as a collection.
	revision := &PostType{
		Name: "revision", RestBase: "revisions", Label: "Revisions", SingularLabel: "Revision",
		Builtin:  true,
		supports: supportSet(SupportAuthor),
		Caps:     auth.CapsFor("post"),
	}
	return []*PostType{post, page, media, revision}
}

// customType builds a post type declared in folio.toml.
func customType(c config.PostType) *PostType {
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
	supports := c.Supports
	if supports == nil {
		supports = []string{"title", "editor"}
	}
	fs := make([]Support, 0, len(supports))
	for _, s := range supports {
		fs = append(fs, Support(s))
	}
	return &PostType{
		Name: c.Name, RestBase: base, Label: label, SingularLabel: single,
		Description: c.Description, Hierarchical: c.Hierarchical,
		Public: true, ShowInRest: true, Trashable: true,
		supports: supportSet(fs...),
		Caps:     auth.CapsFor("post"),
	}
}

func titleCase(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	s = strings.ReplaceAll(s, "-", " ")
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// Types is the ordered registry of post types.
type Types struct {
	list   []*PostType
	byName map[string]*PostType
}

func newTypes(custom []config.PostType) *Types {
	t := &Types{byName: map[string]*PostType{}}
	for _, pt := range builtinTypes() {
		t.add(pt)
	}
	for _, c := range custom {
		t.add(customType(c))
	}
	return t
}

func (t *Types) add(pt *PostType) {
	if _, ok := t.byName[pt.Name]; !ok {
		t.list = append(t.list, pt)
	} else {
		for i, old := range t.list {
			if old.Name == pt.Name {
				t.list[i] = pt
			}
		}
	}
	t.byName[pt.Name] = pt
}

// Get returns the post type called name.
func (t *Types) Get(name string) (*PostType, bool) {
	pt, ok := t.byName[name]
	return pt, ok
}

// All returns every registered post type in registration order.
func (t *Types) All() []*PostType { return t.list }

// Status describes a post status.
type Status struct {
	Name      string
	Label     string
	Public    bool
	Private   bool
	Protected bool
	Internal  bool
	Queryable bool
	ShowInAll bool
}

// Statuses is the ordered registry of post statuses.
type Statuses struct {
	list   []*Status
	byName map[string]*Status
}

func newStatuses() *Statuses {
	s := &Statuses{byName: map[string]*Status{}}
	for _, st := range []*Status{
		{Name: "publish", Label: "Published", Public: true, Queryable: true, ShowInAll: true},
		{Name: "future", Label: "Scheduled", Protected: true, ShowInAll: true},
		{Name: "draft", Label: "Draft", Protected: true, ShowInAll: true},
		{Name: "pending", Label: "Pending", Protected: true, ShowInAll: true},
		{Name: "private", Label: "Private", Private: true, ShowInAll: true},
		{Name: "trash", Label: "Trash", Internal: true},
		{Name: "auto-draft", Label: "auto-draft", Internal: true},
		{Name: "inherit", Label: "inherit", Internal: true},
	} {
		s.list = append(s.list, st)
		s.byName[st.Name] = st
	}
	return s
}

// Get returns the status called name.
func (s *Statuses) Get(name string) (*Status, bool) {
	st, ok := s.byName[name]
	return st, ok
}

// All returns every status in registration order.
func (s *Statuses) All() []*Status { return s.list }

// WritableNames are the statuses a post may be given through the
// interface (the non-internal ones), in order.
func (s *Statuses) WritableNames() []string {
	var out []string
	for _, st := range s.list {
		if !st.Internal {
			out = append(out, st.Name)
		}
	}
	return out
}

// PostFormats lists the post format slugs in the original's order.
var PostFormats = []string{"standard", "aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio"}
