package content

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/store"
)

// Error is a domain rule failure with the interface's error code. A Status
// of 0 means "the authorization-required status" (401 anonymous, 403
// signed in); the controller resolves it.
type Error struct {
	Code    string
	Message string
	Status  int
	// Data holds extra keys of the error's data beside "status" (e.g.
	// "params" of rest_invalid_param, "term_id" of term_exists).
	Data map[string]any
	// RetryAfter, when positive, is how long the caller should wait
	// before trying again (comment_flood); the API sends it as
	// Retry-After.
	RetryAfter time.Duration
	// Cause is the internal failure behind a 5xx answer: the error
	// boundary logs it (and answers a store outage with 503); it is never
	// sent.
	Cause error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

func errBad(code, msg string) *Error  { return &Error{Code: code, Message: msg, Status: 400} }
func errAuth(code, msg string) *Error { return &Error{Code: code, Message: msg} }

// PostInput carries the writable post fields of a request; nil means "not
// sent". Controllers fill it from the request, already type-checked.
type PostInput struct {
	Title         *string
	Content       *string
	Excerpt       *string
	Slug          *string
	Status        *string
	Date          *time.Time // UTC instant from `date`
	DateGMT       *time.Time // UTC instant from `date_gmt`
	Author        *int64
	Password      *string
	Parent        *int64
	MenuOrder     *int64
	CommentStatus *string
	PingStatus    *string
	Sticky        *bool
	Format        *string
	Template      *string
	FeaturedMedia *int64
	// Terms holds the term arrays that were sent, keyed by taxonomy name:
	// the post's terms in each of those taxonomies are replaced.
	Terms map[string][]int64
}

// draftLike are the statuses whose slug is not made unique and whose GMT
// date stays zero until publication.
func draftLike(status string) bool {
	return status == "draft" || status == "pending" || status == "auto-draft"
}

// checkStatus applies the status-on-write rules (reference §5.3): private,
// publish and future need publish_posts; an unknown status becomes draft.
func (s *Site) checkStatus(u *auth.User, pt *PostType, status string) (string, error) {
	switch status {
	case "draft", "pending":
	case "private":
		if !u.HasCap(pt.Caps.PublishPosts) {
			return "", errAuth("rest_cannot_publish", "Sorry, you are not allowed to create private posts in this post type")
		}
	case "publish", "future":
		if !u.HasCap(pt.Caps.PublishPosts) {
			return "", errAuth("rest_cannot_publish", "Sorry, you are not allowed to publish posts in this post type")
		}
	default:
		if _, ok := s.statuses.Get(status); !ok {
			status = "draft"
		}
	}
	return status, nil
}

// apply validates in and copies it onto p (a copy of the stored post, or a
// new post). It follows the order of the original's prepare step; local
// dates are written in the time zone of set.
func (s *Site) apply(ctx context.Context, u *auth.User, pt *PostType, p *store.Post, in PostInput, creating bool, set *Settings) error {
	loc := set.Location()
	if in.Title != nil && (pt.Supports(SupportTitle) || pt.Builtin) {
		p.Title = render.KSESPost(*in.Title)
	}
	if in.Content != nil && pt.Supports(SupportEditor) {
		p.Content = render.KSESPost(*in.Content)
	}
	if in.Excerpt != nil && pt.Supports(SupportExcerpt) {
		p.Excerpt = render.KSESPost(*in.Excerpt)
	}
	if in.Status != nil {
		st, err := s.checkStatus(u, pt, *in.Status)
		if err != nil {
			return err
		}
		p.Status = st
	}
	now := truncSecond(s.Now())
	dateGiven := false
	switch {
	case in.Date != nil:
		p.DateGMT = truncSecond(in.Date.UTC())
		p.Date = WallClock(p.DateGMT, loc)
		dateGiven = true
	case in.DateGMT != nil:
		p.DateGMT = truncSecond(in.DateGMT.UTC())
		p.Date = WallClock(p.DateGMT, loc)
		dateGiven = true
	}
	if in.Slug != nil {
		p.Slug = render.Slug(*in.Slug)
	}
	if in.Author != nil && *in.Author != 0 && pt.Supports(SupportAuthor) {
		if *in.Author != u.ID() {
			if _, err := s.st.GetUser(ctx, *in.Author); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return errBad("rest_invalid_author", "Invalid author id.")
				}
				return err
			}
		}
		p.Author = *in.Author
	}
	if in.Password != nil && *in.Password != "" {
		if pt.Name == "post" && in.Sticky != nil && *in.Sticky {
			return errBad("rest_invalid_field", "A post can not be sticky and have a password.")
		}
		if !creating && p.Sticky {
			return errBad("rest_invalid_field", "A sticky post can not be password protected.")
		}
	}
	if in.Sticky != nil && *in.Sticky && !creating && p.Password != "" && (in.Password == nil || *in.Password != "") {
		return errBad("rest_invalid_field", "A password protected post can not be set to sticky.")
	}
	if in.Password != nil {
		p.Password = *in.Password
	}
	if pt.Hierarchical && in.Parent != nil {
		if *in.Parent != 0 {
			parent, ok, err := s.GetPost(ctx, *in.Parent)
			if err != nil {
				return err
			}
			if !ok {
				return errBad("rest_post_invalid_id", "Invalid post parent id.")
			}
			if !creating && parent.ID == p.ID {
				return errBad("rest_post_invalid_id", "A post cannot be its own parent.")
			}
		}
		p.Parent = *in.Parent
	}
	if in.MenuOrder != nil && pt.Supports(SupportPageAttributes) {
		p.MenuOrder = *in.MenuOrder
	}
	if pt.Supports(SupportComments) {
		if in.CommentStatus != nil && *in.CommentStatus != "" {
			p.CommentStatus = *in.CommentStatus
		}
		if in.PingStatus != nil && *in.PingStatus != "" {
			p.PingStatus = *in.PingStatus
		}
	}
	if pt.Name == "post" && in.Sticky != nil {
		p.Sticky = *in.Sticky
	}
	if pt.Supports(SupportPostFormats) && in.Format != nil {
		if *in.Format == "standard" {
			p.Format = ""
		} else {
			p.Format = *in.Format
		}
	}
	if pt.Name == "page" && in.Template != nil {
		// No theme provides page templates: every value is stored as the
		// default template (reference §10.1).
		p.Template = ""
	}
	if pt.Supports(SupportThumbnail) && in.FeaturedMedia != nil {
		if id := *in.FeaturedMedia; id != 0 {
			m, ok, err := s.GetPost(ctx, id)
			if err != nil {
				return err
			}
			if !ok || m.Type != "attachment" {
				return errBad("rest_invalid_featured_media", "Invalid featured media id.")
			}
		}
		p.FeaturedMedia = *in.FeaturedMedia
	}

	// Dates and the publish/future flip.
	if !dateGiven {
		if creating {
			p.Date = WallClock(now, loc)
			if !draftLike(p.Status) {
				p.DateGMT = now
			}
		} else if p.DateGMT.IsZero() && !draftLike(p.Status) {
			// Publishing a draft that never had a date stamps it now.
			p.DateGMT = now
			p.Date = WallClock(now, loc)
		}
	}
	if p.Status == "publish" && !p.DateGMT.IsZero() && p.DateGMT.After(now) {
		p.Status = "future"
	} else if p.Status == "future" && !p.DateGMT.After(now) {
		p.Status = "publish"
	}
	if p.Status == "private" {
		p.Password = ""
	}
	if p.Status == "pending" && !u.HasCap(pt.Caps.PublishPosts) {
		// A contributor's pending post loses its slug.
		p.Slug = ""
	}
	if creating {
		// A new post was last modified when it is dated, as the platform
		// inserts it: modified_gmt stays null with date_gmt for a draft.
		p.Modified, p.ModifiedGMT = p.Date, p.DateGMT
	} else {
		p.ModifiedGMT = now
		p.Modified = WallClock(now, loc)
	}

	if pt.Supports(SupportEditor) && pt.Supports(SupportTitle) && pt.Supports(SupportExcerpt) &&
		p.Title == "" && p.Content == "" && p.Excerpt == "" {
		return errBad("empty_content", "Content, title, and excerpt are empty.")
	}
	return nil
}

