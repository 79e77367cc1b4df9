package content

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/auth"
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

// CanRead reports whether u may read p (reference §5.2 read_post, with
// password-protected posts readable by everyone who may read the post,
// decisions #15).
func (s *Site) CanRead(ctx context.Context, u *auth.User, p *store.Post) bool {
	pt, ok := s.types.Get(p.Type)
	if !ok || !pt.ShowInRest {
		return false
	}
	if p.Status == "publish" {
		return true
	}
	if p.Status == "inherit" {
		if p.Parent > 0 {
			parent, err := s.st.GetPost(ctx, p.Parent)
			if err != nil {
				return errors.Is(err, store.ErrNotFound)
			}
			return s.CanRead(ctx, u, parent)
		}
		return true
	}
	return s.authz.Can(ctx, u, "read_post", p)
}

// CanEdit reports whether u may edit p.
func (s *Site) CanEdit(ctx context.Context, u *auth.User, p *store.Post) bool {
	if pt, ok := s.types.Get(p.Type); !ok || !pt.ShowInRest {
		return false
	}
	return s.authz.Can(ctx, u, "edit_post", p)
}

// CanDelete reports whether u may delete p.
func (s *Site) CanDelete(ctx context.Context, u *auth.User, p *store.Post) bool {
	if pt, ok := s.types.Get(p.Type); !ok || !pt.ShowInRest {
		return false
	}
	return s.authz.Can(ctx, u, "delete_post", p)
}

// Editable reports, for each post of a page, whether u may edit it, with
// the parents that decide attachments and revisions loaded in one query.
// A collection in edit context shows the posts u may not edit as in view
// context: no password, no raw fields (the item route refuses them).
func (s *Site) Editable(ctx context.Context, u *auth.User, posts []*store.Post) ([]bool, error) {
	var parents []int64
	for _, p := range posts {
		if (p.Status == "inherit" || p.Type == "revision") && p.Parent > 0 {
			parents = append(parents, p.Parent)
		}
	}
	if len(parents) > 0 {
		known, err := s.st.GetPosts(ctx, parents)
		if err != nil {
			return nil, err
		}
		ctx = withKnownPosts(ctx, known)
	}
	out := make([]bool, len(posts))
	for i, p := range posts {
		out[i] = s.CanEdit(ctx, u, p)
	}
	return out, nil
}

type knownPostsKey struct{}

// withKnownPosts lets permission checks under ctx find the posts of known
// without a query; ids known does not hold are loaded as usual.
func withKnownPosts(ctx context.Context, known map[int64]*store.Post) context.Context {
	return context.WithValue(ctx, knownPostsKey{}, known)
}

// knownPosts wraps a post loader so that it answers from the posts
// withKnownPosts put in the context first.
func knownPosts(load func(context.Context, int64) (*store.Post, error)) func(context.Context, int64) (*store.Post, error) {
	return func(ctx context.Context, id int64) (*store.Post, error) {
		if known, ok := ctx.Value(knownPostsKey{}).(map[int64]*store.Post); ok {
			if p, ok := known[id]; ok {
				return p, nil
			}
		}
		return load(ctx, id)
	}
}

// Visibility returns the restriction that keeps a post query to what u may
// read of type pt. It mirrors read_post in SQL so that collection totals
// equal what can be listed.
func (s *Site) Visibility(u *auth.User, pt *PostType) *store.Visibility {
	v := &store.Visibility{Public: []string{"publish"}}
	if pt.Name == "attachment" {
		v.Public = append(v.Public, "inherit")
	}
	if u == nil {
		return v
	}
	c := pt.Caps
	v.Owner = u.ID()
	v.OwnStatuses = []string{"private"}
	if u.HasCap(c.EditPosts) {
		v.OwnStatuses = append(v.OwnStatuses, "draft", "pending", "future", "trash")
	}
	if u.HasCap(c.ReadPrivatePosts) {
		v.OthersStatuses = append(v.OthersStatuses, "private")
	}
	if u.HasCap(c.EditOthersPosts) {
		v.OthersStatuses = append(v.OthersStatuses, "draft", "pending")
		if u.HasCap(c.EditPublishedPosts) {
			v.OthersStatuses = append(v.OthersStatuses, "future")
		}
		if u.HasCap(c.DeleteOthersPosts) {
			v.OthersStatuses = append(v.OthersStatuses, "trash")
		}
	}
	return v
}

// MaxSearchLength bounds the `search` parameter of every collection, in
// characters: longer searches are refused (rest_invalid_param), so that one
// request cannot make the store match a pathological pattern.
const MaxSearchLength = 200

// ProtectedSearch returns which password-protected posts of type pt a
// search by u may match on their excerpt and content: those u may edit.
// Everybody else sees a protected post's text only with its password
// (decisions #15), so search must not reveal it either; nil means none.
func (s *Site) ProtectedSearch(u *auth.User, pt *PostType) *store.Visibility {
	v := editVisibility(u, pt)
	if len(v.Public) == 0 && len(v.OwnStatuses) == 0 && len(v.OthersStatuses) == 0 {
		return nil
	}
	return &v
}

