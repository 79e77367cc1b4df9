package wxrimport

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/wxr"
)

// typeKind is the summary kind of a post type.
func typeKind(postType string) string {
	switch postType {
	case "post":
		return "posts"
	case "page":
		return "pages"
	case "attachment":
		return "attachments"
	case "":
		return "items without a post type"
	}
	return postType
}

// postKey is the import map key of an item: its id there, else its GUID,
// else its link, else its line in the file.
func postKey(it *wxr.Item) string {
	switch {
	case it.PostID > 0:
		return strconv.FormatInt(it.PostID, 10)
	case it.GUID != "":
		return "guid:" + it.GUID
	case it.Link != "":
		return "link:" + it.Link
	}
	return "line:" + strconv.Itoa(it.Line)
}

// commentKey is the import map key of the i-th comment of an item.
func commentKey(it *wxr.Item, i int) string {
	if id := it.Comments[i].ID; id > 0 {
		return strconv.FormatInt(id, 10)
	}
	return postKey(it) + "#" + strconv.Itoa(i)
}

// skippedMeta are post meta keys not kept as meta: editing locks, and
// values Folio keeps in fields of its own (featured image, alt text, the
// status before the trash) or recomputes (the trash bookkeeping).
var skippedMeta = map[string]bool{
	"_edit_lock": true, "_edit_last": true, "_thumbnail_id": true, "_wp_attachment_image_alt": true,
	"_wp_trash_meta_status": true, "_wp_trash_meta_time": true, "_wp_trash_meta_comments_status": true,
}

// fileMeta are the attachment meta keys Folio derives from its media record
// when it holds the file; they are kept as meta for remote attachments.
var fileMeta = map[string]bool{"_wp_attached_file": true, "_wp_attachment_metadata": true}

func (im *Importer) item(ctx context.Context, source, file string, it *wxr.Item) error {
	kind := typeKind(it.PostType)
	switch {
	case it.PostType == "":
		if it.PostID > 0 && len(it.Comments) > 0 {
			// WordPress's a11y test data has such an item: it only adds
			// comments to the post with that id, which may come later.
			im.pendingComments = append(im.pendingComments, orphanComments{source: source, file: file, item: it})
			im.sum.note("items without a post type whose comments go to the post with their id", 1)
			return nil
		}
		im.sum.skip(kind, "no wp:post_type and no comments for an existing post")
		return nil
	case internalTypes[it.PostType]:
		im.sum.skip(kind, "WordPress-internal post type")
		return nil
	}
	pt, ok := im.site.Types().Get(it.PostType)
	if !ok || !pt.ShowInRest {
		im.sum.skip(kind, "post type not configured (add it to [[post_types]] in folio.toml)")
		return nil
	}
	posts, err := im.importMap(ctx, source, mapPost)
	if err != nil {
		return err
	}
	key := postKey(it)
	id, exists := posts[key]
	if exists {
		im.sum.existing(kind)
	} else {
		id, err = im.createItem(ctx, source, pt, it, key)
		if err != nil {
			return err
		}
		if id == 0 {
			return nil
		}
		im.sum.created(kind)
	}
	thumb := int64(0)
	for _, m := range it.Meta {
		if m.Key == "_thumbnail_id" {
			thumb, _ = strconv.ParseInt(strings.TrimSpace(m.Value), 10, 64)
		}
	}
	if it.PostParent != 0 || thumb != 0 {
		im.pendingLinks = append(im.pendingLinks, postLinks{source: source, id: id, parent: it.PostParent, featured: thumb})
	}
	if exists && len(it.Comments) > 0 {
		return im.comments(ctx, source, id, it)
	}
	return nil
}

// parseWall reads an exported "YYYY-MM-DD HH:MM:SS" wall clock; the zero
// date and unreadable values give the zero time.
func parseWall(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSpace(s))
	if err != nil || t.Year() < 1 {
		return time.Time{}
	}
	return t
}

