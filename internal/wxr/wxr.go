// Package wxr reads WordPress eXtended RSS (WXR) export files, versions
// 1.0, 1.1 and 1.2, as a stream: the file is decoded one author, term or
// item at a time with an encoding/xml token loop and never held whole.
//
// Elements are matched by namespace URI, not by prefix: the wp namespace is
// any of http:// or https://wordpress.org/export/1.0/, 1.1/ and 1.2/ (and
// excerpt its /excerpt/ variants), whatever prefix binds it, and a `wp`
// prefix rebound to another URI is not the wp namespace. `wp:wp_author` is
// read as `wp:author`.
//
// The decoder is strict, with one tolerance: an `&` that starts no entity
// or character reference (bare `&` in URLs, as some exports have) is read
// as a literal `&` and reported as a Warning with its line. Structural
// breakage (unclosed elements, a truncated file) is a *SyntaxError with the
// line and column.
package wxr

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Namespace URIs other than wp's.
const (
	nsContent = "http://purl.org/rss/1.0/modules/content/"
	nsDC      = "http://purl.org/dc/elements/1.1/"
)

// wpVersion returns the WXR version of a wp namespace URI and whether uri
// is one (excerpt true for the excerpt namespace).
func wpVersion(uri string) (version string, excerpt bool, ok bool) {
	rest, found := strings.CutPrefix(uri, "http://wordpress.org/export/")
	if !found {
		rest, found = strings.CutPrefix(uri, "https://wordpress.org/export/")
	}
	if !found {
		return "", false, false
	}
	for _, v := range []string{"1.0", "1.1", "1.2"} {
		switch rest {
		case v + "/":
			return v, false, true
		case v + "/excerpt/":
			return v, true, true
		}
	}
	return "", false, false
}

// Channel is what the file says about the exported site.
type Channel struct {
	Title       string
	Link        string
	Description string
	Language    string
	WXRVersion  string
	BaseSiteURL string
	BaseBlogURL string
}

// Source names the exported site for the import map: the blog URL, else
// the site URL, else the channel link; "" when the file names none.
func (c *Channel) Source() string {
	for _, s := range []string{c.BaseBlogURL, c.BaseSiteURL, c.Link} {
		if s = strings.TrimRight(strings.TrimSpace(s), "/"); s != "" {
			return s
		}
	}
	return ""
}

// Author is a wp:author (or wp:wp_author) of the channel.
type Author struct {
	ID          int64
	Login       string
	Email       string
	DisplayName string
	FirstName   string
	LastName    string
	Description string
	Line        int
}

// Meta is one key/value pair of post, comment or term meta.
type Meta struct {
	Key   string
	Value string
}

// Term is a channel-level term definition: wp:category (Taxonomy
// "category"), wp:tag ("post_tag") or wp:term (any taxonomy). Parent is
// the parent's slug.
type Term struct {
	ID          int64
	Taxonomy    string
	Slug        string
	Name        string
	Description string
	Parent      string
	Meta        []Meta
	Line        int
}

// ItemTerm is a term assigned to an item by a `<category domain="…"
// nicename="…">name</category>` element.
type ItemTerm struct {
	Taxonomy string
	Slug     string
	Name     string
}

// Comment is a wp:comment of an item.
type Comment struct {
	ID          int64
	Author      string
	AuthorEmail string
	AuthorURL   string
	AuthorIP    string
	Date        string
	DateGMT     string
	Content     string
	// Approved is the stored status as exported: "1", "0", "spam",
	// "trash" or "" when the element is missing or empty.
	Approved string
	Type     string
	Parent   int64
	UserID   int64
	Meta     []Meta
}

// Item is one `<item>`: a post, page, attachment, custom type entry or
// WordPress-internal record (nav_menu_item, wp_template, ...).
type Item struct {
	Title       string
	Link        string
	PubDate     string
	Creator     string // dc:creator, the author's login
	GUID        string
	Description string
	Content     string
	Excerpt     string

	PostID          int64
	PostDate        string
	PostDateGMT     string
	PostModified    string
	PostModifiedGMT string
	CommentStatus   string
	PingStatus      string
	PostName        string
	Status          string
	PostParent      int64
	MenuOrder       int64
	// PostType is "" when the item has no wp:post_type.
	PostType      string
	Password      string
	Sticky        bool
	AttachmentURL string

	Terms    []ItemTerm
	Meta     []Meta
	Comments []Comment
	// Line is the line of the item's start tag.
	Line int
}

// Warning is a problem the reader worked around.
type Warning struct {
	Line    int
	Column  int
	Message string
}