// CreatePost validates in and stores a new post of type pt by u. siteRoot is
// the site URL used for the post's GUID. terms are the post's terms as
// written, for each taxonomy of the type the ids in the order PostTerms
// lists them, where the store tells which terms it linked (nil otherwise):
// what the response shows without reading them back.
func (s *Site) CreatePost(ctx context.Context, u *auth.User, pt *PostType, in PostInput, siteRoot string) (p *store.Post, terms map[string][]int64, err error) {
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("create post: %w", err)
	}
	p = &store.Post{
		Type:   pt.Name,
		Status: "draft",
		Author: u.ID(),
	}
	p.CommentStatus, p.PingStatus = set.newCommentStatus(pt)
	if err := s.apply(ctx, u, pt, p, in, true, set); err != nil {
		return nil, nil, err
	}
	// The slug made of the title is made before the write transaction,
	// which on some stores runs while every other write waits.
	if p.Slug == "" && !draftLike(p.Status) {
		p.Slug = render.Slug(p.Title)
	}
	s.prepareSearch(p)
	var linked func() map[string][]int64
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		// The id is asked for with the slug's query where the store can.
		if r, ok := tx.(store.PostIDPrefetcher); ok {
			if err := r.PrefetchPostID(ctx); err != nil {
				return err
			}
		}
		if err := s.finishSlug(ctx, tx, pt, p); err != nil {
			return err
		}
		// What is made of the id (the GUID, the slug of a post without
		// one) goes in with the insert where the store hands out the id
		// first, and is written after it elsewhere.
		fill := func() {
			p.GUID = guidFor(siteRoot, pt, p.ID)
			if p.Slug == "" && !draftLike(p.Status) {
				p.Slug = strconv.FormatInt(p.ID, 10)
			}
		}
		filled := false
		if r, ok := tx.(store.PostIDReserver); ok {
			id, err := r.ReservePostID(ctx)
			if err != nil {
				return err
			}
			if id != 0 {
				p.ID = id
				fill()
				filled = true
			}
		}
		if err := tx.InsertPost(ctx, p); err != nil {
			return err
		}
		// A retried transaction sets them again.
		// The post is the one just inserted: published as p says, with no
		// terms yet (no read of it first where the store can skip it).
		if linked, err = s.linkPostTerms(ctx, tx, pt, p, in.Terms, set.DefaultCategory, true); err != nil {
			return err
		}
		if !filled {
			fill()
			if err := tx.UpdatePost(ctx, p); err != nil {
				return err
			}
		}
		return s.changed(ctx, tx, Change{Kind: postKind(pt), Type: pt.Name, Action: "created", ID: p.ID, Record: p})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("create post: %w", err)
	}
	return p, linked(), nil
}

