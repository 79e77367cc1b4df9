package content

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/events"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// CommentTrashable reports whether DELETE without force may move c to the
// trash: true unless the rest_comment_type_trashable hook says otherwise.
func (s *Site) CommentTrashable(c *store.Comment) bool {
	supported := true
	if e := (&events.CommentTrashableEvent{Trashable: supported, Comment: c}); s.hooks.Filter(s.hooks.CommentTrashable.Name(""), s.hooks.CommentTrashable.Trigger(e)) {
		supported = e.Trashable
	}
	return supported
}

// CommentFloodInterval is the shortest time allowed between two comments
// from the same client address and user (reference §13).
const CommentFloodInterval = 15 * time.Second

// commentFloodKey names the flood bucket of comments from address ip by
// user uid (0: a guest). The pair is the key, so that people sharing an
// address (an office, a campus) do not hold each other back: a signed-in
// user is not slowed by a guest's comment from the same address, nor one
// user by another. The address is hashed, as in the rate limits' keys.
// The bucket is kept in the store's rate-limit buckets, by the time the
// comment was made, not by the date it carries, so that a date given on
// create neither dodges the rule nor turns it against anyone else.
func commentFloodKey(ip string, uid int64) string {
	h := sha256.Sum256([]byte(ip))
	return "comment:" + hex.EncodeToString(h[:12]) + ":" + strconv.FormatInt(uid, 10)
}

// CommentInput carries the writable comment fields of a request; nil means
// "not sent".
type CommentInput struct {
	Content     *string
	Post        *int64
	Parent      *int64
	Author      *int64
	AuthorName  *string
	AuthorEmail *string
	AuthorURL   *string
	Type        *string
	Karma       *int64
	Date        *time.Time // UTC instant from `date`
	DateGMT     *time.Time // UTC instant from `date_gmt`
	Status      *string
}

// CommentOrigin is where a new comment comes from: the client's address
// (never taken from forwarding headers) and user agent.
type CommentOrigin struct {
	IP        string
	UserAgent string
}

// CommentStatus maps a stored approval value to the interface's status
// (reference §10.4): "1" approved, "0" hold, other values as stored.
func CommentStatus(approved string) string {
	switch approved {
	case store.CommentApproved, "approve":
		return "approved"
	case store.CommentHeld, "hold":
		return "hold"
	}
	return approved
}

// normalizeCommentType maps the empty type to "comment".
func normalizeCommentType(t string) string {
	if t == "" {
		return "comment"
	}
	return t
}

