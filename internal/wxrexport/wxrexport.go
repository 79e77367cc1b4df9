// Package wxrexport writes a whole site as WXR 1.2 (WordPress eXtended RSS),
// the file WordPress's Tools → Export produces and its importer reads: the
// channel with the site's users, categories, tags and terms of the custom
// taxonomies, then one item per post, page, attachment and post of a
// custom type with its terms, meta and comments.
//
// The export streams: posts, terms, users, meta and comments are read in id
// order a bounded batch at a time (store.Exporter) and written as they
// come, so memory does not grow with the site. When the store can
// (store.Snapshotter), the whole export reads one consistent snapshot, so
// it can run while a server keeps writing to the same database.
//
// What is written follows WordPress's export_wp(): auto-drafts and
// revisions are left out, trashed posts are exported with the status
// trash (and the _wp_trash_meta_* post meta WordPress keeps), spam
// comments are left out and every other comment is exported with its
// stored status (1, 0, trash, post-trashed).
package wxrexport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

// Version is the WXR version written.
const Version = "1.2"

// The namespaces of WXR 1.2, exactly as WordPress declares them.
const (
	NSExcerpt = "http://wordpress.org/export/1.2/excerpt/"
	NSContent = "http://purl.org/rss/1.0/modules/content/"
	NSWfw     = "http://wellformedweb.org/CommentAPI/"
	NSDC      = "http://purl.org/dc/elements/1.1/"
	NSWP      = "http://wordpress.org/export/1.2/"
)

// Options tune an export. The zero value is usable.
type Options struct {
	// SiteURL is the site's public URL without a trailing slash, used for
	// the channel link, wp:base_site_url and item links. Empty means the
	// configured site.url, or http:// and the configured listen address.
	SiteURL string
	// UploadsURL is the URL of the uploads root, for wp:attachment_url.
	// Empty means the configured media.public_url, or SiteURL/uploads.
	UploadsURL string
	// Generator names the program in the generator comment and element,
	// e.g. "Folio/1.4.0"; empty means "Folio".
	Generator string
	// Language is the channel's language; empty means "en-US".
	Language string
	// Now is the clock for the channel's pubDate; nil means time.Now.
	Now func() time.Time
	// BatchSize is how many posts (and terms, users) are read per query;
	// 0 means 100. Meta rows and comments are read up to 5 times as many
	// per query.
	BatchSize int
}