// prepareSearch has the store split p's text into its search words
// before the write transaction, where it can (store.SearchPreparer).
func (s *Site) prepareSearch(p *store.Post) {
	if sp, ok := s.st.(store.SearchPreparer); ok {
		sp.PrepareSearch(p.Title, p.Excerpt, p.Content)
	}
}

// UpdatePost validates in and applies it to the stored post old.
func (s *Site) UpdatePost(ctx context.Context, u *auth.User, old *store.Post, in PostInput) (*store.Post, error) {
	pt, ok := s.types.Get(old.Type)
	if !ok {
		return nil, errBad("rest_post_invalid_id", "Post id is invalid.")
	}
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("update post %d: %w", old.ID, err)
	}
	p := *old
	if err := s.apply(ctx, u, pt, &p, in, false, set); err != nil {
		return nil, err
	}
	if p.Title != old.Title || p.Excerpt != old.Excerpt || p.Content != old.Content {
		s.prepareSearch(&p)
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := s.finishSlug(ctx, tx, pt, &p); err != nil {
			return err
		}
		if p.Slug == "" && !draftLike(p.Status) {
			p.Slug = strconv.FormatInt(p.ID, 10)
			if err := s.finishSlug(ctx, tx, pt, &p); err != nil {
				return err
			}
		}
		if err := s.setPostTerms(ctx, tx, pt, &p, in.Terms, 0); err != nil {
			return err
		}
		if err := tx.UpdatePost(ctx, &p); err != nil {
			return err
		}
		if err := s.syncPostComments(ctx, tx, old, &p); err != nil {
			return err
		}
		if err := s.saveRevision(ctx, tx, u, old, &p); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: postKind(pt), Type: pt.Name, Action: "updated", ID: p.ID, Record: &p, Old: old})
	})
	if err != nil {
		return nil, fmt.Errorf("update post %d: %w", p.ID, err)
	}
	return &p, nil
}

// reservedSlugs get a suffix like taken slugs: feed names and embed.
var reservedSlugs = map[string]bool{"feed": true, "rdf": true, "rss": true, "rss2": true, "atom": true, "embed": true}

// finishSlug derives a missing slug from the title and makes it unique for
// non-draft posts (reference §10.1 "Slug"). It runs inside the write
// transaction so that two concurrent creates cannot take the same slug.
func (s *Site) finishSlug(ctx context.Context, tx store.Store, pt *PostType, p *store.Post) error {
	if draftLike(p.Status) {
		return nil
	}
	if p.Slug == "" {
		p.Slug = render.Slug(p.Title)
	}
	if p.Slug == "" {
		return nil // the caller falls back to the id
	}
	types := []string{pt.Name}
	parent := int64(-1)
	if pt.Name == "attachment" {
		types = nil
	} else if pt.Hierarchical {
		parent = p.Parent
	}
	// The store walks the taken base-N in the slug index up to the first
	// free one: a title used a thousand times costs a query or two, not a
	// thousand probes. A base so long that a suffix cuts it is asked in
	// batches of candidates growing eightfold, one query each.
	base := p.Slug
	// Whoever could pick the same candidate waits until this transaction
	// has committed the one it picks.
	if err := store.LockKeys(ctx, tx, "post-slug:"+slugStem(base, 120)); err != nil {
		return err
	}
	if len(base) <= 180 { // no suffix of up to 19 digits cuts it
		slug, err := tx.FreeSlug(ctx, base, types, parent, p.ID, reservedSlugs[base])
		if err != nil {
			return err
		}
		p.Slug = slug
		return nil
	}
	n := 1
	for batch := 16; ; batch *= 8 {
		cands := make([]string, 0, batch)
		for ; len(cands) < batch; n++ {
			cand := base
			if n > 1 {
				suffix := "-" + strconv.Itoa(n)
				cand = truncateSlug(base, 200-len(suffix)) + suffix
			}
			if !reservedSlugs[cand] {
				cands = append(cands, cand)
			}
		}
		taken, err := tx.SlugsTaken(ctx, cands, types, parent, p.ID)
		if err != nil {
			return err
		}
		for _, cand := range cands {
			if !taken[cand] {
				p.Slug = cand
				return nil
			}
		}
	}
}