func (w Warning) String() string {
	return fmt.Sprintf("line %d, column %d: %s", w.Line, w.Column, w.Message)
}

// SyntaxError is malformed XML, with the line and column (in bytes, from
// 1) where the decoder found it.
type SyntaxError struct {
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed XML at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Reader decodes a WXR file one record at a time.
type Reader struct {
	d        *xml.Decoder
	filter   *ampFilter
	channel  Channel
	warnings []Warning
	depth    int // element depth of the token loop (rss = 1, channel = 2)
	inChan   bool
	sawRSS   bool
	err      error
}

// NewReader returns a Reader of the WXR document r.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{}
	rd.filter = newAmpFilter(r, func(line, col int) {
		rd.warnings = append(rd.warnings, Warning{Line: line, Column: col,
			Message: "bare '&' (not an entity) read as a literal '&'"})
	})
	d := xml.NewDecoder(rd.filter)
	d.Strict = true
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	rd.d = d
	return rd
}

// charsetReader decodes the non-UTF-8 encodings old exports declare.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1":
		return &singleByteReader{in: in}, nil
	case "windows-1252", "cp1252":
		return &singleByteReader{in: in, cp1252: true}, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q", label)
}

// Channel returns what the file said about its site so far; the channel's
// own elements come before its items in every exporter's output.
func (r *Reader) Channel() *Channel { return &r.channel }

// Warnings returns the problems worked around so far.
func (r *Reader) Warnings() []Warning { return r.warnings }

