package content

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// The Import* methods write records read from another site's export
// (`folio import wxr`). They run inside a transaction the importer owns, so
// that it can record, in the same transaction, what each record became.
// They keep the invariants the interface keeps (sanitized text, unique
// slugs, term and comment counts, the sticky/password and private/password
// rules, the default category, valid formats, parents and featured media)
// but take what the export says where the interface would decide by
// itself or refuse: the author, the dates, the status, and no comment
// flood or duplicate checks. They fire no hook and report no Change, so a
// bulk import never floods extensions or webhooks.

// ImportPost stores p, a post of a registered type read from an export,
// inside tx, with its terms (taxonomy → term ids; taxonomies that do not
// apply to the type are ignored) and its meta (key → values). It sets p.ID.
//
// p.Date and p.DateGMT are the exported wall clocks; when one is zero it is
// derived from the other in the site's time zone, and when both are, the
// post is dated now (a draft keeps a zero GMT date). A published post dated
// in the future becomes scheduled and a scheduled one in the past
// published. The slug is kept when it is free and made unique otherwise.
// p.Parent and p.FeaturedMedia must already be ids of this site (0 when not
// known yet; see ImportPostLinks). A trashed post keeps p.PreTrashStatus
// (what untrashing restores) when it is a status a post may have.
func (s *Site) ImportPost(ctx context.Context, tx store.Store, p *store.Post, terms map[string][]int64, meta map[string][]string) error {
	pt, ok := s.types.Get(p.Type)
	if !ok {
		return fmt.Errorf("import post: unknown post type %q", p.Type)
	}
	if p.ID != 0 {
		return errors.New("import post: the post already has an id")
	}
	set, err := s.Settings(ctx)
	if err != nil {
		return fmt.Errorf("import post: %w", err)
	}
	s.normalizeImportedPost(pt, p, set.Location())
	if p.FeaturedMedia != 0 {
		ok, err := s.isAttachment(ctx, tx, p.FeaturedMedia)
		if err != nil {
			return err
		}
		if !ok {
			p.FeaturedMedia = 0
		}
	}
	if p.Parent != 0 {
		if _, err := tx.GetPost(ctx, p.Parent); errors.Is(err, store.ErrNotFound) {
			p.Parent = 0
		} else if err != nil {
			return err
		}
	}
	if err := s.finishSlug(ctx, tx, pt, p); err != nil {
		return err
	}
	if err := tx.InsertPost(ctx, p); err != nil {
		return err
	}
	if p.Slug == "" && !draftLike(p.Status) {
		p.Slug = strconv.FormatInt(p.ID, 10)
		if err := tx.UpdatePost(ctx, p); err != nil {
			return err
		}
	}
	if pt.Name != AttachmentType {
		valid := map[string][]int64{}
		for _, tax := range s.taxonomies.ForType(pt.Name) {
			if ids, ok := terms[tax.Name]; ok {
				valid[tax.Name] = ids
			}
		}
		if err := s.setPostTerms(ctx, tx, pt, p, valid, set.DefaultCategory); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := tx.SetPostMeta(ctx, p.ID, k, meta[k]); err != nil {
			return err
		}
	}
	return nil
}