// slugStem returns the part of a slug that every candidate made of it
// (the slug, then slug-2, slug-3, …, the slug cut to make room for the
// suffix) shares, and that any other slug whose candidates include one of
// them shares too: its first n bytes, where n is less than any length the
// slug is cut to, without trailing "-N" suffixes. "hello", "hello-2" and
// "hello-2-3" have the stem "hello". Transactions that look for a free
// slug lock its stem (store.LockKeys).
func slugStem(slug string, n int) string {
	if len(slug) > n {
		slug = slug[:n]
	}
	for {
		i := strings.LastIndexByte(slug, '-')
		if i <= 0 || i == len(slug)-1 || strings.Trim(slug[i+1:], "0123456789") != "" {
			return slug
		}
		slug = slug[:i]
	}
}

func truncateSlug(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	// Never cut a percent-encoded octet in half.
	if i := strings.LastIndexByte(s, '%'); i >= 0 && len(s)-i < 3 {
		s = s[:i]
	}
	return strings.TrimRight(s, "-")
}

func guidFor(siteRoot string, pt *PostType, id int64) string {
	switch pt.Name {
	case "post":
		return fmt.Sprintf("%s/?p=%d", siteRoot, id)
	case "page":
		return fmt.Sprintf("%s/?page_id=%d", siteRoot, id)
	default:
		return fmt.Sprintf("%s/?post_type=%s&p=%d", siteRoot, pt.Name, id)
	}
}

// Trashable reports whether DELETE without force may move p (of type pt)
// to the trash. It is the rest_<type>_trashable filter point (reference
// §11): the type's default passes through the PostTrashable hook.
func (s *Site) Trashable(pt *PostType, p *store.Post) bool {
	e := &events.PostTrashableEvent{PostType: pt.Name, Trashable: pt.Trashable, Post: p}
	if s.hooks.Filter(s.hooks.PostTrashable.Name(pt.Name), s.hooks.PostTrashable.Trigger(e)) {
		return e.Trashable
	}
	return pt.Trashable
}

// TrashPost moves p to the trash, remembering its status; its comments
// become post-trashed in the same transaction.
func (s *Site) TrashPost(ctx context.Context, p *store.Post) error {
	loc, err := s.Location(ctx)
	if err != nil {
		return fmt.Errorf("trash post %d: %w", p.ID, err)
	}
	t := *p
	t.PreTrashStatus = p.Status
	t.Status = "trash"
	now := truncSecond(s.Now())
	t.ModifiedGMT = now
	t.Modified = WallClock(now, loc)
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := tx.UpdatePost(ctx, &t); err != nil {
			return err
		}
		if err := s.syncPostComments(ctx, tx, p, &t); err != nil {
			return err
		}
		pt, _ := s.types.Get(p.Type)
		if pt == nil {
			return nil
		}
		return s.changed(ctx, tx, Change{Kind: postKind(pt), Type: pt.Name, Action: "trashed", ID: p.ID, Record: &t, Old: p})
	})
	if err != nil {
		return fmt.Errorf("trash post %d: %w", p.ID, err)
	}
	return nil
}

// DeletePost removes p permanently.
// Its comments and revisions go with it, in the same transaction.
func (s *Site) DeletePost(ctx context.Context, p *store.Post) error {
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := s.deletePostDependents(ctx, tx, p); err != nil {
			return err
		}
		if err := tx.DeletePost(ctx, p.ID); err != nil {
			return err
		}
		pt, _ := s.types.Get(p.Type)
		if pt == nil {
			return nil
		}
		return s.changed(ctx, tx, Change{Kind: postKind(pt), Type: pt.Name, Action: "deleted", ID: p.ID, Record: p})
	})
	if err != nil {
		return fmt.Errorf("delete post %d: %w", p.ID, err)
	}
	return nil
}