// Export writes the WXR of site to w. It reads the site through a
// store.Snapshotter snapshot when site.Store has one, and needs the store
// to implement store.Exporter. Output is buffered and flushed after every
// batch of items; on error, what was written so far is an incomplete
// document.
func Export(ctx context.Context, site *content.Site, w io.Writer, opts Options) error {
	cfg := site.Config()
	if opts.SiteURL == "" {
		opts.SiteURL = cfg.Site.URL
	}
	if opts.SiteURL == "" {
		addr := cfg.Addr
		if addr == "" {
			addr = "127.0.0.1:8080"
		}
		opts.SiteURL = "http://" + addr
	}
	opts.SiteURL = strings.TrimRight(opts.SiteURL, "/")
	if opts.UploadsURL == "" {
		opts.UploadsURL = cfg.Media.PublicURL
	}
	if opts.UploadsURL == "" {
		opts.UploadsURL = opts.SiteURL + "/uploads"
	}
	opts.UploadsURL = strings.TrimRight(opts.UploadsURL, "/")
	if opts.Generator == "" {
		opts.Generator = "Folio"
	}
	if opts.Language == "" {
		opts.Language = "en-US"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	// The effective settings (the configuration's, or those stored
	// through the settings route) name the site and give its time zone.
	set, err := site.Settings(ctx)
	if err != nil {
		return fmt.Errorf("wxrexport: %w", err)
	}
	run := func(st store.Store) error {
		ex, ok := st.(store.Exporter)
		if !ok {
			return fmt.Errorf("wxrexport: store %T cannot walk the site (no store.Exporter)", st)
		}
		e := &exporter{site: site, set: set, st: st, ex: ex, opts: opts, bw: bufio.NewWriterSize(w, 64<<10)}
		if err := e.run(ctx); err != nil {
			return err
		}
		if err := e.bw.Flush(); err != nil {
			return fmt.Errorf("wxrexport: write: %w", err)
		}
		return nil
	}
	if sn, ok := site.Store.(store.Snapshotter); ok {
		return sn.ReadSnapshot(ctx, run)
	}
	return run(site.Store)
}

// exporter is one export run.
type exporter struct {
	site *content.Site
	set  *content.Settings
	st   store.Store
	ex   store.Exporter
	opts Options
	bw   *bufio.Writer
	err  error // the first write error
}

// ws writes s unless a write already failed.
func (e *exporter) ws(parts ...string) {
	for _, s := range parts {
		if e.err != nil {
			return
		}
		_, e.err = e.bw.WriteString(s)
	}
}

// flush hands what is buffered to the writer.
func (e *exporter) flush() error {
	if e.err == nil {
		e.err = e.bw.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("wxrexport: write: %w", e.err)
	}
	return nil
}

// cdataEl writes <name>CDATA</name> on its own line.
func (e *exporter) cdataEl(indent, name, value string) {
	e.ws(indent, "<", name, ">", cdata(value), "</", name, ">\n")
}

// textEl writes <name>escaped text</name> on its own line.
func (e *exporter) textEl(indent, name, value string) {
	e.ws(indent, "<", name, ">", escText(value), "</", name, ">\n")
}

// intEl writes <name>n</name> on its own line.
func (e *exporter) intEl(indent, name string, n int64) {
	e.ws(indent, "<", name, ">", strconv.FormatInt(n, 10), "</", name, ">\n")
}

func (e *exporter) run(ctx context.Context) error {
	now := e.opts.Now().UTC()
	e.ws(`<?xml version="1.0" encoding="UTF-8" ?>
<!-- This is a WordPress eXtended RSS file generated by Folio as an export of your site. -->
<!-- It contains information about your site's posts, pages, comments, categories, and other content. -->
<!-- You may use this file to transfer that content from one site to another. -->
<!-- This file is not intended to serve as a complete backup of your site. -->

<!-- To import this information into a WordPress site follow these steps: -->
<!-- 1. Log in to that site as an administrator. -->
<!-- 2. Go to Tools: Import in the WordPress admin panel. -->
<!-- 3. Install the "WordPress" importer from the list. -->
<!-- 4. Activate & Run Importer. -->
<!-- 5. Upload this file using the form provided on that page. -->
<!-- 6. You will first be asked to map the authors in this export file to users -->
<!--    on the site. For each author, you may choose to map to an -->
<!--    existing user on the site or to create a new user. -->
<!-- 7. WordPress will then import each of the posts, pages, comments, categories, etc. -->
<!--    contained in this file into your site. -->

`)
	e.ws(`<!-- generator="`, escAttr(strings.ReplaceAll(e.opts.Generator, "--", "-")), `" created="`, now.Format("2006-01-02 15:04"), "\" -->\n")
	e.ws(`<rss version="2.0"
	xmlns:excerpt="` + NSExcerpt + `"
	xmlns:content="` + NSContent + `"
	xmlns:wfw="` + NSWfw + `"
	xmlns:dc="` + NSDC + `"
	xmlns:wp="` + NSWP + `"
>

<channel>
`)
	e.textEl("\t", "title", e.set.Title)
	e.textEl("\t", "link", e.opts.SiteURL)
	e.textEl("\t", "description", e.set.Description)
	e.textEl("\t", "pubDate", now.Format(rssDate))
	e.textEl("\t", "language", e.opts.Language)
	e.textEl("\t", "wp:wxr_version", Version)
	e.textEl("\t", "wp:base_site_url", e.opts.SiteURL)
	e.textEl("\t", "wp:base_blog_url", e.opts.SiteURL)
	e.ws("\n")
	if err := e.authors(ctx); err != nil {
		return err
	}
	e.ws("\n")
	if err := e.terms(ctx); err != nil {
		return err
	}
	e.ws("\n")
	e.textEl("\t", "generator", e.opts.Generator)
	e.ws("\n")
	if err := e.items(ctx); err != nil {
		return err
	}
	e.ws("</channel>\n</rss>\n")
	return e.flush()
}

// rssDate is the RSS date layout WordPress writes (always in UTC).
const rssDate = "Mon, 02 Jan 2006 15:04:05 +0000"

// mysqlDate formats t as WordPress stores dates; the zero time is
// 0000-00-00 00:00:00.
func mysqlDate(t time.Time) string {
	if t.IsZero() {
		return "0000-00-00 00:00:00"
	}
	return t.Format("2006-01-02 15:04:05")
}

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

// items writes one item per exported post, in id order, a batch at a time.
func (e *exporter) items(ctx context.Context) error {
	q := store.ExportPostQuery{Limit: e.opts.BatchSize, Types: e.exportTypes(), SkipStatuses: []string{"auto-draft"}}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		posts, err := e.ex.ExportPosts(ctx, q)
		if err != nil {
			return fmt.Errorf("wxrexport: posts: %w", err)
		}
		if len(posts) == 0 {
			return nil
		}
		if err := e.batch(ctx, posts); err != nil {
			return err
		}
		q.After = posts[len(posts)-1].ID
		if err := e.flush(); err != nil {
			return err
		}
	}
}