// normalizeImportedPost applies the interface's field rules to an
// imported post; loc is the site's time zone.
func (s *Site) normalizeImportedPost(pt *PostType, p *store.Post, loc *time.Location) {
	p.Title = render.KSESPost(p.Title)
	p.Content = render.KSESPost(p.Content)
	p.Excerpt = render.KSESPost(p.Excerpt)
	p.Slug = render.Slug(p.Slug)
	if _, ok := s.statuses.Get(p.Status); !ok || p.Status == "auto-draft" {
		p.Status = "draft"
	}
	if pt.Name == AttachmentType {
		if p.Status != "private" {
			p.Status = "inherit"
		}
	} else if p.Status == "inherit" {
		p.Status = "publish"
	}
	now := truncSecond(s.Now())
	switch {
	case p.Date.IsZero() && p.DateGMT.IsZero():
		p.Date = WallClock(now, loc)
		if !draftLike(p.Status) {
			p.DateGMT = now
		}
	case p.Date.IsZero():
		p.Date = WallClock(p.DateGMT, loc)
	case p.DateGMT.IsZero() && !draftLike(p.Status):
		p.DateGMT = WallClockToUTC(p.Date, loc)
	}
	// As a new post (CreatePost): modified defaults to the date, and its
	// GMT form stays null with date_gmt for an undated draft.
	if p.Modified.IsZero() {
		p.Modified, p.ModifiedGMT = p.Date, p.DateGMT
	} else if p.ModifiedGMT.IsZero() && !p.DateGMT.IsZero() {
		p.ModifiedGMT = WallClockToUTC(p.Modified, loc)
	}
	if p.Status == "publish" && !p.DateGMT.IsZero() && p.DateGMT.After(now) {
		p.Status = "future"
	} else if p.Status == "future" && !p.DateGMT.After(now) {
		p.Status = "publish"
	}
	if p.Status == "private" {
		p.Password = ""
	}
	if pt.Name != "post" || p.Password != "" {
		p.Sticky = false
	}
	if !pt.Supports(SupportPostFormats) || p.Format == "standard" || !slices.Contains(PostFormats, p.Format) {
		p.Format = ""
	}
	p.Template = ""
	if !pt.Hierarchical && pt.Name != AttachmentType {
		p.Parent = 0
	}
	if !pt.Supports(SupportPageAttributes) {
		p.MenuOrder = 0
	}
	if !pt.Supports(SupportThumbnail) {
		p.FeaturedMedia = 0
	}
	if p.CommentStatus != "open" && p.CommentStatus != "closed" {
		p.CommentStatus = "closed"
		if pt.Supports(SupportComments) && pt.Name != "page" {
			p.CommentStatus = "open"
		}
	}
	if p.PingStatus != "open" && p.PingStatus != "closed" {
		p.PingStatus = p.CommentStatus
	}
	if !pt.Supports(SupportComments) {
		p.CommentStatus, p.PingStatus = "closed", "closed"
	}
	p.CommentCount = 0
	if st, ok := s.statuses.Get(p.PreTrashStatus); p.Status != "trash" || !ok || st.Internal {
		p.PreTrashStatus = ""
	}
}