// GetComment loads one comment; ok is false when it does not exist.
func (s *Site) GetComment(ctx context.Context, id int64) (*store.Comment, bool, error) {
	c, err := s.st.GetComment(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return c, true, nil
}

// CanReadPostComments reports whether u may read the comments of p (and
// comment on it): p must be readable, and a password-protected post needs
// the right password or the right to edit it.
func (s *Site) CanReadPostComments(ctx context.Context, u *auth.User, p *store.Post, password string) bool {
	if !s.CanRead(ctx, u, p) {
		return false
	}
	if p.Password != "" && password != p.Password && !s.CanEdit(ctx, u, p) {
		return false
	}
	return true
}

// CanReadComment reports whether u may read c, whose post is post (nil
// when c has none or it is missing). Approved comments are readable when
// their post is; others need a signed-in caller who wrote the comment or
// may edit it, and moderate_comments when there is no post.
func (s *Site) CanReadComment(ctx context.Context, u *auth.User, c *store.Comment, post *store.Post, password string) bool {
	if post != nil && !s.CanReadPostComments(ctx, u, post, password) {
		return false
	}
	if c.Approved == store.CommentApproved {
		return true
	}
	if u == nil {
		return false
	}
	if c.PostID == 0 && !u.HasCap("moderate_comments") {
		return false
	}
	if c.AuthorID != 0 && c.AuthorID == u.ID() {
		return true
	}
	return s.canEditCommentPost(ctx, u, post)
}

// canEditCommentPost is edit_comment: edit_post of the comment's post, or
// edit_posts when there is none.
func (s *Site) canEditCommentPost(ctx context.Context, u *auth.User, post *store.Post) bool {
	if post == nil {
		return u.HasCap("edit_posts")
	}
	return s.authz.Can(ctx, u, "edit_comment", post)
}

// CanEditComment reports whether u may update or delete c: a signed-in
// caller with moderate_comments and edit_comment (reference §5.3).
func (s *Site) CanEditComment(ctx context.Context, u *auth.User, post *store.Post) bool {
	if u == nil || !u.HasCap("moderate_comments") {
		return false
	}
	return s.canEditCommentPost(ctx, u, post)
}

// editVisibility mirrors edit_post (reference §5.2) for posts of type pt as
// a query restriction.
func editVisibility(u *auth.User, pt *PostType) store.Visibility {
	var v store.Visibility
	if u == nil {
		return v
	}
	c := pt.Caps
	published := []string{"publish", "future"}
	if pt.Name == "attachment" {
		published = append(published, "inherit")
	}
	v.Owner = u.ID()
	if u.HasCap(c.EditPosts) {
		v.OwnStatuses = append(v.OwnStatuses, "draft", "pending", "private", "auto-draft", "trash")
	}
	if u.HasCap(c.EditPublishedPosts) {
		v.OwnStatuses = append(v.OwnStatuses, published...)
	}
	if u.HasCap(c.EditOthersPosts) {
		v.OthersStatuses = append(v.OthersStatuses, "draft", "pending", "auto-draft", "trash")
		if u.HasCap(c.EditPublishedPosts) {
			v.OthersStatuses = append(v.OthersStatuses, published...)
		}
		if u.HasCap(c.EditPrivatePosts) {
			v.OthersStatuses = append(v.OthersStatuses, "private")
		}
	}
	return v
}

// CommentAccess returns the restriction that keeps a comment query to what
// u may read; unlocked are posts whose password the request carries.
func (s *Site) CommentAccess(u *auth.User, unlocked []int64) *store.CommentAccess {
	a := &store.CommentAccess{
		UserID:         u.ID(),
		UnlockedPosts:  unlocked,
		EditNoPost:     u.HasCap("edit_posts"),
		ModerateNoPost: u.HasCap("moderate_comments"),
	}
	for _, pt := range s.types.All() {
		if !pt.ShowInRest {
			continue
		}
		a.Types = append(a.Types, store.CommentTypeAccess{
			Type: pt.Name,
			Read: *s.Visibility(u, pt),
			Edit: editVisibility(u, pt),
		})
	}
	return a
}

// ListComments runs a collection query and returns one page of comments and
// the total number of matching comments.
func (s *Site) ListComments(ctx context.Context, q store.CommentQuery) ([]*store.Comment, int64, error) {
	list, err := s.st.ListComments(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("list comments: %w", err)
	}
	if q.Limit > 0 && q.Offset == 0 && len(list) < q.Limit {
		return list, int64(len(list)), nil
	}
	q.Offset, q.Limit, q.OrderBy, q.Order = 0, 0, "", ""
	total, err := s.st.CountComments(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("count comments: %w", err)
	}
	return list, total, nil
}

// CommentCreateCheck is what the create permission step looks at.
type CommentCreateCheck struct {
	Author      *int64
	Karma       *int64
	StatusGiven bool
	Post        int64
	Password    string
}

// CheckCreateComment applies the create permission rules of reference §5.3
// in order.
func (s *Site) CheckCreateComment(ctx context.Context, u *auth.User, in CommentCreateCheck) error {
	if u == nil {
		set, err := s.Settings(ctx)
		if err != nil {
			return err
		}
		if !set.AllowAnonymousComments {
			return &Error{Code: "rest_comment_login_required", Message: "Sorry, you must be logged in to comment.", Status: 401}
		}
	}
	moderator := u.HasCap("moderate_comments")
	if in.Author != nil && *in.Author != u.ID() && !moderator {
		return errAuth("rest_comment_invalid_author", "Comment author invalid.")
	}
	if in.Karma != nil && *in.Karma > 0 && !moderator {
		return errAuth("rest_comment_invalid_karma", "Sorry, you cannot set karma for comments.")
	}
	if in.StatusGiven && !moderator {
		return errAuth("rest_comment_invalid_status", "Sorry, you cannot set status for comments.")
	}
	if in.Post != 0 {
		p, ok, err := s.GetPost(ctx, in.Post)
		if err != nil {
			return err
		}
		if ok {
			if !s.CanReadPostComments(ctx, u, p, in.Password) {
				return errAuth("rest_cannot_read_post", "Sorry, you cannot read the post for this comment.")
			}
			if p.CommentStatus != "open" {
				return &Error{Code: "rest_comment_closed", Message: "Sorry, comments are closed on this post.", Status: 403}
			}
		}
	}
	return nil
}

// applyComment copies the sent fields of in onto c and checks them.
func (s *Site) applyComment(ctx context.Context, c *store.Comment, in CommentInput, dates bool, loc *time.Location) error {
	if in.Content != nil {
		c.Content = render.KSESPost(*in.Content)
	}
	if in.Post != nil {
		c.PostID = *in.Post
	}
	if in.Parent != nil {
		c.Parent = *in.Parent
	}
	if in.Author != nil {
		if *in.Author != 0 && *in.Author != c.AuthorID {
			if _, err := s.st.GetUser(ctx, *in.Author); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return errBad("rest_comment_author_invalid", "Invalid comment author id.")
				}
				return err
			}
		}
		c.AuthorID = *in.Author
	}
	if in.AuthorName != nil {
		c.AuthorName = *in.AuthorName
	}
	if in.AuthorEmail != nil {
		c.AuthorEmail = *in.AuthorEmail
	}
	if in.AuthorURL != nil {
		c.AuthorURL = *in.AuthorURL
	}
	if in.Type != nil {
		c.Type = normalizeCommentType(*in.Type)
	}
	if in.Karma != nil {
		c.Karma = *in.Karma
	}
	if dates {
		switch {
		case in.Date != nil:
			c.DateGMT = truncSecond(in.Date.UTC())
			c.Date = WallClock(c.DateGMT, loc)
		case in.DateGMT != nil:
			c.DateGMT = truncSecond(in.DateGMT.UTC())
			c.Date = WallClock(c.DateGMT, loc)
		}
	}
	if c.Parent != 0 {
		if c.Parent == c.ID {
			return errBad("rest_comment_invalid_parent", "A comment cannot be its own parent.")
		}
		parent, ok, err := s.GetComment(ctx, c.Parent)
		if err != nil {
			return err
		}
		if !ok || parent.PostID != c.PostID {
			return errBad("rest_comment_invalid_parent", "Invalid comment parent id: the parent must be a comment on the same post.")
		}
	}
	return nil
}

