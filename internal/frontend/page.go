package frontend

import (
	"html/template"
	"time"
)

// Page is what every template is executed with. Fields that do not apply
// to a page are empty (nil, "", 0).
type Page struct {
	// Site describes the site and its main URLs.
	Site SiteInfo
	// Kind is "home", "single", "archive", "search" or "notfound".
	Kind string
	// Title is the document's title, plain text (html/template escapes it).
	Title string
	// Posts are the posts of a list page (home, archive, search).
	Posts []*Post
	// Post is the post, page or attachment of a single page.
	Post *Post
	// Archive describes the term or author of an archive page.
	Archive *Archive
	// Search is the searched text of a search page.
	Search string
	// Pagination links the pages of a list; nil when it has one page.
	Pagination *Pagination
	// Comments are the approved comments of a single page, each with its
	// replies.
	Comments []*Comment
	// CommentForm is the comment form of a single page whose comments are
	// open; nil otherwise.
	CommentForm *CommentForm
	// CommentsClosed is set on a single page whose comments are closed.
	CommentsClosed bool
	// PasswordForm asks for the password of a protected post whose text
	// is hidden; nil otherwise.
	PasswordForm *PasswordForm
	// Notice is a message for the visitor ("Your comment is awaiting
	// moderation.").
	Notice string
	// Viewer is the signed-in visitor; nil for anonymous ones.
	Viewer *Viewer
	// Head is markup for the document's <head>: the API discovery link and,
	// for a signed-in browser, the API settings script (allowed by the
	// page's Content-Security-Policy nonce). Templates must output it.
	Head template.HTML
	// Status is the response's HTTP status.
	Status int
}

// SiteInfo holds the site's title and main URLs.
type SiteInfo struct {
	Title       string
	Description string
	// Home is the site's home page; Search the action of the search form
	// (a GET form with the field "s").
	Home, Search string
	// Admin is the admin page, Login the sign-in page (coming back to the
	// current page), API the REST API's root.
	Admin, Login, API string
}

// Viewer is a signed-in visitor.
type Viewer struct {
	Name string
}

// Post is a post, page, custom post or attachment as a template shows it.
type Post struct {
	ID int64
	// Type is the post type's name ("post", "page", ...).
	Type string
	// Title is the rendered title (HTML, sanitised on write); it starts
	// with "Protected: " or "Private: " as the API's does.
	Title template.HTML
	// URL is the permalink.
	URL string
	// Date is the publication date in the site's time zone; DateISO the
	// instant in RFC 3339, for <time datetime>.
	Date    time.Time
	DateISO string
	// Author is nil for types without authors shown.
	Author *Author
	// Content is the rendered, sanitised content; empty while Locked.
	Content template.HTML
	// Excerpt is the rendered, sanitised excerpt; empty while Locked.
	Excerpt template.HTML
	// Protected is set for a password-protected post; Locked while its
	// password has not been given (its text is then never sent).
	Protected, Locked bool
	// Private is set for a private post (shown only to those allowed).
	Private bool
	// Sticky is set for a post stuck to the top of the home page.
	Sticky bool
	// Terms are the post's categories, tags and custom terms, grouped by
	// taxonomy.
	Terms []*TermGroup
	// Media is set for an attachment.
	Media *Media
}

// Author links a post's author to their archive.
type Author struct {
	Name, URL string
}

// TermGroup is a post's terms of one taxonomy.
type TermGroup struct {
	// Taxonomy is the taxonomy's name, Label its plural label
	// ("Categories").
	Taxonomy, Label string
	Terms           []*Term
}

// Term links a term to its archive.
type Term struct {
	Name, URL string
}

// Media describes an attachment's file.
type Media struct {
	// URL is the file's address; IsImage is set for images, which have
	// Alt text (possibly empty), Width and Height when known.
	URL           string
	MimeType      string
	IsImage       bool
	Alt           string
	Width, Height int
}

// Archive describes the subject of an archive page.
type Archive struct {
	// Kind is "author" or a taxonomy name ("category", "post_tag", ...);
	// Label says what it is ("Category", "Tag", "Author").
	Kind, Label string
	// Name is the term's or author's name, Description its description
	// (plain text).
	Name, Description string
	// URL is the archive's first page.
	URL string
}

// Pagination links the pages of a list.
type Pagination struct {
	Current, Total int
	// Prev and Next are the neighbouring pages' URLs, "" at the ends.
	// Newer posts come first, so Prev holds newer and Next older ones.
	Prev, Next string
	// Pages link every page (the current one too, with Current set).
	Pages []PageLink
}

// PageLink is one numbered link of a pagination.
type PageLink struct {
	Number  int
	URL     string
	Current bool
}

// Comment is an approved comment as a template shows it. No email address
// or IP address is ever part of it.
type Comment struct {
	ID int64
	// Author is the name given with the comment; AuthorURL the site it
	// gave ("" when none).
	Author, AuthorURL string
	Date              time.Time
	DateISO           string
	// Content is the rendered, sanitised text.
	Content template.HTML
	// ByPostAuthor is set when the post's author wrote it.
	ByPostAuthor bool
	// ReplyURL opens the comment form as a reply to this comment; "" when
	// comments are closed.
	ReplyURL string
	// Replies are the approved replies, oldest first.
	Replies []*Comment
}

// CommentForm is a comment form and what it holds.
type CommentForm struct {
	// Action is the URL the form posts to (the post's permalink).
	Action string
	// NonceField and Nonce are the hidden field that protects the form
	// against cross-site requests.
	NonceField, Nonce string
	// Parent is the comment this one replies to (0: none), ReplyTo its
	// author and CancelReply the URL of the plain form.
	Parent      int64
	ReplyTo     string
	CancelReply string
	// Anonymous is set when the visitor is not signed in: the form asks
	// for a name, an email address and an optional website. Otherwise As
	// is the signed-in visitor's name, the comment's author.
	Anonymous bool
	As        string
	// LoginRequired is set when only signed-in visitors may comment; the
	// form is then replaced by a link to Site.Login.
	LoginRequired bool
	// Name, Email, Website and Text are the values sent, shown again
	// with Error after a refused comment.
	Name, Email, Website, Text string
	Error                      string
}

// PasswordForm asks for a protected post's password.
type PasswordForm struct {
	// Action is the URL the form posts to; Field the name of its password
	// field.
	Action, Field string
	// Error says the last password given was wrong.
	Error string
}