// createItem stores a new item with its terms, meta and comments in one
// transaction and returns its id here (0 when it was skipped).
func (im *Importer) createItem(ctx context.Context, source string, pt *content.PostType, it *wxr.Item, key string) (int64, error) {
	terms, format, err := im.itemTerms(ctx, source, pt.Name, it)
	if err != nil {
		return 0, err
	}
	author, err := im.user(ctx, source, it.Creator, store.User{Login: it.Creator}, false)
	if err != nil {
		return 0, err
	}
	p := &store.Post{
		Type: pt.Name, Status: it.Status, Author: author, MenuOrder: it.MenuOrder,
		Title: it.Title, Content: it.Content, Excerpt: it.Excerpt, Slug: it.PostName,
		Password: it.Password, GUID: it.GUID,
		Date: parseWall(it.PostDate), DateGMT: parseWall(it.PostDateGMT),
		Modified: parseWall(it.PostModified), ModifiedGMT: parseWall(it.PostModifiedGMT),
		CommentStatus: it.CommentStatus, PingStatus: it.PingStatus, Sticky: it.Sticky, Format: format,
	}
	if p.Date.IsZero() && p.DateGMT.IsZero() && it.PubDate != "" {
		if t, err := time.Parse(time.RFC1123Z, it.PubDate); err == nil && !draftLike(it.Status) {
			p.DateGMT = t.UTC()
		}
	}
	// Parents and featured images are set here when already imported, and
	// in the last pass otherwise.
	posts := im.maps[source][mapPost]
	if it.PostParent != 0 {
		p.Parent = posts[strconv.FormatInt(it.PostParent, 10)]
	}
	meta := map[string][]string{}
	alt := ""
	nMeta := 0
	for _, m := range it.Meta {
		switch {
		case m.Key == "_thumbnail_id":
			old, _ := strconv.ParseInt(strings.TrimSpace(m.Value), 10, 64)
			p.FeaturedMedia = posts[strconv.FormatInt(old, 10)]
		case m.Key == "_wp_attachment_image_alt":
			alt = m.Value
		case m.Key == "_wp_trash_meta_status":
			p.PreTrashStatus = strings.TrimSpace(m.Value)
		case skippedMeta[m.Key]:
		default:
			meta[m.Key] = append(meta[m.Key], m.Value)
			nMeta++
		}
	}

	var file *content.ImportedFile
	if pt.Name == content.AttachmentType {
		var remote bool
		file, remote, err = im.attachmentFile(ctx, it, p)
		if err != nil {
			return 0, err
		}
		if remote {
			im.sum.note("attachments kept as remote URLs (source_url is the original file)", 1)
		} else {
			im.sum.note("attachment files copied from --media-dir", 1)
			for k := range fileMeta {
				nMeta -= len(meta[k])
				delete(meta, k)
			}
		}
	}

	var id int64
	err = im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			id = im.newID()
			return rec.record(ctx, mapPost, key, id)
		}
		if pt.Name == content.AttachmentType {
			if err := im.site.ImportAttachment(ctx, tx, p, alt, file, meta); err != nil {
				return err
			}
		} else if err := im.site.ImportPost(ctx, tx, p, terms, meta); err != nil {
			return err
		}
		id = p.ID
		if err := rec.record(ctx, mapPost, key, p.ID); err != nil {
			return err
		}
		return im.insertComments(ctx, source, tx, rec, p.ID, it)
	})
	if err != nil {
		file.Release()
		return 0, fmt.Errorf("%s %q: %w", pt.Name, it.Title, err)
	}
	k := im.sum.Kind("post meta")
	k.Created += nMeta
	im.countComments(it, len(it.Comments))
	return id, nil
}

func draftLike(status string) bool {
	return status == "draft" || status == "pending" || status == "auto-draft"
}

// countComments counts n new comments of it and the comment meta not kept.
func (im *Importer) countComments(it *wxr.Item, n int) {
	c := im.sum.Kind("comments")
	c.Created += n
	meta := 0
	for _, cm := range it.Comments {
		meta += len(cm.Meta)
	}
	if meta > 0 && n > 0 {
		im.sum.note("comment meta values not kept (Folio has no comment meta)", meta)
	}
}

// comments stores the comments of an item whose post exists here already
// and that are not imported yet, in one transaction.
func (im *Importer) comments(ctx context.Context, source string, postID int64, it *wxr.Item) error {
	cm, err := im.importMap(ctx, source, mapComment)
	if err != nil {
		return err
	}
	missing := 0
	for i, c := range it.Comments {
		id, ok := cm[commentKey(it, i)]
		if !ok {
			missing++
			continue
		}
		im.sum.existing("comments")
		if c.Parent != 0 && !im.opts.DryRun {
			// An earlier run may have stopped before its last pass.
			im.pendingReplies = append(im.pendingReplies, commentParent{source: source, id: id, parent: c.Parent})
		}
	}
	if missing == 0 {
		return nil
	}
	err = im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			return nil
		}
		return im.insertComments(ctx, source, tx, rec, postID, it)
	})
	if err != nil {
		return fmt.Errorf("comments of %q: %w", it.Title, err)
	}
	im.countComments(it, missing)
	return nil
}