// batchData is what the items of one batch need besides the posts.
type batchData struct {
	logins  map[int64]string
	terms   map[int64][]*store.Term
	media   map[int64]*store.Media
	parents map[int64]*store.Post
}

// batch loads what the items of posts need, one query per kind (and per
// level of page depth), then writes the items, reading their meta and
// comments page by page alongside.
func (e *exporter) batch(ctx context.Context, posts []*store.Post) error {
	ids := make([]int64, len(posts))
	var authors, attachments []int64
	seenAuthor := map[int64]bool{}
	for i, p := range posts {
		ids[i] = p.ID
		if p.Author != 0 && !seenAuthor[p.Author] {
			seenAuthor[p.Author] = true
			authors = append(authors, p.Author)
		}
		if p.Type == "attachment" {
			attachments = append(attachments, p.ID)
		}
	}
	d := batchData{logins: map[int64]string{}}
	users, err := e.st.GetUsers(ctx, authors)
	if err != nil {
		return fmt.Errorf("wxrexport: authors: %w", err)
	}
	for id, u := range users {
		d.logins[id] = u.Login
	}
	if d.terms, err = e.st.PostTerms(ctx, ids, e.site.Taxonomies().Names()); err != nil {
		return fmt.Errorf("wxrexport: post terms: %w", err)
	}
	if d.media, err = e.st.GetMedia(ctx, attachments); err != nil {
		return fmt.Errorf("wxrexport: media: %w", err)
	}
	if d.parents, err = e.parentChains(ctx, posts); err != nil {
		return err
	}

	pageSize := 5 * e.opts.BatchSize
	meta := &pager[*store.PostMetaRow]{
		fetch: func(ap, ai int64) ([]*store.PostMetaRow, error) {
			return e.ex.ExportPostMeta(ctx, ids, ap, ai, pageSize)
		},
		key: func(m *store.PostMetaRow) (int64, int64) { return m.PostID, m.ID },
	}
	comments := &pager[*store.ExportedComment]{
		fetch: func(ap, ai int64) ([]*store.ExportedComment, error) {
			return e.ex.ExportComments(ctx, store.ExportCommentQuery{Posts: ids, AfterPost: ap, AfterID: ai, Limit: pageSize,
				SkipApproved: []string{store.CommentSpam}})
		},
		key: func(c *store.ExportedComment) (int64, int64) { return c.PostID, c.ID },
	}
	for _, p := range posts {
		if err := e.item(p, &d, meta, comments); err != nil {
			return err
		}
	}
	return nil
}

// pager reads rows ordered by (post id, id) page by page and hands out,
// post after post, the rows of one post.
type pager[T any] struct {
	fetch  func(afterPost, afterID int64) ([]T, error)
	key    func(T) (post, id int64)
	buf    []T
	i      int
	done   bool
	ap, ai int64
}