func (s *Site) isAttachment(ctx context.Context, tx store.Store, id int64) (bool, error) {
	m, err := tx.GetPost(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.Type == AttachmentType, nil
}

// ImportPostLinks sets, inside tx, the parent and the featured media of
// the imported post id once the records they name exist (an export may
// name them before they appear). A parent that is missing, the post
// itself, or one of its descendants, or on a type without parents, and a
// featured media that is not an attachment, are left as they are. changed
// reports whether the post was written.
func (s *Site) ImportPostLinks(ctx context.Context, tx store.Store, id, parent, featured int64) (changed bool, err error) {
	p, err := tx.GetPost(ctx, id)
	if err != nil {
		return false, err
	}
	pt, ok := s.types.Get(p.Type)
	if !ok {
		return false, nil
	}
	np := *p
	if parent != 0 && parent != p.Parent && (pt.Hierarchical || pt.Name == AttachmentType) {
		okParent, err := s.validImportParent(ctx, tx, p.ID, parent)
		if err != nil {
			return false, err
		}
		if okParent {
			np.Parent = parent
		}
	}
	if featured != 0 && featured != p.FeaturedMedia && pt.Supports(SupportThumbnail) {
		ok, err := s.isAttachment(ctx, tx, featured)
		if err != nil {
			return false, err
		}
		if ok {
			np.FeaturedMedia = featured
		}
	}
	if np == *p {
		return false, nil
	}
	if np.Parent != p.Parent && np.Status != "draft" && np.Status != "pending" && pt.Hierarchical {
		// The slug is unique among siblings: check it under the new parent.
		if err := s.finishSlug(ctx, tx, pt, &np); err != nil {
			return false, err
		}
	}
	return true, tx.UpdatePost(ctx, &np)
}

// validImportParent reports whether parent exists and is not id or one of
// id's descendants.
func (s *Site) validImportParent(ctx context.Context, tx store.Store, id, parent int64) (bool, error) {
	seen := map[int64]bool{}
	for cur := parent; cur != 0 && !seen[cur]; {
		if cur == id {
			return false, nil
		}
		seen[cur] = true
		p, err := tx.GetPost(ctx, cur)
		if errors.Is(err, store.ErrNotFound) {
			return cur != parent, nil
		}
		if err != nil {
			return false, err
		}
		cur = p.Parent
	}
	return true, nil
}

// ImportedFile is an export's attachment file written to the site's blob
// storage, under names reserved in the store, with its generated sizes.
type ImportedFile struct {
	// Media is the file record to store with the attachment (PostID 0).
	Media    *store.Media
	MimeType string
	paths    []string
	release  func()
}

// Release removes the files and their reservations again; call it when
// the attachment that was to own them could not be stored.
func (f *ImportedFile) Release() {
	if f != nil && f.release != nil {
		f.release()
	}
}

// ErrImportFileRejected is wrapped by ImportMediaFile's errors about the
// file itself (a type the site does not allow, a damaged or too large
// image), as opposed to storage failures.
var ErrImportFileRejected = errors.New("file rejected")

// ImportMediaFile writes the bytes of an exported attachment file to the
// site's blob storage as an upload would be written (type allowlist, image
// sizes, image metadata) in folder ("2011/07", the folder it had on the
// exported site), under name or the first free variant of it. The caller
// stores the attachment with ImportAttachment and releases the file when
// that fails.
func (s *Site) ImportMediaFile(ctx context.Context, data []byte, name, folder string) (*ImportedFile, error) {
	// An import is an administrator's act: the file types that need
	// unfiltered_html are allowed (when the allowlist has them).
	name, mimeType, err := s.MediaTypes().Check(media.SanitizeFileName(name), data, true)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrImportFileRejected, name, err)
	}
	var info *media.ImageInfo
	if media.IsImage(mimeType) {
		s.initMedia()
		info, err = s.media.proc.Process(ctx, data, mimeType)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrImportFileRejected, name, err)
		}
		SanitizeImageMeta(&info.Meta)
	}
	blobs := s.Blobs()
	if blobs == nil {
		return nil, errors.New("the upload storage is not configured")
	}
	file, paths, err := s.reserveNames(ctx, blobs, folder, name, info)
	if err != nil {
		return nil, fmt.Errorf("reserve %s/%s: %w", folder, name, err)
	}
	release := func() {
		cleanup := context.WithoutCancel(ctx)
		for _, p := range paths {
			_ = blobs.Delete(cleanup, p)
		}
		_ = s.st.ReleaseMediaPaths(cleanup, paths)
	}
	if err := blobs.Put(ctx, file, bytes.NewReader(data), int64(len(data)), mimeType); err != nil {
		release()
		return nil, fmt.Errorf("write %s: %w", file, err)
	}
	m := &store.Media{File: file, Details: "{}"}
	if info != nil {
		ext := media.Ext(file)
		base := strings.TrimSuffix(file[strings.LastIndexByte(file, '/')+1:], "."+ext)
		d := MediaDetails{Width: info.Width, Height: info.Height, File: file}
		meta := info.Meta
		d.ImageMeta = &meta
		for _, r := range info.Sizes {
			sized := media.SizedName(base+".x", r.Ext, r.Width, r.Height)
			d.Sizes = append(d.Sizes, MediaSize{Name: r.Name, File: sized, Width: r.Width, Height: r.Height, MimeType: r.Mime})
			if err := blobs.Put(ctx, folder+"/"+sized, bytes.NewReader(r.Data), int64(len(r.Data)), r.Mime); err != nil {
				release()
				return nil, fmt.Errorf("write %s/%s: %w", folder, sized, err)
			}
		}
		js, err := json.Marshal(d)
		if err != nil {
			release()
			return nil, err
		}
		m.Details = string(js)
	}
	return &ImportedFile{Media: m, MimeType: mimeType, paths: paths, release: release}, nil
}

// ImportAttachment stores the attachment p read from an export inside tx
// (see ImportPost), with alt, its alternative text, and file, its file
// written by ImportMediaFile, or nil when the file stays where the export
// says (p.GUID is then the attachment's source URL).
func (s *Site) ImportAttachment(ctx context.Context, tx store.Store, p *store.Post, alt string, file *ImportedFile, meta map[string][]string) error {
	p.Type = AttachmentType
	m := &store.Media{Details: "{}"}
	if file != nil {
		m = file.Media
		p.MimeType = file.MimeType
	}
	if err := s.ImportPost(ctx, tx, p, nil, meta); err != nil {
		return err
	}
	m.PostID = p.ID
	m.AltText = render.PlainText(alt)
	if err := tx.PutMedia(ctx, m); err != nil {
		return err
	}
	if file != nil {
		return tx.AttachMediaPaths(ctx, p.ID, file.paths)
	}
	return nil
}