// insertComments stores, inside tx, the comments of it not imported yet,
// on the post postID. Replies to comments not stored yet get their parent
// here when it is in the same item, or in the last pass.
func (im *Importer) insertComments(ctx context.Context, source string, tx store.Store, rec *recorder, postID int64, it *wxr.Item) error {
	if len(it.Comments) == 0 {
		return nil
	}
	cm, err := im.importMap(ctx, source, mapComment)
	if err != nil {
		return err
	}
	local := map[int64]int64{} // ids there → here, of this item
	var before map[int64]string
	for _, m := range it.Meta {
		if m.Key == "_wp_trash_meta_comments_status" {
			before = phpIntStringMap(m.Value)
		}
	}
	type later struct{ id, parent int64 }
	var fix []later
	for i, c := range it.Comments {
		key := commentKey(it, i)
		if id, ok := cm[key]; ok {
			if c.ID > 0 {
				local[c.ID] = id
			}
			continue
		}
		sc := &store.Comment{
			PostID: postID, AuthorName: c.Author, AuthorEmail: c.AuthorEmail, AuthorURL: c.AuthorURL,
			AuthorIP: c.AuthorIP, Date: parseWall(c.Date), DateGMT: parseWall(c.DateGMT), Content: c.Content,
			Approved: c.Approved, Type: c.Type, AuthorID: im.authorIDs[source][c.UserID],
		}
		if c.Approved == store.CommentPostTrashed {
			// The status it had before its post went to the trash, which
			// the post's _wp_trash_meta_comments_status keeps.
			sc.Approved = before[c.ID]
		}
		for _, m := range c.Meta {
			if m.Key == "_wp_trash_meta_status" {
				sc.PreTrashStatus = strings.TrimSpace(m.Value)
			}
		}
		if c.Parent != 0 {
			if id, ok := local[c.Parent]; ok {
				sc.Parent = id
			} else if id, ok := cm[strconv.FormatInt(c.Parent, 10)]; ok {
				sc.Parent = id
			}
		}
		if err := im.site.ImportComment(ctx, tx, sc); err != nil {
			return fmt.Errorf("comment %s: %w", key, err)
		}
		if c.ID > 0 {
			local[c.ID] = sc.ID
		}
		if c.Parent != 0 && sc.Parent == 0 {
			fix = append(fix, later{sc.ID, c.Parent})
		}
		if err := rec.record(ctx, mapComment, key, sc.ID); err != nil {
			return err
		}
	}
	for _, f := range fix {
		if parent, ok := local[f.parent]; ok {
			if _, err := im.site.ImportCommentParent(ctx, tx, f.id, parent); err != nil {
				return err
			}
			continue
		}
		im.pendingReplies = append(im.pendingReplies, commentParent{source: source, id: f.id, parent: f.parent})
	}
	return nil
}

// phpIntStringRE matches one `i:KEY;s:LEN:"VALUE";` pair of a serialized
// PHP array.
var phpIntStringRE = regexp.MustCompile(`i:(-?\d+);s:\d+:"([^"]*)";`)

// phpIntStringMap reads a serialized PHP array of integer keys and string
// values (as _wp_trash_meta_comments_status holds).
func phpIntStringMap(s string) map[int64]string {
	out := map[int64]string{}
	for _, m := range phpIntStringRE.FindAllStringSubmatch(s, -1) {
		k, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil {
			out[k] = m[2]
		}
	}
	return out
}

// uploadsPath returns the path of an attachment's file under the exported
// site's uploads folder: its _wp_attached_file meta, else the part of its
// URL after /uploads/ (or after the host for WordPress.com's file hosts).
func uploadsPath(it *wxr.Item) string {
	for _, m := range it.Meta {
		if m.Key == "_wp_attached_file" && strings.TrimSpace(m.Value) != "" {
			return path.Clean("/" + strings.TrimSpace(m.Value))[1:]
		}
	}
	u, err := url.Parse(it.AttachmentURL)
	if err != nil || u.Path == "" {
		return ""
	}
	p := u.Path
	if i := strings.LastIndex(p, "/uploads/"); i >= 0 {
		p = p[i+len("/uploads/"):]
	}
	p = path.Clean("/" + p)[1:]
	if p == "" || p == "." {
		return ""
	}
	return p
}

// attachmentFile copies the item's file from the media directory when it
// is there, or sets up p to keep its original URL (remote true).
func (im *Importer) attachmentFile(ctx context.Context, it *wxr.Item, p *store.Post) (*content.ImportedFile, bool, error) {
	remoteURL := strings.TrimSpace(it.AttachmentURL)
	if remoteURL == "" {
		remoteURL = it.GUID
	}
	rel := uploadsPath(it)
	name := path.Base(rel)
	if rel == "" {
		name = path.Base(remoteURL)
	}
	if mt, ok := im.site.MediaTypes().MimeOf(name); ok {
		p.MimeType = mt
	} else if mt := mime.TypeByExtension(path.Ext(name)); mt != "" {
		p.MimeType, _, _ = strings.Cut(mt, ";")
	}
	p.GUID = remoteURL
	if im.opts.MediaDir == "" || rel == "" {
		return nil, true, nil
	}
	full := filepath.Join(im.opts.MediaDir, filepath.FromSlash(rel))
	data, err := os.ReadFile(full)
	if errors.Is(err, os.ErrNotExist) {
		im.sum.note("attachment files not found in --media-dir", 1)
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", full, err)
	}
	folder := path.Dir(rel)
	if folder == "." || folder == "" {
		d := parseWall(it.PostDate)
		if d.IsZero() {
			d = time.Now()
		}
		folder = fmt.Sprintf("%04d/%02d", d.Year(), int(d.Month()))
	}
	if im.opts.DryRun {
		return nil, false, nil
	}
	f, err := im.site.ImportMediaFile(ctx, data, name, folder)
	if errors.Is(err, content.ErrImportFileRejected) {
		im.sum.note("attachment files refused by the media rules (kept as remote URLs)", 1)
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return f, false, nil
}
