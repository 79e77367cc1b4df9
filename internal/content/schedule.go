package content

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/folio-server/folio/internal/store"
)

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
			// Nodes publishing the same post at once publish it once.
			if err := store.LockKeys(ctx, tx, "post:"+strconv.FormatInt(p.ID, 10)); err != nil {
				return err
			}
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