// ImportComment stores c, a comment read from an export, inside tx. Its
// post, parent and user must be ids of this site (a parent that is not a
// comment of the same post is dropped). The status is taken as exported
// ("1", "0", "spam", "trash"; anything else is held for moderation; a
// comment in the trash or spam keeps c.PreTrashStatus when it is "1" or
// "0"), the type is comment, pingback or trackback (or the export's own type), the
// content is sanitized, and a zero date is derived from the other one or
// set to now. The post's comment count follows.
func (s *Site) ImportComment(ctx context.Context, tx store.Store, c *store.Comment) error {
	if c.ID != 0 {
		return errors.New("import comment: the comment already has an id")
	}
	post, err := tx.GetPost(ctx, c.PostID)
	if err != nil {
		return fmt.Errorf("import comment: post %d: %w", c.PostID, err)
	}
	switch c.Approved {
	case store.CommentApproved, store.CommentHeld, store.CommentSpam, store.CommentTrash:
	case "approve", "approved":
		c.Approved = store.CommentApproved
	default:
		c.Approved = store.CommentHeld
	}
	if (c.Approved != store.CommentTrash && c.Approved != store.CommentSpam) ||
		(c.PreTrashStatus != store.CommentApproved && c.PreTrashStatus != store.CommentHeld) {
		c.PreTrashStatus = ""
	}
	c.Type = normalizeCommentType(strings.TrimSpace(c.Type))
	c.Content = render.KSESPost(c.Content)
	c.AuthorName = schema.SanitizeTextField(c.AuthorName)
	c.AuthorEmail = strings.TrimSpace(c.AuthorEmail)
	c.AuthorURL = schema.EscURLRaw(c.AuthorURL)
	loc, err := s.Location(ctx)
	if err != nil {
		return fmt.Errorf("import comment: %w", err)
	}
	now := truncSecond(s.Now())
	switch {
	case c.Date.IsZero() && c.DateGMT.IsZero():
		c.DateGMT, c.Date = now, WallClock(now, loc)
	case c.Date.IsZero():
		c.Date = WallClock(c.DateGMT, loc)
	case c.DateGMT.IsZero():
		c.DateGMT = WallClockToUTC(c.Date, loc)
	}
	if c.AuthorID != 0 {
		if _, err := tx.GetUser(ctx, c.AuthorID); errors.Is(err, store.ErrNotFound) {
			c.AuthorID = 0
		} else if err != nil {
			return err
		}
	}
	if c.Parent != 0 {
		parent, err := tx.GetComment(ctx, c.Parent)
		if errors.Is(err, store.ErrNotFound) || (err == nil && parent.PostID != c.PostID) {
			c.Parent = 0
		} else if err != nil {
			return err
		}
	}
	if err := tx.InsertComment(ctx, c); err != nil {
		return err
	}
	if post.Status == "trash" {
		// A comment of a trashed post is post-trashed, remembering its
		// status, as trashing the post would have made it.
		return tx.TrashPostComments(ctx, post.ID)
	}
	return nil
}

// ImportCommentParent makes parent the parent of the imported comment id
// inside tx when parent is a comment of the same post (an export may list a
// reply before the comment it answers). changed reports whether the
// comment was written.
func (s *Site) ImportCommentParent(ctx context.Context, tx store.Store, id, parent int64) (changed bool, err error) {
	c, err := tx.GetComment(ctx, id)
	if err != nil {
		return false, err
	}
	if parent == 0 || parent == c.ID || c.Parent == parent {
		return false, nil
	}
	p, err := tx.GetComment(ctx, parent)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if p.PostID != c.PostID {
		return false, nil
	}
	c.Parent = parent
	return true, tx.UpdateComment(ctx, c)
}