var commentLinkRE = regexp.MustCompile(`(?i)<a [^>]*href`)

// approval decides the stored status of a new comment on post (nil when
// none): approved when its user wrote the post or moderates comments,
// otherwise per the site's comment rules (set).
func (s *Site) approval(ctx context.Context, c *store.Comment, post *store.Post, set *Settings) (string, error) {
	if c.AuthorID != 0 {
		if post != nil && post.Author == c.AuthorID {
			return store.CommentApproved, nil
		}
		rec, err := s.st.GetUser(ctx, c.AuthorID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		if err == nil && s.UserOf(rec).HasCap("moderate_comments") {
			return store.CommentApproved, nil
		}
	}
	if set.CommentModeration {
		return store.CommentHeld, nil
	}
	if set.CommentMaxLinks > 0 && int64(len(commentLinkRE.FindAllStringIndex(c.Content, -1))) >= set.CommentMaxLinks {
		return store.CommentHeld, nil
	}
	if set.CommentPreviouslyApproved {
		if c.Type == "pingback" || c.Type == "trackback" || c.AuthorName == "" || c.AuthorEmail == "" {
			return store.CommentHeld, nil
		}
		ok, err := s.st.HasApprovedComment(ctx, c.AuthorName, c.AuthorEmail)
		if err != nil {
			return "", err
		}
		if !ok {
			return store.CommentHeld, nil
		}
	}
	return store.CommentApproved, nil
}

// CreateComment validates in and stores a new comment by u (nil for a
// guest) sent from origin. A date or date_gmt given by any caller who may
// comment is stored as given (without one the comment is dated now); the
// flood rule counts when comments are made, not their dates, so a date
// neither dodges it nor turns it against someone else.
func (s *Site) CreateComment(ctx context.Context, u *auth.User, in CommentInput, origin CommentOrigin, request *rest.Request) (*store.Comment, error) {
	moderator := u.HasCap("moderate_comments")
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("create comment: %w", err)
	}
	now := truncSecond(s.Now())
	c := &store.Comment{Type: "comment", DateGMT: now, Date: WallClock(now, set.Location())}
	if err := s.applyComment(ctx, c, in, true, set.Location()); err != nil {
		return nil, err
	}
	if u != nil && c.AuthorID == 0 && c.AuthorName == "" && c.AuthorEmail == "" && c.AuthorURL == "" {
		rec := u.Record()
		c.AuthorID = rec.ID
		c.AuthorName = rec.DisplayName
		c.AuthorEmail = rec.Email
		c.AuthorURL = rec.URL
	}
	c.AuthorIP = origin.IP
	c.AuthorUserAgent = origin.UserAgent

	var post *store.Post
	if c.PostID != 0 {
		p, ok, err := s.GetPost(ctx, c.PostID)
		if err != nil {
			return nil, err
		}
		if ok {
			post = p
		}
	}
	dup, err := s.st.DuplicateComment(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("create comment: %w", err)
	}
	if dup {
		return nil, &Error{Code: "comment_duplicate", Message: "Duplicate comment detected; it looks as though you've already said that!", Status: 409}
	}
	if !moderator {
		wait, err := s.st.TakeRateToken(ctx, commentFloodKey(c.AuthorIP, c.AuthorID), s.Now(), CommentFloodInterval, 1)
		if err != nil {
			return nil, fmt.Errorf("create comment: %w", err)
		}
		if wait > 0 {
			return nil, &Error{Code: "comment_flood", Message: "You are posting comments too quickly. Slow down.", Status: 429, RetryAfter: wait}
		}
	}
	if c.Approved, err = s.approval(ctx, c, post, set); err != nil {
		return nil, fmt.Errorf("create comment: %w", err)
	}
	c = s.PreInsertCommentHook(ctx, c, request)
	if in.Status != nil {
		// An explicit status (moderators only) applies after the rules.
		applyCommentStatus(c, *in.Status)
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := tx.InsertComment(ctx, c); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "comment", Action: "created", ID: c.ID, Record: c})
	})
	if err != nil {
		if isAPIError(err) {
			return nil, err
		}
		return nil, &Error{Code: "rest_comment_failed_create", Message: "Creating comment failed.", Status: 500}
	}
	return c, nil
}

