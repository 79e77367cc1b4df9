package extension_test

import (
	"testing"

	"github.com/folio-server/folio/internal/extension"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// A field registered on users and comments stays on them when the
// show_avatars setting rebuilds their item schemas (with or without
// avatar_urls).
func TestRegisteredFieldsSurviveTheShowAvatarsSetting(t *testing.T) {
	ext := extFunc(func(api *extension.API) error {
		for _, title := range []string{"user", "comment"} {
			if err := api.RegisterField(title, extension.Field{
				Schema: &schema.Property{Name: "badge", Description: "Badge.", Type: "string", Context: schema.View | schema.Edit, Readonly: true},
				Get:    func(*rest.Request, *rest.Resource) (any, error) { return "gold", nil },
			}); err != nil {
				return err
			}
		}
		return nil
	})
	e := newEnv(t, nil, ext)
	user := "/api/svc/v2/users/me"
	check := func(when string, avatars bool) {
		t.Helper()
		m := e.do("GET", user, "author", nil).Object()
		if m["badge"] != "gold" {
			t.Errorf("%s: badge = %v", when, m["badge"])
		}
		if _, ok := m["avatar_urls"]; ok != avatars {
			t.Errorf("%s: avatar_urls present = %v", when, ok)
		}
		props := e.do("OPTIONS", "/api/svc/v2/comments", "", nil).Object()["schema"].(map[string]any)["properties"].(map[string]any)
		if props["badge"] == nil {
			t.Errorf("%s: badge missing from the comments schema", when)
		}
	}
	check("show_avatars on", true)
	e.want(e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"show_avatars": false}), 200)
	check("show_avatars off", false)
	e.want(e.do("POST", "/api/svc/v2/settings", "administrator", map[string]any{"show_avatars": true}), 200)
	check("show_avatars on again", true)
}
