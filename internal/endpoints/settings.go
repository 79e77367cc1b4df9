package endpoints

import (
	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
)

// settingsController serves /settings, the site's options, as WordPress
// 4.7+ does: GET reads them, POST/PUT/PATCH changes the ones the body names
// (a JSON null puts one back to the configuration file's value) and answers
// with all of them. Both need manage_options. The rules live in
// content.Settings; the configuration file gives the defaults.
type settingsController struct {
	site   *content.Site
	schema *schema.Object
}

func (c *settingsController) register(rs *rest.Server, ns string) {
	V, E := schema.View, schema.Edit
	onOff := []string{"open", "closed"}
	c.schema = schema.NewObject("settings",
		&schema.Property{Name: content.SettingTitle, Description: "Site title.", Type: "string", Context: V | E},
		&schema.Property{Name: content.SettingDescription, Description: "Site tagline.", Type: "string", Context: V | E},
		&schema.Property{Name: content.SettingURL, Description: "Site URL: site.url of the configuration file, or the address of the request when it has none; it is not changed here.", Type: "string", Format: "uri", Context: V | E, Readonly: true},
		&schema.Property{Name: content.SettingTimezone, Description: "A city in the same timezone as you: an IANA time zone name (Europe/Paris, UTC) that the local dates of posts and comments are written in.", Type: "string", Context: V | E},
		&schema.Property{Name: content.SettingDefaultCategory, Description: "Default post category.", Type: "integer", Context: V | E},
		&schema.Property{Name: content.SettingDefaultPingStatus, Description: "Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.", Type: "string", Enum: onOff, Context: V | E},
		&schema.Property{Name: content.SettingDefaultCommentStatus, Description: "Allow people to submit comments on new posts.", Type: "string", Enum: onOff, Context: V | E},
		&schema.Property{Name: content.SettingShowAvatars, Description: "Show the avatars of users and commenters (avatar_urls).", Type: "boolean", Context: V | E},
		&schema.Property{Name: content.SettingAllowAnonymousComments, Description: "Let visitors who are not signed in comment.", Type: "boolean", Context: V | E},
		&schema.Property{Name: content.SettingCommentModeration, Description: "Hold every new comment for moderation.", Type: "boolean", Context: V | E},
		&schema.Property{Name: content.SettingCommentPreviouslyApproved, Description: "Approve a comment only when its author already has an approved comment; hold it otherwise.", Type: "boolean", Context: V | E},
		&schema.Property{Name: content.SettingCommentMaxLinks, Description: "Hold a comment for moderation when it has this many links or more (0: no limit).", Type: "integer", Context: V | E},
	)
	rs.Register(ns, "/settings", &rest.Route{
		Schema: func() *schema.Object { return c.schema },
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.permission, Returns: rest.ShapeItem},
			{Methods: rest.Editable, Handler: c.update, Permission: c.permission, Args: c.writeArgs(), Returns: rest.ShapeItem},
		},
	})
}

// writeArgs are the writable settings as arguments, with their bounds and
// the time zone check.
func (c *settingsController) writeArgs() []*rest.Arg {
	args := rest.ArgsFromSchema(c.schema, false)
	for _, a := range args {
		switch a.Name {
		case content.SettingTitle, content.SettingDescription:
			a.MaxLength = content.MaxSettingTextLength
		case content.SettingTimezone:
			a.Validate = func(_ *rest.Request, _ string, v any) error {
				s, _ := v.(string)
				_, err := content.LoadTimezone(s)
				return err
			}
		case content.SettingDefaultCategory:
			a.Minimum = rest.Int(1)
		case content.SettingCommentMaxLinks:
			a.Minimum = rest.Int(0)
		}
	}
	return args
}

// permission allows administrators only (manage_options), for reading as
// for writing.
func (c *settingsController) permission(r *rest.Request) error {
	if !c.site.Can(r.Context(), r.User, "manage_options") {
		return rest.ErrForbidden
	}
	return nil
}

func (c *settingsController) get(r *rest.Request) (*rest.Response, error) {
	st, err := c.site.Settings(r.Context())
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, c.prepare(r, st)), nil
}

func (c *settingsController) update(r *rest.Request) (*rest.Response, error) {
	st, err := c.site.UpdateSettings(r.Context(), c.input(r))
	if err != nil {
		return nil, apiError(r, err)
	}
	return rest.NewResponse(200, c.prepare(r, st)), nil
}

// input is prepare-for-database: the settings the request names. A JSON
// null resets a setting to the configuration file's value.
func (c *settingsController) input(r *rest.Request) content.SettingsPatch {
	var in content.SettingsPatch
	in.Title = optString(r, content.SettingTitle)
	in.Description = optString(r, content.SettingDescription)
	in.Timezone = optString(r, content.SettingTimezone)
	in.DefaultCommentStatus = optString(r, content.SettingDefaultCommentStatus)
	in.DefaultPingStatus = optString(r, content.SettingDefaultPingStatus)
	in.DefaultCategory = optInt(r, content.SettingDefaultCategory)
	in.CommentMaxLinks = optInt(r, content.SettingCommentMaxLinks)
	in.ShowAvatars = optBool(r, content.SettingShowAvatars)
	in.AllowAnonymousComments = optBool(r, content.SettingAllowAnonymousComments)
	in.CommentModeration = optBool(r, content.SettingCommentModeration)
	in.CommentPreviouslyApproved = optBool(r, content.SettingCommentPreviouslyApproved)
	for _, name := range content.SettingNames {
		if v, ok := r.JSON[name]; ok && v == nil {
			in.Reset = append(in.Reset, name)
		}
	}
	return in
}

// prepare builds the settings resource: every setting, in schema order.
func (c *settingsController) prepare(r *rest.Request, st *content.Settings) *rest.Resource {
	res := rest.NewResource(c.schema, schema.Edit)
	url := c.site.Config().Site.URL
	if url == "" {
		url = r.SiteURL("")
	}
	res.Set(content.SettingTitle, st.Title)
	res.Set(content.SettingDescription, st.Description)
	res.Set(content.SettingURL, url)
	res.Set(content.SettingTimezone, st.Timezone)
	res.Set(content.SettingDefaultCategory, st.DefaultCategory)
	res.Set(content.SettingDefaultPingStatus, st.DefaultPingStatus)
	res.Set(content.SettingDefaultCommentStatus, st.DefaultCommentStatus)
	res.Set(content.SettingShowAvatars, st.ShowAvatars)
	res.Set(content.SettingAllowAnonymousComments, st.AllowAnonymousComments)
	res.Set(content.SettingCommentModeration, st.CommentModeration)
	res.Set(content.SettingCommentPreviouslyApproved, st.CommentPreviouslyApproved)
	res.Set(content.SettingCommentMaxLinks, st.CommentMaxLinks)
	return res
}