// applyCommentStatus applies a status value of a request (reference §10.4)
// to c and reports whether it changed: approved, approve and 1 approve;
// hold and 0 hold; spam and trash remember the status to restore; unspam
// and untrash restore it; any other value, or the status c already has,
// changes nothing.
func applyCommentStatus(c *store.Comment, status string) bool {
	old := c.Approved
	restore := func() string {
		if c.PreTrashStatus != "" {
			return c.PreTrashStatus
		}
		return store.CommentHeld
	}
	switch strings.ToLower(status) {
	case "approved", "approve", "1":
		c.Approved = store.CommentApproved
	case "hold", "0":
		c.Approved = store.CommentHeld
	case "spam":
		if old != store.CommentSpam {
			c.PreTrashStatus = old
			c.Approved = store.CommentSpam
		}
	case "unspam":
		if old == store.CommentSpam {
			c.Approved = restore()
			c.PreTrashStatus = ""
		}
	case "trash":
		if old != store.CommentTrash {
			c.PreTrashStatus = old
			c.Approved = store.CommentTrash
		}
	case "untrash":
		if old == store.CommentTrash {
			c.Approved = restore()
			c.PreTrashStatus = ""
		}
	}
	return c.Approved != old
}

// UpdateComment applies in to the stored comment old (reference §10.4
// "Update"). When status is the only field sent and it changes nothing,
// the update fails with rest_comment_failed_edit; an update whose values
// equal the stored ones succeeds.
func (s *Site) UpdateComment(ctx context.Context, u *auth.User, old *store.Comment, in CommentInput) (*store.Comment, error) {
	if in.Type != nil && normalizeCommentType(*in.Type) != normalizeCommentType(old.Type) {
		return nil, &Error{Code: "rest_comment_invalid_type", Message: "Sorry, you cannot change the comment type.", Status: 404}
	}
	c := *old
	onlyStatus := in.Status != nil && in.Content == nil && in.Post == nil && in.Parent == nil &&
		in.Author == nil && in.AuthorName == nil && in.AuthorEmail == nil && in.AuthorURL == nil &&
		in.Type == nil && in.Karma == nil && in.Date == nil && in.DateGMT == nil
	if in.Post != nil && *in.Post != old.PostID && *in.Post != 0 {
		if _, ok, err := s.GetPost(ctx, *in.Post); err != nil {
			return nil, err
		} else if !ok {
			return nil, &Error{Code: "rest_comment_invalid_post_id", Message: "Invalid post id.", Status: 403}
		}
	}
	loc, err := s.Location(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.applyComment(ctx, &c, in, true, loc); err != nil {
		return nil, err
	}
	if in.Status != nil {
		changed := applyCommentStatus(&c, *in.Status)
		if onlyStatus && !changed {
			return nil, &Error{Code: "rest_comment_failed_edit", Message: "Updating comment status failed.", Status: 500}
		}
	}
	if c == *old {
		return &c, nil
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := tx.UpdateComment(ctx, &c); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "comment", Action: "updated", ID: c.ID, Record: &c, Old: old})
	})
	if err != nil {
		if isAPIError(err) {
			return nil, err
		}
		return nil, &Error{Code: "rest_comment_failed_edit", Message: "Updating comment failed.", Status: 500}
	}
	return &c, nil
}