// each calls fn with every row of post, in order. Posts must be asked for
// in increasing id order.
func (p *pager[T]) each(post int64, fn func(T) error) error {
	for {
		if p.i >= len(p.buf) {
			if p.done {
				return nil
			}
			rows, err := p.fetch(p.ap, p.ai)
			if err != nil {
				return err
			}
			p.buf, p.i = rows, 0
			if len(rows) == 0 {
				p.done = true
				return nil
			}
			p.ap, p.ai = p.key(rows[len(rows)-1])
		}
		row := p.buf[p.i]
		rowPost, _ := p.key(row)
		if rowPost > post {
			return nil
		}
		var zero T
		p.buf[p.i] = zero // let the row go once written
		p.i++
		if rowPost < post {
			continue
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// parentChains loads every ancestor of the hierarchical posts of a batch
// (for their permalinks), one query per level of depth.
func (e *exporter) parentChains(ctx context.Context, posts []*store.Post) (map[int64]*store.Post, error) {
	out := make(map[int64]*store.Post, len(posts))
	for _, p := range posts {
		out[p.ID] = p
	}
	var next []int64
	want := func(p *store.Post) {
		if p.Parent == 0 {
			return
		}
		if pt, ok := e.site.Types().Get(p.Type); !ok || !pt.Hierarchical {
			return
		}
		if _, ok := out[p.Parent]; !ok {
			next = append(next, p.Parent)
		}
	}
	for _, p := range posts {
		want(p)
	}
	for depth := 0; len(next) > 0 && depth < 32; depth++ {
		got, err := e.st.GetPosts(ctx, next)
		if err != nil {
			return nil, fmt.Errorf("wxrexport: parent posts: %w", err)
		}
		next = next[:0]
		for _, p := range got {
			out[p.ID] = p
		}
		for _, p := range got {
			want(p)
		}
	}
	return out, nil
}

// postFormatNames are the names WordPress gives the post_format terms.
var postFormatNames = map[string]string{
	"aside": "Aside", "chat": "Chat", "gallery": "Gallery", "link": "Link", "image": "Image",
	"quote": "Quote", "status": "Status", "video": "Video", "audio": "Audio",
}

// item writes one post as an item.
func (e *exporter) item(p *store.Post, d *batchData, meta *pager[*store.PostMetaRow], comments *pager[*store.ExportedComment]) error {
	pubDate := p.DateGMT
	if pubDate.IsZero() && !p.Date.IsZero() {
		pubDate = content.WallClockToUTC(p.Date, e.set.Location())
	}
	pub := ""
	if !pubDate.IsZero() {
		pub = pubDate.Format(rssDate)
	}
	sticky := int64(0)
	if p.Sticky {
		sticky = 1
	}
	e.ws("\t<item>\n")
	e.cdataEl("\t\t", "title", p.Title)
	e.textEl("\t\t", "link", e.site.Permalink(e.opts.SiteURL, p, d.parents))
	e.textEl("\t\t", "pubDate", pub)
	e.cdataEl("\t\t", "dc:creator", d.logins[p.Author])
	e.ws("\t\t<guid isPermaLink=\"false\">", escText(p.GUID), "</guid>\n")
	e.ws("\t\t<description></description>\n")
	e.cdataEl("\t\t", "content:encoded", p.Content)
	e.cdataEl("\t\t", "excerpt:encoded", p.Excerpt)
	e.intEl("\t\t", "wp:post_id", p.ID)
	e.cdataEl("\t\t", "wp:post_date", mysqlDate(p.Date))
	e.cdataEl("\t\t", "wp:post_date_gmt", mysqlDate(p.DateGMT))
	e.cdataEl("\t\t", "wp:post_modified", mysqlDate(p.Modified))
	e.cdataEl("\t\t", "wp:post_modified_gmt", mysqlDate(p.ModifiedGMT))
	e.cdataEl("\t\t", "wp:comment_status", p.CommentStatus)
	e.cdataEl("\t\t", "wp:ping_status", p.PingStatus)
	e.cdataEl("\t\t", "wp:post_name", p.Slug)
	e.cdataEl("\t\t", "wp:status", p.Status)
	e.intEl("\t\t", "wp:post_parent", p.Parent)
	e.intEl("\t\t", "wp:menu_order", p.MenuOrder)
	e.cdataEl("\t\t", "wp:post_type", p.Type)
	e.cdataEl("\t\t", "wp:post_password", p.Password)
	e.intEl("\t\t", "wp:is_sticky", sticky)
	m := d.media[p.ID]
	if p.Type == "attachment" {
		url := p.GUID
		if m != nil && m.File != "" {
			url = e.opts.UploadsURL + "/" + m.File
		}
		e.cdataEl("\t\t", "wp:attachment_url", url)
	}

	pt, _ := e.site.Types().Get(p.Type)
	for _, t := range d.terms[p.ID] {
		if tax, ok := e.site.Taxonomies().Get(t.Taxonomy); !ok || !tax.AppliesTo(p.Type) {
			continue
		}
		e.category(t.Taxonomy, t.Slug, t.Name)
	}
	if name, ok := postFormatNames[p.Format]; ok && pt != nil && pt.Supports(content.SupportPostFormats) {
		e.category("post_format", "post-format-"+p.Format, name)
	}

	// Meta WordPress keeps in wp_postmeta but Folio keeps in columns
	// and records comes first; stored meta with the same keys is not
	// written twice.
	derived := e.derivedMeta(p, m)
	skip := map[string]bool{"_edit_lock": true}
	for _, kv := range derived {
		skip[kv[0]] = true
		e.postmeta(kv[0], kv[1])
	}
	if err := meta.each(p.ID, func(r *store.PostMetaRow) error {
		if !skip[r.Key] {
			e.postmeta(r.Key, r.Value)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("wxrexport: post meta: %w", err)
	}
	if err := comments.each(p.ID, func(c *store.ExportedComment) error {
		e.comment(c)
		return nil
	}); err != nil {
		return fmt.Errorf("wxrexport: comments: %w", err)
	}
	e.ws("\t</item>\n")
	if e.err != nil {
		return fmt.Errorf("wxrexport: write: %w", e.err)
	}
	return nil
}

// category writes one term assignment of an item.
func (e *exporter) category(domain, nicename, name string) {
	e.ws("\t\t<category domain=\"", escAttr(domain), "\" nicename=\"", escAttr(nicename), "\">", cdata(name), "</category>\n")
}

// postmeta writes one wp:postmeta of an item.
func (e *exporter) postmeta(key, value string) {
	e.ws("\t\t<wp:postmeta>\n")
	e.cdataEl("\t\t\t", "wp:meta_key", key)
	e.cdataEl("\t\t\t", "wp:meta_value", value)
	e.ws("\t\t</wp:postmeta>\n")
}

// derivedMeta returns, as key/value pairs in WordPress's spelling, what
// WordPress keeps as post meta and Folio keeps in the post and media
// records: the attachment's file, metadata and alternative text, the
// featured image, the page template and the trash bookkeeping.
func (e *exporter) derivedMeta(p *store.Post, m *store.Media) [][2]string {
	var out [][2]string
	if m != nil {
		if m.File != "" {
			out = append(out, [2]string{"_wp_attached_file", m.File})
		}
		if md := attachmentMetadata(m); md != "" {
			out = append(out, [2]string{"_wp_attachment_metadata", md})
		}
		if m.AltText != "" {
			out = append(out, [2]string{"_wp_attachment_image_alt", m.AltText})
		}
	}
	if p.FeaturedMedia != 0 {
		out = append(out, [2]string{"_thumbnail_id", strconv.FormatInt(p.FeaturedMedia, 10)})
	}
	if p.Template != "" {
		out = append(out, [2]string{"_wp_page_template", p.Template})
	}
	if p.Status == "trash" {
		if p.PreTrashStatus != "" {
			out = append(out, [2]string{"_wp_trash_meta_status", p.PreTrashStatus})
		}
		// Folio does not record when a post was trashed; trashing sets the
		// modification date, which is the closest record of it.
		if !p.ModifiedGMT.IsZero() {
			out = append(out, [2]string{"_wp_trash_meta_time", strconv.FormatInt(p.ModifiedGMT.Unix(), 10)})
		}
	}
	return out
}

// attachmentMetadata returns the attachment's media_details as the
// serialized PHP array WordPress keeps in _wp_attachment_metadata (width,
// height, file, sizes with file/width/height/mime-type, image_meta), or ""
// when there are none.
func attachmentMetadata(m *store.Media) string {
	d := content.Details(m)
	if d.Width == 0 && d.Height == 0 && d.File == "" && len(d.Sizes) == 0 && d.ImageMeta == nil {
		return ""
	}
	arr := phpArray{{"width", d.Width}, {"height", d.Height}, {"file", d.File}}
	sizes := phpArray{}
	for _, s := range d.Sizes {
		sizes = append(sizes, phpKV{s.Name, phpArray{
			{"file", s.File}, {"width", s.Width}, {"height", s.Height}, {"mime-type", s.MimeType},
		}})
	}
	arr = append(arr, phpKV{"sizes", sizes})
	if im := d.ImageMeta; im != nil {
		kw := im.Keywords
		if kw == nil {
			kw = []string{}
		}
		arr = append(arr, phpKV{"image_meta", phpArray{
			{"aperture", im.Aperture}, {"credit", im.Credit}, {"camera", im.Camera},
			{"caption", im.Caption}, {"created_timestamp", im.CreatedTimestamp},
			{"copyright", im.Copyright}, {"focal_length", im.FocalLength}, {"iso", im.ISO},
			{"shutter_speed", im.ShutterSpeed}, {"title", im.Title},
			{"orientation", im.Orientation}, {"keywords", kw},
		}})
	}
	return phpSerialize(arr)
}

// exportedApproval is the wp:comment_approved of an exported comment. A
// comment that went to the trash with its post is written with the status
// it had before: WordPress keeps that status in the post's
// _wp_trash_meta_comments_status, keyed by comment ids, which its importer
// does not remap to the ids it gives the comments, so untrashing the post
// there would change unrelated comments and leave these hidden. Written
// this way, WordPress shows them as they were, and Folio's importer puts
// them back into the trash with their post, remembering that status.
func exportedApproval(c *store.ExportedComment) string {
	if c.Approved != store.CommentPostTrashed {
		return c.Approved
	}
	if c.PostTrashStatus == "" {
		return "0"
	}
	return c.PostTrashStatus
}

// comment writes one wp:comment of an item.
func (e *exporter) comment(c *store.ExportedComment) {
	e.ws("\t\t<wp:comment>\n")
	e.intEl("\t\t\t", "wp:comment_id", c.ID)
	e.cdataEl("\t\t\t", "wp:comment_author", c.AuthorName)
	e.cdataEl("\t\t\t", "wp:comment_author_email", c.AuthorEmail)
	e.textEl("\t\t\t", "wp:comment_author_url", c.AuthorURL)
	e.cdataEl("\t\t\t", "wp:comment_author_IP", c.AuthorIP)
	e.cdataEl("\t\t\t", "wp:comment_date", mysqlDate(c.Date))
	e.cdataEl("\t\t\t", "wp:comment_date_gmt", mysqlDate(c.DateGMT))
	e.cdataEl("\t\t\t", "wp:comment_content", c.Content)
	e.cdataEl("\t\t\t", "wp:comment_approved", exportedApproval(c))
	e.cdataEl("\t\t\t", "wp:comment_type", c.Type)
	e.intEl("\t\t\t", "wp:comment_parent", c.Parent)
	e.intEl("\t\t\t", "wp:comment_user_id", c.AuthorID)
	// WordPress keeps the status a trashed comment had in comment meta,
	// which untrashing restores.
	if c.Approved == store.CommentTrash && c.PreTrashStatus != "" {
		e.ws("\t\t\t<wp:commentmeta>\n")
		e.cdataEl("\t\t\t\t", "wp:meta_key", "_wp_trash_meta_status")
		e.cdataEl("\t\t\t\t", "wp:meta_value", c.PreTrashStatus)
		e.ws("\t\t\t</wp:commentmeta>\n")
	}
	e.ws("\t\t</wp:comment>\n")
}