// ImportTerm finds or stores a term read from an export inside tx: a term
// of the same taxonomy with the same slug (or, without a slug, the slug
// made from the name) is the term and is returned with created false;
// otherwise the term is stored with its name and description sanitized and
// parent (an id of this site, 0 when not known yet; see ImportTermParent)
// kept when it is a term of the same hierarchical taxonomy.
func (s *Site) ImportTerm(ctx context.Context, tx store.Store, tax *Taxonomy, name, slug, description string, parent int64) (*store.Term, bool, error) {
	t := &store.Term{Taxonomy: tax.Name, Name: schema.SanitizeTextField(name), Description: render.KSESPost(description)}
	t.Slug = render.Slug(slug)
	if t.Slug == "" {
		t.Slug = render.Slug(t.Name)
	}
	if strings.TrimSpace(t.Name) == "" {
		t.Name = t.Slug
	}
	if t.Slug == "" {
		return nil, false, errEmptyTermName()
	}
	if err := lockTaxonomy(ctx, tx, tax.Name); err != nil {
		return nil, false, err
	}
	got, err := tx.ListTerms(ctx, store.TermQuery{Taxonomy: tax.Name, Slugs: []string{t.Slug}, Limit: 1})
	if err != nil {
		return nil, false, err
	}
	if len(got) > 0 {
		return got[0], false, nil
	}
	if parent != 0 && tax.Hierarchical {
		p, err := tx.GetTerm(ctx, parent)
		if err == nil && p.Taxonomy == tax.Name {
			t.Parent = parent
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, false, err
		}
	}
	if err := tx.InsertTerm(ctx, t); err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// ImportTermParent makes parent the parent of the term t inside tx when
// the taxonomy is hierarchical, parent is a term of it and that makes no
// loop. changed reports whether the term was written.
func (s *Site) ImportTermParent(ctx context.Context, tx store.Store, t *store.Term, parent int64) (changed bool, err error) {
	tax, ok := s.taxonomies.Get(t.Taxonomy)
	if !ok || !tax.Hierarchical || parent == 0 || parent == t.Parent {
		return false, nil
	}
	if err := lockTaxonomy(ctx, tx, tax.Name); err != nil {
		return false, err
	}
	p, err := tx.GetTerm(ctx, parent)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if p.Taxonomy != t.Taxonomy {
		return false, nil
	}
	nt := *t
	nt.Parent = parent
	if err := s.checkNoLoop(ctx, tx, &nt); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return false, nil
		}
		return false, err
	}
	if err := tx.UpdateTerm(ctx, &nt); err != nil {
		return false, err
	}
	*t = nt
	return true, nil
}

// ImportUser finds or stores an author read from an export inside tx. A
// user with the same login is the author and is returned with created
// false. Otherwise the user is stored with role, no usable password (an
// administrator sets one, or the user resets it), a unique nicename, and
// without the email when another user has it.
func (s *Site) ImportUser(ctx context.Context, tx store.Store, in store.User, role string) (*store.User, bool, error) {
	login := SanitizeUserLogin(in.Login)
	if login == "" {
		return nil, false, errBad("empty_user_login", "Cannot create a user with an empty login name.")
	}
	if utf8.RuneCountInString(login) > 60 {
		return nil, false, errBad("user_login_too_long", "Username may not be longer than 60 characters.")
	}
	if err := lockAccount(ctx, tx, login, in.Email); err != nil {
		return nil, false, err
	}
	if u, err := tx.GetUserByLogin(ctx, login); err == nil {
		return u, false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	if _, ok := s.roles.Get(role); !ok {
		return nil, false, fmt.Errorf("import user: unknown role %q", role)
	}
	u := &store.User{
		Login:       login,
		Email:       strings.TrimSpace(in.Email),
		DisplayName: schema.SanitizeTextField(in.DisplayName),
		FirstName:   schema.SanitizeTextField(in.FirstName),
		LastName:    schema.SanitizeTextField(in.LastName),
		Description: render.KSESPost(in.Description),
		Registered:  truncSecond(s.Now()),
		Roles:       []string{role},
		Caps:        map[string]bool{},
	}
	if u.DisplayName == "" {
		u.DisplayName = login
	}
	u.Nickname = login
	if u.Email != "" {
		if _, err := tx.GetUserByEmail(ctx, u.Email); err == nil {
			u.Email = ""
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, false, err
		}
	}
	if err := s.uniqueNicename(ctx, tx, u, true); err != nil {
		return nil, false, err
	}
	if err := tx.InsertUser(ctx, u); err != nil {
		return nil, false, err
	}
	return u, true, nil
}
