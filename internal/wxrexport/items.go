package wxrexport

import (
	"context"
	"fmt"
	"strconv"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
)

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