// Next returns the next record: *Author, *Term or *Item, or io.EOF after
// the last one. A malformed document gives a *SyntaxError; after an error
// Next keeps returning it.
func (r *Reader) Next() (any, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *Reader) next() (any, error) {
	for {
		tok, err := r.d.Token()
		if err == io.EOF {
			if !r.sawRSS {
				return nil, errors.New("not a WXR file: no <rss> element")
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, r.syntaxError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.depth++
			if r.depth == 1 {
				if t.Name.Local != "rss" {
					return nil, fmt.Errorf("not a WXR file: the document element is <%s>, not <rss>", t.Name.Local)
				}
				r.sawRSS = true
				continue
			}
			if r.depth == 2 && t.Name.Local == "channel" && t.Name.Space == "" {
				r.inChan = true
				continue
			}
			if r.depth != 3 || !r.inChan {
				continue
			}
			line, _ := r.d.InputPos()
			n, err := r.readNode(t)
			r.depth--
			if err != nil {
				return nil, err
			}
			if rec := r.record(n, line); rec != nil {
				return rec, nil
			}
		case xml.EndElement:
			if r.depth == 2 {
				r.inChan = false
			}
			r.depth--
		}
	}
}

// syntaxError turns a decoder error into a *SyntaxError in the original
// file's coordinates.
func (r *Reader) syntaxError(err error) error {
	line, col := r.d.InputPos()
	var se *xml.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Msg
		if se.Line != line {
			line, col = se.Line, 0
		}
	}
	if col > 0 {
		col = r.filter.originalColumn(line, col)
	}
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

// node is one element of a record, decoded into a small tree.
type node struct {
	name xml.Name
	attr []xml.Attr
	// segs are the element's own text runs as the decoder returned them:
	// each CDATA section is a run of its own, so is the text between them.
	segs     []string
	children []*node
}

// maxRecordDepth bounds the nesting inside one record.
const maxRecordDepth = 16

// readNode decodes the element start (already read) and its content.
func (r *Reader) readNode(start xml.StartElement) (*node, error) {
	root := &node{name: start.Name, attr: start.Attr}
	stack := []*node{root}
	for len(stack) > 0 {
		tok, err := r.d.Token()
		if err == io.EOF {
			line, _ := r.d.InputPos()
			return nil, &SyntaxError{Line: line, Msg: "unexpected end of file inside <" + start.Name.Local + "> (truncated file?)"}
		}
		if err != nil {
			return nil, r.syntaxError(err)
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxRecordDepth {
				line, col := r.d.InputPos()
				return nil, &SyntaxError{Line: line, Column: col, Msg: "elements nested too deep"}
			}
			n := &node{name: t.Name, attr: t.Attr}
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.segs = append(top.segs, string(t))
		}
	}
	return root, nil
}

// kind classifies an element name: "wp", "excerpt", "content", "dc", ""
// (no namespace, RSS) or "other".
func kind(n xml.Name) string {
	switch n.Space {
	case "":
		return ""
	case nsContent:
		return "content"
	case nsDC:
		return "dc"
	}
	if _, excerpt, ok := wpVersion(n.Space); ok {
		if excerpt {
			return "excerpt"
		}
		return "wp"
	}
	return "other"
}

func (n *node) str() string { return strings.TrimSpace(strings.Join(n.segs, "")) }

// raw is the text of an element whose white space matters (content,
// excerpt, meta values, comment text, descriptions): only the white space
// that lays out the file around a CDATA section (whitespace-only runs
// before the first and after the last run with text) is left out; the
// text itself is kept byte for byte, leading and trailing white space
// included.
func (n *node) raw() string {
	segs := n.segs
	if len(segs) > 1 {
		for len(segs) > 0 && strings.TrimSpace(segs[0]) == "" {
			segs = segs[1:]
		}
		for len(segs) > 0 && strings.TrimSpace(segs[len(segs)-1]) == "" {
			segs = segs[:len(segs)-1]
		}
	}
	switch len(segs) {
	case 0:
		return ""
	case 1:
		return segs[0]
	}
	return strings.Join(segs, "")
}

func (n *node) int() int64 {
	v, _ := strconv.ParseInt(n.str(), 10, 64)
	return v
}

func (n *node) attrValue(local string) (string, bool) {
	for _, a := range n.attr {
		if a.Name.Local == local && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// record maps a channel child to the record it is, or nil for channel
// fields (stored on the channel) and unknown elements.
func (r *Reader) record(n *node, line int) any {
	k := kind(n.name)
	switch {
	case k == "" && n.name.Local == "item":
		return r.item(n, line)
	case k == "wp":
		switch n.name.Local {
		case "author", "wp_author":
			return author(n, line)
		case "category":
			return readTerm(n, line, "category", categoryElems)
		case "tag":
			return readTerm(n, line, "post_tag", tagElems)
		case "term":
			return readTerm(n, line, "", termElemNames)
		case "wxr_version":
			r.channel.WXRVersion = n.str()
		case "base_site_url":
			r.channel.BaseSiteURL = n.str()
		case "base_blog_url":
			r.channel.BaseBlogURL = n.str()
		}
	case k == "":
		switch n.name.Local {
		case "title":
			r.channel.Title = n.str()
		case "link":
			r.channel.Link = n.str()
		case "description":
			r.channel.Description = n.str()
		case "language":
			r.channel.Language = n.str()
		}
	}
	return nil
}

func author(n *node, line int) *Author {
	a := &Author{Line: line}
	for _, c := range n.children {
		if kind(c.name) != "wp" {
			continue
		}
		switch c.name.Local {
		case "author_id":
			a.ID = c.int()
		case "author_login":
			a.Login = c.str()
		case "author_email":
			a.Email = c.str()
		case "author_display_name":
			a.DisplayName = c.str()
		case "author_first_name":
			a.FirstName = c.str()
		case "author_last_name":
			a.LastName = c.str()
		case "author_description":
			a.Description = c.raw()
		}
	}
	if a.Login == "" {
		return nil
	}
	return a
}

func metaOf(n *node) (Meta, bool) {
	var m Meta
	for _, c := range n.children {
		if kind(c.name) != "wp" {
			continue
		}
		switch c.name.Local {
		case "meta_key":
			m.Key = c.str()
		case "meta_value":
			m.Value = c.raw()
		}
	}
	return m, m.Key != ""
}

// termElems names the child elements of one kind of term definition.
type termElems struct {
	taxonomy, slug, parent, name, description string
}

var (
	categoryElems = termElems{slug: "category_nicename", parent: "category_parent", name: "cat_name", description: "category_description"}
	tagElems      = termElems{slug: "tag_slug", name: "tag_name", description: "tag_description"}
	termElemNames = termElems{taxonomy: "term_taxonomy", slug: "term_slug", parent: "term_parent", name: "term_name", description: "term_description"}
)

// readTerm reads a wp:category, wp:tag or wp:term definition whose child
// elements e names; taxonomy is the taxonomy of wp:category and wp:tag
// ("" for wp:term, which names its own). A definition without a taxonomy
// is dropped (nil).
func readTerm(n *node, line int, taxonomy string, e termElems) *Term {
	t := &Term{Taxonomy: taxonomy, Line: line}
	for _, c := range n.children {
		if kind(c.name) != "wp" {
			continue
		}
		switch l := c.name.Local; {
		case l == "term_id":
			t.ID = c.int()
		case l == "termmeta":
			if m, ok := metaOf(c); ok {
				t.Meta = append(t.Meta, m)
			}
		case e.taxonomy != "" && l == e.taxonomy:
			t.Taxonomy = c.str()
		case l == e.slug:
			t.Slug = c.str()
		case e.parent != "" && l == e.parent:
			t.Parent = c.str()
		case l == e.name:
			t.Name = c.str()
		case l == e.description:
			t.Description = c.raw()
		}
	}
	if t.Taxonomy == "" {
		return nil
	}
	return finishTerm(t)
}

// finishTerm drops a definition with neither name nor slug and fills a
// missing name from the slug.
func finishTerm(t *Term) *Term {
	if t.Name == "" && t.Slug == "" {
		return nil
	}
	if t.Name == "" {
		t.Name = t.Slug
	}
	return t
}

func (r *Reader) item(n *node, line int) *Item {
	it := &Item{Line: line}
	for _, c := range n.children {
		switch kind(c.name) {
		case "":
			switch c.name.Local {
			case "title":
				it.Title = c.str()
			case "link":
				it.Link = c.str()
			case "pubDate":
				it.PubDate = c.str()
			case "guid":
				it.GUID = c.str()
			case "description":
				it.Description = c.raw()
			case "category":
				if t, ok := itemTerm(c); ok {
					it.Terms = append(it.Terms, t)
				}
			}
		case "dc":
			if c.name.Local == "creator" {
				it.Creator = c.str()
			}
		case "content":
			if c.name.Local == "encoded" {
				it.Content = c.raw()
			}
		case "excerpt":
			if c.name.Local == "encoded" {
				it.Excerpt = c.raw()
			}
		case "wp":
			r.itemField(it, c)
		}
	}
	return it
}

func (r *Reader) itemField(it *Item, c *node) {
	switch c.name.Local {
	case "post_id":
		it.PostID = c.int()
	case "post_date":
		it.PostDate = c.str()
	case "post_date_gmt":
		it.PostDateGMT = c.str()
	case "post_modified":
		it.PostModified = c.str()
	case "post_modified_gmt":
		it.PostModifiedGMT = c.str()
	case "comment_status":
		it.CommentStatus = c.str()
	case "ping_status":
		it.PingStatus = c.str()
	case "post_name":
		it.PostName = c.str()
	case "status":
		it.Status = c.str()
	case "post_parent":
		it.PostParent = c.int()
	case "menu_order":
		it.MenuOrder = c.int()
	case "post_type":
		it.PostType = c.str()
	case "post_password":
		it.Password = c.str()
	case "is_sticky":
		it.Sticky = c.str() == "1"
	case "attachment_url":
		it.AttachmentURL = c.str()
	case "postmeta":
		if m, ok := metaOf(c); ok {
			it.Meta = append(it.Meta, m)
		}
	case "comment":
		it.Comments = append(it.Comments, comment(c))
	}
}

// itemTerm reads a `<category>` of an item. A category without a domain is
// RSS's copy of the assignment (WordPress writes both) and is skipped, as
// WordPress's importer does; WXR 1.0's domain "tag" means post_tag.
func itemTerm(c *node) (ItemTerm, bool) {
	domain, ok := c.attrValue("domain")
	if !ok || domain == "" {
		return ItemTerm{}, false
	}
	if domain == "tag" {
		domain = "post_tag"
	}
	slug, _ := c.attrValue("nicename")
	t := ItemTerm{Taxonomy: domain, Slug: strings.TrimSpace(slug), Name: c.str()}
	if t.Name == "" && t.Slug == "" {
		return ItemTerm{}, false
	}
	if t.Name == "" {
		t.Name = t.Slug
	}
	return t, true
}

func comment(n *node) Comment {
	var c Comment
	for _, e := range n.children {
		if kind(e.name) != "wp" {
			continue
		}
		switch e.name.Local {
		case "comment_id":
			c.ID = e.int()
		case "comment_author":
			c.Author = e.str()
		case "comment_author_email":
			c.AuthorEmail = e.str()
		case "comment_author_url":
			c.AuthorURL = e.str()
		case "comment_author_IP":
			c.AuthorIP = e.str()
		case "comment_date":
			c.Date = e.str()
		case "comment_date_gmt":
			c.DateGMT = e.str()
		case "comment_content":
			c.Content = e.raw()
		case "comment_approved":
			c.Approved = e.str()
		case "comment_type":
			c.Type = e.str()
		case "comment_parent":
			c.Parent = e.int()
		case "comment_user_id":
			c.UserID = e.int()
		case "commentmeta":
			if m, ok := metaOf(e); ok {
				c.Meta = append(c.Meta, m)
			}
		}
	}
	return c
}
