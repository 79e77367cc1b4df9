package wxrimport

import (
	"context"
	"fmt"
	"strconv"

	"github.com/folio-server/folio/internal/store"
)

// Finish sets the references that pointed forward (term parents, post
// parents and featured images, comments of items without a post type,
// comment parents) and returns the summary.
func (im *Importer) Finish(ctx context.Context) (*Summary, error) {
	if im.opts.DryRun {
		for _, oc := range im.pendingComments {
			im.sum.Kind("comments").Created += len(oc.item.Comments)
		}
		return im.sum, nil
	}
	for _, tp := range im.pendingTermParents {
		parent, ok := im.cachedTerm(tp.taxonomy, tp.parentSlug)
		if !ok || parent == tp.id {
			continue
		}
		err := im.st.Tx(ctx, func(tx store.Store) error {
			t, err := tx.GetTerm(ctx, tp.id)
			if err != nil {
				return err
			}
			_, err = im.site.ImportTermParent(ctx, tx, t, parent)
			return err
		})
		if err != nil {
			return im.sum, fmt.Errorf("term parents: %w", err)
		}
	}
	for _, pl := range im.pendingLinks {
		if err := ctx.Err(); err != nil {
			return im.sum, err
		}
		posts := im.maps[pl.source][mapPost]
		parent := posts[strconv.FormatInt(pl.parent, 10)]
		featured := posts[strconv.FormatInt(pl.featured, 10)]
		if parent == 0 && featured == 0 {
			if pl.parent != 0 {
				im.sum.note("parents not in the import (left top-level)", 1)
			}
			if pl.featured != 0 {
				im.sum.note("featured images not in the import (left unset)", 1)
			}
			continue
		}
		err := im.st.Tx(ctx, func(tx store.Store) error {
			_, err := im.site.ImportPostLinks(ctx, tx, pl.id, parent, featured)
			return err
		})
		if err != nil {
			return im.sum, fmt.Errorf("post links of %d: %w", pl.id, err)
		}
	}
	for _, oc := range im.pendingComments {
		posts, err := im.importMap(ctx, oc.source, mapPost)
		if err != nil {
			return im.sum, err
		}
		id, ok := posts[strconv.FormatInt(oc.item.PostID, 10)]
		if !ok {
			im.sum.Kind("comments").Skipped["their post (an item without a post type) is not in the import"] += len(oc.item.Comments)
			continue
		}
		if err := im.comments(ctx, oc.source, id, oc.item); err != nil {
			return im.sum, fmt.Errorf("%s: line %d: %w", oc.file, oc.item.Line, err)
		}
	}
	for _, cp := range im.pendingReplies {
		parent, ok := im.maps[cp.source][mapComment][strconv.FormatInt(cp.parent, 10)]
		if !ok {
			im.sum.note("replies whose parent comment is not in the import (left top-level)", 1)
			continue
		}
		err := im.st.Tx(ctx, func(tx store.Store) error {
			_, err := im.site.ImportCommentParent(ctx, tx, cp.id, parent)
			return err
		})
		if err != nil {
			return im.sum, fmt.Errorf("comment parents: %w", err)
		}
	}
	return im.sum, nil
}
