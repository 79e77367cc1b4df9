package content

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
)

// RevisionType is the post type of revisions.
const RevisionType = "revision"

// SupportsRevisions reports whether posts of type pt keep revisions.
func SupportsRevisions(pt *PostType) bool {
	return pt.Name == "post" || pt.Name == "page" || pt.Supports(SupportRevisions)
}

// saveRevision stores a revision of p (the post as just updated from old)
// by u inside tx when p's type keeps revisions and its title, content or
// excerpt changed. The revision is a post of type revision whose parent is
// p, dated when p was modified, with p's title, content and excerpt.
func (s *Site) saveRevision(ctx context.Context, tx store.Store, u *auth.User, old, p *store.Post) error {
	pt, ok := s.types.Get(p.Type)
	if !ok || !SupportsRevisions(pt) || p.Status == "auto-draft" {
		return nil
	}
	if old.Title == p.Title && old.Content == p.Content && old.Excerpt == p.Excerpt {
		return nil
	}
	rev := &store.Post{
		Type:          RevisionType,
		Status:        "inherit",
		Author:        u.ID(),
		Parent:        p.ID,
		Title:         p.Title,
		Content:       p.Content,
		Excerpt:       p.Excerpt,
		Slug:          strconv.FormatInt(p.ID, 10) + "-revision-v1",
		Date:          p.Modified,
		DateGMT:       p.ModifiedGMT,
		Modified:      p.Modified,
		ModifiedGMT:   p.ModifiedGMT,
		CommentStatus: "closed",
		PingStatus:    "closed",
	}
	if err := tx.InsertPost(ctx, rev); err != nil {
		return fmt.Errorf("save revision of post %d: %w", p.ID, err)
	}
	rev.GUID = fmt.Sprintf("%s/?p=%d", s.siteRootOf(p), rev.ID)
	if err := tx.UpdatePost(ctx, rev); err != nil {
		return fmt.Errorf("save revision of post %d: %w", p.ID, err)
	}
	return nil
}

// siteRootOf returns the site URL for GUIDs made outside a request: the
// configured URL, else the one p's own GUID was made with.
func (s *Site) siteRootOf(p *store.Post) string {
	if s.cfg.Site.URL != "" {
		return s.cfg.Site.URL
	}
	if i := strings.Index(p.GUID, "/?"); i >= 0 {
		return p.GUID[:i]
	}
	return ""
}

// Revisions returns every revision of the post parent, newest first.
func (s *Site) Revisions(ctx context.Context, parent int64) ([]*store.Post, error) {
	revs, err := s.st.ListPosts(ctx, store.PostQuery{
		Types:   []string{RevisionType},
		Parents: []int64{parent}, ParentsSet: true,
		OrderBy: "date", Order: "desc",
	})
	if err != nil {
		return nil, fmt.Errorf("revisions of post %d: %w", parent, err)
	}
	return revs, nil
}

// DeleteRevision removes a revision permanently.
func (s *Site) DeleteRevision(ctx context.Context, rev *store.Post) error {
	if rev.Type != RevisionType {
		return errors.New("delete revision: not a revision")
	}
	if err := s.st.DeletePost(ctx, rev.ID); err != nil {
		return fmt.Errorf("delete revision %d: %w", rev.ID, err)
	}
	return nil
}

// deletePostDependents removes, inside tx, what belongs to the post p that
// is about to be deleted: its comments and its revisions.
func (s *Site) deletePostDependents(ctx context.Context, tx store.Store, p *store.Post) error {
	if err := tx.DeletePostComments(ctx, p.ID); err != nil {
		return fmt.Errorf("delete comments of post %d: %w", p.ID, err)
	}
	if p.Type == RevisionType {
		return nil
	}
	revs, err := tx.ListPosts(ctx, store.PostQuery{
		Types: []string{RevisionType}, Parents: []int64{p.ID}, ParentsSet: true,
	})
	if err != nil {
		return fmt.Errorf("revisions of post %d: %w", p.ID, err)
	}
	for _, r := range revs {
		if err := tx.DeletePost(ctx, r.ID); err != nil {
			return fmt.Errorf("delete revision %d: %w", r.ID, err)
		}
	}
	return nil
}
