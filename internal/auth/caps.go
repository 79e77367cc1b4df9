package auth

// Special capability names understood by every check.
const (
	// CapExist is held by every caller; a check that maps to it always
	// passes, for the anonymous caller too.
	CapExist = "exist"
	// CapDoNotAllow is held by nobody; a check that maps to it always fails.
	CapDoNotAllow = "do_not_allow"
)

// TypeCaps names the capabilities of one post type (reference §5.2). The
// first three are meta capabilities (checked against one post), the others
// primitive.
type TypeCaps struct {
	EditPost             string
	ReadPost             string
	DeletePost           string
	EditPosts            string
	EditOthersPosts      string
	PublishPosts         string
	ReadPrivatePosts     string
	Read                 string
	DeletePosts          string
	DeletePrivatePosts   string
	DeletePublishedPosts string
	DeleteOthersPosts    string
	EditPrivatePosts     string
	EditPublishedPosts   string
	CreatePosts          string
}

// CapsFor returns the capability names of a post type whose capability type
// is capabilityType: "post" gives edit_post, edit_posts, ...; "page" gives
// edit_page, edit_pages, ...; any other X gives edit_X, edit_Xs, ... The
// plural is formed by appending "s"; use CapsForPlural for other plurals.
// create_posts is the type's edit_posts capability.
func CapsFor(capabilityType string) TypeCaps {
	return CapsForPlural(capabilityType, capabilityType+"s")
}

// CapsForPlural is CapsFor with an explicit plural form.
func CapsForPlural(singular, plural string) TypeCaps {
	return TypeCaps{
		EditPost:             "edit_" + singular,
		ReadPost:             "read_" + singular,
		DeletePost:           "delete_" + singular,
		EditPosts:            "edit_" + plural,
		EditOthersPosts:      "edit_others_" + plural,
		PublishPosts:         "publish_" + plural,
		ReadPrivatePosts:     "read_private_" + plural,
		Read:                 "read",
		DeletePosts:          "delete_" + plural,
		DeletePrivatePosts:   "delete_private_" + plural,
		DeletePublishedPosts: "delete_published_" + plural,
		DeleteOthersPosts:    "delete_others_" + plural,
		EditPrivatePosts:     "edit_private_" + plural,
		EditPublishedPosts:   "edit_published_" + plural,
		CreatePosts:          "edit_" + plural,
	}
}

// MediaCaps returns the capability names of attachments: the posts family,
// except that create_posts is upload_files.
func MediaCaps() TypeCaps {
	c := CapsFor("post")
	c.CreatePosts = "upload_files"
	return c
}

// builtinTypeCaps returns the capability names of the built-in post types,
// used when the Authorizer has no registry or the registry lacks the type.
func builtinTypeCaps(postType string) (TypeCaps, bool) {
	switch postType {
	case "post", "revision":
		return CapsFor("post"), true
	case "page":
		return CapsFor("page"), true
	case "attachment":
		return MediaCaps(), true
	}
	return TypeCaps{}, false
}

// TaxCaps names the capabilities of one taxonomy.
type TaxCaps struct {
	ManageTerms string
	EditTerms   string
	DeleteTerms string
	AssignTerms string
}

// DefaultTaxCaps returns the capabilities of categories, tags and taxonomies
// declared without their own: managing, editing and deleting terms need
// manage_categories, assigning them needs edit_posts (reference §5.2).
func DefaultTaxCaps() TaxCaps {
	return TaxCaps{
		ManageTerms: "manage_categories",
		EditTerms:   "manage_categories",
		DeleteTerms: "manage_categories",
		AssignTerms: "edit_posts",
	}
}
