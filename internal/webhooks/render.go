package webhooks

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/store"
)

// APIRenderer renders an event's resource with an internal GET of its
// item route in edit context, as an administrator, so the data carries
// exactly what the interface shows (extension fields included). It returns
// nil (use the snapshot) when the resource is gone.
func APIRenderer(rs *rest.Server, site *content.Site) Renderer {
	admin := auth.NewUser(&store.User{Login: "folio-webhooks", Roles: []string{"administrator"}}, site.Roles())
	ns := rs.Names().Namespace
	return func(ctx context.Context, ev *store.WebhookEvent) (json.RawMessage, error) {
		base := ""
		switch ev.Kind {
		case "post":
			if pt, ok := site.Types().Get(ev.ObjectType); ok {
				base = pt.RestBase
			}
		case "media":
			base = "media"
		case "term":
			if tx, ok := site.Taxonomies().Get(ev.ObjectType); ok {
				base = tx.RestBase
			}
		case "comment":
			base = "comments"
		case "user":
			base = "users"
		}
		if base == "" {
			return nil, nil
		}
		req := rest.NewRequest(ctx, "GET", "/"+ns+"/"+base+"/"+strconv.FormatInt(ev.ObjectID, 10), url.Values{"context": {"edit"}})
		req.User = admin
		resp := rs.Dispatch(req)
		if resp.Status != 200 {
			return nil, nil
		}
		return json.RawMessage(rs.AppendJSON(nil, resp.Data)), nil
	}
}