// ListPosts runs a collection query and returns one page of posts and the
// total number of matching posts.
func (s *Site) ListPosts(ctx context.Context, q store.PostQuery) ([]*store.Post, int64, error) {
	posts, err := s.st.ListPosts(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if q.Limit > 0 && q.Offset == 0 && len(posts) < q.Limit {
		// The whole result fits on this page: no second query needed.
		return posts, int64(len(posts)), nil
	}
	total, err := s.countPosts(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	return posts, total, nil
}

// countPosts counts the posts q matches. Counts are cached by the store's
// write version, so a count never outlives a write on any node, and a
// page of a large collection does not rescan it for X-API-Total. The
// version the API server read for the request (store.ContextVersion) is
// used when there is one.
func (s *Site) countPosts(ctx context.Context, q store.PostQuery) (int64, error) {
	version, ok := store.ContextVersion(ctx)
	if !ok {
		var err error
		if version, err = s.st.Version(ctx); err != nil {
			return 0, err
		}
	}
	q.Offset, q.Limit, q.OrderBy, q.Order, q.StickyFirst = 0, 0, "", "", false
	keyJSON, err := json.Marshal(q)
	if err != nil {
		return 0, err
	}
	key := string(keyJSON)
	if n, ok := s.counts.get(version, key); ok {
		return n, nil
	}
	n, err := s.st.CountPosts(ctx, q)
	if err != nil {
		return 0, err
	}
	s.counts.put(version, key, n)
	return n, nil
}

// GetPost loads one post; ok is false when it does not exist.
func (s *Site) GetPost(ctx context.Context, id int64) (*store.Post, bool, error) {
	p, err := s.st.GetPost(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return p, true, nil
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
// the site URL used for the post's GUID.
func (s *Site) CreatePost(ctx context.Context, u *auth.User, pt *PostType, in PostInput, siteRoot string) (*store.Post, error) {
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("create post: %w", err)
	}
	p := &store.Post{
		Type:   pt.Name,
		Status: "draft",
		Author: u.ID(),
	}
	p.CommentStatus, p.PingStatus = set.newCommentStatus(pt)
	if err := s.apply(ctx, u, pt, p, in, true, set); err != nil {
		return nil, err
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := s.finishSlug(ctx, tx, pt, p); err != nil {
			return err
		}
		if err := tx.InsertPost(ctx, p); err != nil {
			return err
		}
		if err := s.setPostTerms(ctx, tx, pt, p, in.Terms, set.DefaultCategory); err != nil {
			return err
		}
		p.GUID = guidFor(siteRoot, pt, p.ID)
		if p.Slug == "" && !draftLike(p.Status) {
			p.Slug = strconv.FormatInt(p.ID, 10)
		}
		if err := tx.UpdatePost(ctx, p); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: postKind(pt), Type: pt.Name, Action: "created", ID: p.ID, Record: p})
	})
	if err != nil {
		return nil, fmt.Errorf("create post: %w", err)
	}
	return p, nil
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
	// The candidates base, base-2, base-3, … are asked in batches, one
	// query each, growing eightfold: a title used a thousand times costs
	// three queries, not a thousand.
	base := p.Slug
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
// §11): the type's default passes through Site.PostTrashable when set.
func (s *Site) Trashable(pt *PostType, p *store.Post) bool {
	supported := pt.Trashable
	if s.PostTrashable != nil {
		supported = s.PostTrashable(pt, p, supported)
	}
	return supported
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

// Permalink returns the public URL of p under siteRoot. Parents of
// hierarchical posts must be in parents (see ParentChains).
// When the site has an external front end ([site] front_end), links point
// there instead of siteRoot.
func (s *Site) Permalink(siteRoot string, p *store.Post, parents map[int64]*store.Post) string {
	siteRoot = s.LinkRoot(siteRoot)
	pt, _ := s.types.Get(p.Type)
	if p.Status != "publish" || p.Slug == "" || pt == nil {
		switch p.Type {
		case "post":
			return fmt.Sprintf("%s/?p=%d", siteRoot, p.ID)
		case "page":
			return fmt.Sprintf("%s/?page_id=%d", siteRoot, p.ID)
		case "attachment":
			return fmt.Sprintf("%s/?attachment_id=%d", siteRoot, p.ID)
		default:
			return fmt.Sprintf("%s/?post_type=%s&p=%d", siteRoot, p.Type, p.ID)
		}
	}
	switch p.Type {
	case "post":
		return datedPermalink(siteRoot, p.Date, p.Slug)
	case "page":
		return siteRoot + "/" + s.slugPath(p, parents) + "/"
	default:
		return siteRoot + "/" + pt.Name + "/" + s.slugPath(p, parents) + "/"
	}
}

// LinkRoot returns the base of the site's public links (permalinks, term
// and author archives): the external front end's URL when [site]
// front_end names one, else siteRoot.
func (s *Site) LinkRoot(siteRoot string) string {
	if ext := s.cfg.Site.ExternalFrontEnd(); ext != "" {
		return ext
	}
	return siteRoot
}

// datedPermalink is siteRoot/YYYY/MM/DD/slug/ (fmt's "%s/%04d/%02d/%02d/%s/"),
// built in one allocation: it is written for every post of a page.
func datedPermalink(siteRoot string, date time.Time, slug string) string {
	y, m, d := date.Date()
	if y < 0 || y > 9999 {
		return fmt.Sprintf("%s/%04d/%02d/%02d/%s/", siteRoot, y, int(m), d, slug)
	}
	var b strings.Builder
	b.Grow(len(siteRoot) + len(slug) + 13)
	b.WriteString(siteRoot)
	b.Write([]byte{'/', byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10),
		'/', byte('0' + int(m)/10), byte('0' + int(m)%10), '/', byte('0' + d/10), byte('0' + d%10), '/'})
	b.WriteString(slug)
	b.WriteByte('/')
	return b.String()
}

func (s *Site) slugPath(p *store.Post, parents map[int64]*store.Post) string {
	parts := []string{p.Slug}
	seen := map[int64]bool{p.ID: true}
	for cur := p; cur.Parent != 0; {
		par, ok := parents[cur.Parent]
		if !ok || seen[par.ID] || par.Slug == "" {
			break
		}
		seen[par.ID] = true
		parts = append(parts, par.Slug)
		cur = par
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

// ParentChains loads every ancestor of the given hierarchical posts, one
// query per level of depth (never per post).
func (s *Site) ParentChains(ctx context.Context, posts []*store.Post) (map[int64]*store.Post, error) {
	out := map[int64]*store.Post{}
	var next []int64
	for _, p := range posts {
		out[p.ID] = p
	}
	for _, p := range posts {
		if p.Parent != 0 {
			if _, ok := out[p.Parent]; !ok {
				next = append(next, p.Parent)
			}
		}
	}
	for depth := 0; len(next) > 0 && depth < 32; depth++ {
		got, err := s.st.GetPosts(ctx, next)
		if err != nil {
			return nil, err
		}
		next = next[:0]
		for _, p := range got {
			out[p.ID] = p
		}
		for _, p := range got {
			if p.Parent != 0 {
				if _, ok := out[p.Parent]; !ok {
					next = append(next, p.Parent)
				}
			}
		}
	}
	return out, nil
}

// PublishDue publishes every scheduled post whose date has come and
// returns how many it published. It is safe to run on several nodes at
// once: each post is re-read and switched inside its own transaction.
// Which posts are due is decided on date_gmt: the local dates are looked
// through with a bound no time zone can pass (UTC+14), so that posts dated
// under a time zone the site had before are published on time too.
func (s *Site) PublishDue(ctx context.Context) (int, error) {
	now := s.Now()
	before := WallClock(now.Add(maxZoneOffset+time.Second), time.UTC)
	const batch = 500
	var n int
	for _, pt := range s.types.All() {
		for offset := 0; ; {
			due, err := s.st.ListPosts(ctx, store.PostQuery{
				Types: []string{pt.Name}, Statuses: []string{"future"}, Before: &before,
				Offset: offset, Limit: batch, OrderBy: "date", Order: "asc",
			})
			if err != nil {
				return n, err
			}
			published, err := s.publishDue(ctx, pt, due, now)
			n += published
			if err != nil {
				return n, err
			}
			if len(due) < batch {
				break
			}
			// The posts published left the set; the others are skipped.
			offset += len(due) - published
		}
	}
	return n, nil
}

// maxZoneOffset is the largest offset of a time zone from UTC.
const maxZoneOffset = 14 * time.Hour

// publishDue publishes those of the scheduled posts due whose date_gmt is
// not after now, and returns how many it published.
func (s *Site) publishDue(ctx context.Context, pt *PostType, due []*store.Post, now time.Time) (int, error) {
	var n int
	for _, p := range due {
		if p.DateGMT.After(now) {
			continue
		}
		published := false
		err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
			cur, err := tx.GetPost(ctx, p.ID)
			if err != nil || cur.Status != "future" {
				return err
			}
			old := *cur
			cur.Status = "publish"
			if err := s.finishSlug(ctx, tx, pt, cur); err != nil {
				return err
			}
			published = true
			if err := tx.UpdatePost(ctx, cur); err != nil {
				return err
			}
			return s.changed(ctx, tx, Change{Kind: postKind(pt), Type: pt.Name, Action: "updated", ID: cur.ID, Record: cur, Old: &old})
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return n, err
		}
		if published {
			n++
		}
	}
	return n, nil
}
