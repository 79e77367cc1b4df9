package wxrimport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/wxr"
)

func (im *Importer) author(ctx context.Context, source string, a *wxr.Author) error {
	id, err := im.user(ctx, source, a.Login, store.User{Login: a.Login, Email: a.Email, DisplayName: a.DisplayName,
		FirstName: a.FirstName, LastName: a.LastName, Description: a.Description}, true)
	if err != nil {
		return err
	}
	if a.ID != 0 && id != 0 {
		if im.authorIDs[source] == nil {
			im.authorIDs[source] = map[int64]int64{}
		}
		im.authorIDs[source][a.ID] = id
	}
	return nil
}

// user resolves the export's login to a user here: mapped by --author-map,
// matched by login, or created. declared tells a wp:author definition
// (always counted) from an item's dc:creator (counted when it creates a
// user). It returns 0 for an empty or unusable login.
func (im *Importer) user(ctx context.Context, source, login string, in store.User, declared bool) (int64, error) {
	const kind = "authors"
	login = strings.TrimSpace(login)
	if login == "" {
		return 0, nil
	}
	if im.users[source] == nil {
		im.users[source] = map[string]int64{}
	}
	if id, ok := im.users[source][login]; ok {
		return id, nil
	}
	if _, err := im.importMap(ctx, source, mapUser); err != nil {
		return 0, err
	}
	target := login
	if to, ok := im.opts.AuthorMap[login]; ok {
		target = to
	}
	sanitized := content.SanitizeUserLogin(target)
	if sanitized == "" {
		im.sum.skip(kind, "login has no usable characters")
		im.users[source][login] = 0
		return 0, nil
	}
	if id, ok := im.dryUsers[strings.ToLower(sanitized)]; ok {
		if declared {
			im.sum.existing(kind)
		}
		im.users[source][login] = id
		return id, nil
	}
	u, err := im.st.GetUserByLogin(ctx, sanitized)
	switch {
	case err == nil:
		if declared {
			im.sum.existing(kind)
		}
		im.users[source][login] = u.ID
		if im.opts.DryRun || im.maps[source][mapUser][login] == u.ID {
			return u.ID, nil
		}
		return u.ID, im.write(ctx, source, func(tx store.Store, rec *recorder) error {
			return rec.record(ctx, mapUser, login, u.ID)
		})
	case !errors.Is(err, store.ErrNotFound):
		return 0, err
	}
	in.Login = target
	var id int64
	err = im.write(ctx, source, func(tx store.Store, rec *recorder) error {
		if tx == nil {
			id = im.newID()
			im.dryUsers[strings.ToLower(sanitized)] = id
			return rec.record(ctx, mapUser, login, id)
		}
		u, _, err := im.site.ImportUser(ctx, tx, in, im.opts.AuthorRole)
		if err != nil {
			return err
		}
		id = u.ID
		return rec.record(ctx, mapUser, login, u.ID)
	})
	if err != nil {
		var ce *content.Error
		if errors.As(err, &ce) {
			im.sum.skip(kind, ce.Message)
			im.users[source][login] = 0
			return 0, nil
		}
		return 0, fmt.Errorf("author %q: %w", login, err)
	}
	im.sum.created(kind)
	if !declared {
		im.sum.note(NoteCreatorAuthors, 1)
	}
	im.users[source][login] = id
	return id, nil
}