// TrashComment moves c to the trash, remembering its status.
func (s *Site) TrashComment(ctx context.Context, c *store.Comment) error {
	t := *c
	applyCommentStatus(&t, "trash")
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := tx.UpdateComment(ctx, &t); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "comment", Action: "trashed", ID: c.ID, Record: &t, Old: c})
	})
	if err != nil {
		return fmt.Errorf("trash comment %d: %w", c.ID, err)
	}
	return nil
}

// DeleteComment removes c permanently; its replies move to its parent.
func (s *Site) DeleteComment(ctx context.Context, c *store.Comment) error {
	err := s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := tx.DeleteComment(ctx, c.ID); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "comment", Action: "deleted", ID: c.ID, Record: c})
	})
	if err != nil {
		return fmt.Errorf("delete comment %d: %w", c.ID, err)
	}
	return nil
}

// RenderComment returns content.rendered of c.
func (s *Site) RenderComment(c *store.Comment) string {
	return s.renders.get('m', c.ID, c.Content, "", func() string { return render.Content(c.Content) })
}

// syncPostComments keeps the comments of a post in step with its move into
// or out of the trash, inside the writing transaction tx: when old (the
// stored post) was not in the trash and p is, its comments become
// post-trashed, remembering their statuses; when old was in the trash and p
// is not, they get those statuses back. The post's comment count follows.
func (s *Site) syncPostComments(ctx context.Context, tx store.Store, old, p *store.Post) error {
	switch {
	case old.Status != "trash" && p.Status == "trash":
		if err := tx.TrashPostComments(ctx, p.ID); err != nil {
			return fmt.Errorf("trash comments of post %d: %w", p.ID, err)
		}
	case old.Status == "trash" && p.Status != "trash":
		if err := tx.UntrashPostComments(ctx, p.ID); err != nil {
			return fmt.Errorf("untrash comments of post %d: %w", p.ID, err)
		}
	}
	return nil
}
