package endpoints

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/forwarded"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// commentsController serves /comments and /comments/<id> (reference §10.4).
type commentsController struct {
	site  *content.Site
	names rest.Names
	base  string // "svc/v2/comments"
	// write is the schema the write arguments were made from; items is
	// the cached item schema, which follows the avatar sizes.
	write *schema.Object
	items *avatarSchema
}

func newCommentsController(site *content.Site, names rest.Names) *commentsController {
	c := &commentsController{site: site, names: names, base: names.Namespace + "/comments"}
	c.items = newAvatarSchema(site, commentSchema)
	c.write = c.items.current()
	return c
}

func (c *commentsController) register(rs *rest.Server, ns string) {
	c.items.registered(rs)
	itemSchema := c.items.current
	rs.Register(ns, "/comments", &rest.Route{
		Schema:     itemSchema,
		Prefetch:   c.prefetchLists,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.listPermission, Args: c.collectionParams()},
			{Methods: rest.Creatable, Handler: c.create, Permission: c.createPermission, Args: c.writeArgs(true)},
		},
	})
	rs.Register(ns, `/comments/(?P<id>[\d]+)`, &rest.Route{
		Schema:     itemSchema,
		Prefetch:   c.prefetch,
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.getPermission, Args: []*rest.Arg{
				contextArg("view"),
				{Name: "password", Description: "The password for the post if it is password protected.", Type: "string"},
			}},
			{Methods: rest.Editable, Handler: c.update, Permission: c.updatePermission, Args: c.writeArgs(false)},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.deletePermission, Args: []*rest.Arg{
				{Name: "force", Description: "Whether to bypass trash and force deletion.", Type: "boolean", Default: false},
			}},
		},
	})
}

// commentSchema builds the comment item schema in output order (reference
// §10.4); author_avatar_urls is present only when sizes is not empty.
func commentSchema(sizes []int) *schema.Object {
	V, E, M := schema.View, schema.Edit, schema.Embed
	o := schema.NewObject("comment",
		&schema.Property{Name: "id", Description: "Unique identifier for the object.", Type: "integer", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "post", Description: "The id of the associated post object.", Type: "integer", Context: V | E, Default: int64(0)},
		&schema.Property{Name: "parent", Description: "The id for the parent of the object.", Type: "integer", Context: V | E | M, Default: int64(0)},
		&schema.Property{Name: "author", Description: "The id of the user object, if author was a user.", Type: "integer", Context: V | E | M},
		&schema.Property{Name: "author_name", Description: "Display name for the object author.", Type: "string", Context: V | E | M, Default: ""},
		&schema.Property{Name: "author_email", Description: "Email address for the object author.", Type: "string", Format: "email", Context: E},
		&schema.Property{Name: "author_url", Description: "URL for the object author.", Type: "string", Format: "uri", Context: V | E | M},
		&schema.Property{Name: "author_ip", Description: "IP address for the object author.", Type: "string", Context: E, Readonly: true},
		&schema.Property{Name: "author_user_agent", Description: "User agent for the object author.", Type: "string", Context: E, Readonly: true},
		&schema.Property{Name: "date", Description: "The date the object was published.", Type: "string", Format: "date-time", Context: V | E | M},
		&schema.Property{Name: "date_gmt", Description: "The date the object was published as GMT.", Type: "string", Format: "date-time", Context: V | E},
		&schema.Property{Name: "content", Description: "The content for the object.", Type: "object", Context: V | E | M, Default: "", Properties: []*schema.Property{
			{Name: "raw", Description: "Content for the object, as it exists in the database.", Type: "string", Context: E},
			{Name: "rendered", Description: "HTML content for the object, transformed for display.", Type: "string", Context: V | E | M},
		}},
		&schema.Property{Name: "karma", Description: "Karma for the object.", Type: "integer", Context: E},
		&schema.Property{Name: "link", Description: "URL to the object.", Type: "string", Format: "uri", Context: V | E | M, Readonly: true},
		&schema.Property{Name: "status", Description: "State of the object.", Type: "string", Context: V | E},
		&schema.Property{Name: "type", Description: "Type of Comment for the object.", Type: "string", Context: V | E | M, Default: ""},
	)
	if p := avatarURLs("author_avatar_urls", "Avatar URLs for the object author.", sizes); p != nil {
		o.Add(p)
	}
	return o
}

// writeArgs are the create (creating) or update arguments: the writable
// schema properties with the original's sanitizers.
func (c *commentsController) writeArgs(creating bool) []*rest.Arg {
	args := rest.ArgsFromSchema(c.write, creating)
	for _, a := range args {
		switch a.Name {
		case "author_name":
			a.Sanitize = sanitizeCommentText
		case "status", "type":
			a.Sanitize = sanitizeKey
		case "karma":
			a.Sanitize = rest.AbsInt
		}
	}
	return args
}

// sanitizeCommentText is sanitize_text_field for a string parameter.
func sanitizeCommentText(_ *rest.Request, name string, v any) (any, error) {
	s, ok := schema.ScalarString(v)
	if !ok {
		return nil, fmt.Errorf("%s is not of type string", name)
	}
	return schema.SanitizeTextField(s), nil
}

func (c *commentsController) collectionParams() []*rest.Arg {
	args := collectionArgs()
	return append(args,
		&rest.Arg{Name: "after", Description: "Limit response to resources published after a given ISO8601 compliant date.", Type: "string", Format: "date-time"},
		&rest.Arg{Name: "author", Description: "Limit result set to comments assigned to specific user ids. Requires authorization.", Type: "array", Items: "integer"},
		&rest.Arg{Name: "author_exclude", Description: "Ensure result set excludes comments assigned to specific user ids. Requires authorization.", Type: "array", Items: "integer"},
		&rest.Arg{Name: "author_email", Description: "Limit result set to that from a specific author email. Requires authorization.", Type: "string", Format: "email"},
		&rest.Arg{Name: "before", Description: "Limit response to resources published before a given ISO8601 compliant date.", Type: "string", Format: "date-time"},
		&rest.Arg{Name: "exclude", Description: "Ensure result set excludes specific ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "include", Description: "Limit result set to specific ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "karma", Description: "Limit result set to that of a particular comment karma. Requires authorization.", Type: "integer", Sanitize: rest.AbsInt},
		&rest.Arg{Name: "offset", Description: "Offset the result set by a specific number of comments.", Type: "integer", Sanitize: rest.AbsInt},
		&rest.Arg{Name: "order", Description: "Order sort attribute ascending or descending.", Type: "string", Default: "asc", Enum: []string{"asc", "desc"}, Sanitize: sanitizeKey},
		&rest.Arg{Name: "orderby", Description: "Sort collection by object attribute.", Type: "string", Default: "date_gmt",
			Enum: []string{"date", "date_gmt", "id", "include", "post", "parent", "type"}, Sanitize: sanitizeKey},
		&rest.Arg{Name: "parent", Description: "Limit result set to resources of specific parent ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "parent_exclude", Description: "Ensure result set excludes specific parent ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "post", Description: "Limit result set to resources assigned to specific post ids.", Type: "array", Items: "integer", Default: []int64{}},
		&rest.Arg{Name: "status", Description: "Limit result set to comments assigned a specific status. Requires authorization.", Type: "string", Default: "approve", Sanitize: sanitizeKey},
		&rest.Arg{Name: "type", Description: "Limit result set to comments assigned a specific type. Requires authorization.", Type: "string", Default: "comment", Sanitize: sanitizeKey},
		&rest.Arg{Name: "password", Description: "The password for the post if it is password protected.", Type: "string"},
	)
}

// commentKey caches loaded comments in the request-scoped cache.
type commentKey int64

func (c *commentsController) load(r *rest.Request) (*store.Comment, error) {
	id := r.Int("id")
	if id <= 0 {
		return nil, nil
	}
	return cachedLoad[commentKey](r, id, c.site.GetComment)
}

// prefetch batch-loads the comments of many embedded item requests (the
// in-reply-to links of a page of comments).
func (c *commentsController) prefetch(reqs []*rest.Request) {
	var postIDs []int64
	for _, cm := range prefetchByID[commentKey](reqs, c.site.GetComments) {
		postIDs = append(postIDs, cm.PostID)
	}
	if len(postIDs) > 0 {
		_, _ = c.posts(reqs[0], postIDs)
	}
}

// posts loads the posts with the given ids (0 skipped) through the request
// cache the posts controller shares, in one query for those not cached.
func (c *commentsController) posts(r *rest.Request, ids []int64) (map[int64]*store.Post, error) {
	cache := r.Cache()
	out := make(map[int64]*store.Post, len(ids))
	var missing []int64
	for _, id := range ids {
		if id <= 0 {
			continue
		}
		if v, ok := cache[postKey(id)]; ok {
			if p, _ := v.(*store.Post); p != nil {
				out[id] = p
			}
			continue
		}
		if !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := c.site.GetPosts(r.Context(), missing)
	if err != nil {
		return nil, err
	}
	for _, id := range missing {
		if p, ok := got[id]; ok {
			cache[postKey(id)] = p
			out[id] = p
		} else {
			cache[postKey(id)] = (*store.Post)(nil)
		}
	}
	return out, nil
}

// post returns the post of cm, nil when it has none or it is missing.
func (c *commentsController) post(r *rest.Request, cm *store.Comment) (*store.Post, error) {
	if cm.PostID == 0 {
		return nil, nil
	}
	m, err := c.posts(r, []int64{cm.PostID})
	if err != nil {
		return nil, err
	}
	return m[cm.PostID], nil
}

func errCommentInvalidID() error {
	return rest.NewError("rest_comment_invalid_id", 404, "Invalid comment id.")
}

// ---- permissions ----

func (c *commentsController) listPermission(r *rest.Request) error {
	u := r.User
	postIDs := r.IDs("post")
	if len(postIDs) > 0 {
		posts, err := c.posts(r, postIDs)
		if err != nil {
			return err
		}
		password := ""
		if len(postIDs) == 1 {
			password = r.String("password")
		}
		for _, id := range postIDs {
			if p, ok := posts[id]; id != 0 && ok && !c.site.CanReadPostComments(r.Context(), u, p, password) {
				return rest.AuthError(r, "rest_cannot_read_post", "Sorry, you cannot read the post for this comment.")
			} else if id == 0 && !u.HasCap("moderate_comments") {
				return rest.AuthError(r, "rest_cannot_read", "Sorry, you cannot read comments without a post.")
			}
		}
	}
	if r.ContextName() == "edit" && !u.HasCap("moderate_comments") {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you cannot view comments with edit context.")
	}
	// Filters need edit_posts (reference §5.4); those on what only
	// moderators see (author_email and karma are edit-context fields) need
	// moderate_comments, so that nobody else can probe them.
	editor, moderator := u.HasCap("edit_posts"), u.HasCap("moderate_comments")
	var forbidden []string
	for _, f := range []struct {
		name           string
		given, allowed bool
	}{
		{"author", len(r.IDs("author")) > 0, editor},
		{"author_exclude", len(r.IDs("author_exclude")) > 0, editor},
		{"karma", r.Int("karma") != 0, moderator},
		{"author_email", r.String("author_email") != "", moderator},
		{"type", r.String("type") != "comment", editor},
		{"status", r.String("status") != "approve", editor},
	} {
		if f.given && !f.allowed {
			forbidden = append(forbidden, f.name)
		}
	}
	if len(forbidden) > 0 {
		return rest.AuthError(r, "rest_forbidden_param", "Query parameter not permitted: "+strings.Join(forbidden, ", "))
	}
	return nil
}

func (c *commentsController) getPermission(r *rest.Request) error {
	cm, err := c.load(r)
	if err != nil || cm == nil {
		return err // the handler answers 404
	}
	post, err := c.post(r, cm)
	if err != nil {
		return err
	}
	if !c.site.CanReadComment(r.Context(), r.User, cm, post, r.String("password")) {
		if cm.Approved == store.CommentApproved {
			// An approved comment is unreadable only through its post.
			return rest.AuthError(r, "rest_cannot_read_post", "Sorry, you cannot read the post for this comment.")
		}
		return rest.AuthError(r, "rest_cannot_read", "Sorry, you cannot read this comment.")
	}
	if r.ContextName() == "edit" && !r.User.HasCap("moderate_comments") {
		return rest.AuthError(r, "rest_forbidden_context", "Sorry, you cannot view this comment with edit context.")
	}
	return nil
}

func (c *commentsController) createPermission(r *rest.Request) error {
	in := content.CommentCreateCheck{
		StatusGiven: r.Has("status"),
		Post:        r.Int("post"),
		Password:    r.String("password"),
	}
	in.Author = optInt(r, "author")
	in.Karma = optInt(r, "karma")
	if err := c.site.CheckCreateComment(r.Context(), r.User, in); err != nil {
		return apiError(r, err)
	}
	return nil
}

func (c *commentsController) updatePermission(r *rest.Request) error {
	cm, err := c.load(r)
	if err != nil || cm == nil {
		return err
	}
	post, err := c.post(r, cm)
	if err != nil {
		return err
	}
	if !c.site.CanEditComment(r.Context(), r.User, post) {
		return rest.AuthError(r, "rest_cannot_edit", "Sorry, you can not edit this comment.")
	}
	return nil
}

func (c *commentsController) deletePermission(r *rest.Request) error {
	cm, err := loadItem(r, c.load, errCommentInvalidID)
	if err != nil {
		return err
	}
	post, err := c.post(r, cm)
	if err != nil {
		return err
	}
	if !c.site.CanEditComment(r.Context(), r.User, post) {
		return rest.AuthError(r, "rest_cannot_delete", "Sorry, you can not delete this comment.")
	}
	return nil
}

// ---- handlers ----

func (c *commentsController) get(r *rest.Request) (*rest.Response, error) {
	cm, err := loadItem(r, c.load, errCommentInvalidID)
	if err != nil {
		return nil, err
	}
	if cm.PostID != 0 {
		post, err := c.post(r, cm)
		if err != nil {
			return nil, err
		}
		if post == nil {
			return nil, errInvalidID(404)
		}
	}
	res, err := c.prepareOne(r, cm, requestContext(r))
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, res), nil
}

// input is prepare-for-database: the request's fields as a domain input.
func (c *commentsController) input(r *rest.Request) (content.CommentInput, error) {
	var in content.CommentInput
	var err error
	if in.Content, err = textField(r, "content", false); err != nil {
		return in, err
	}
	in.Post = optInt(r, "post")
	in.Parent = optInt(r, "parent")
	in.Author = optInt(r, "author")
	in.Karma = optInt(r, "karma")
	in.AuthorName = optString(r, "author_name")
	in.AuthorEmail = optString(r, "author_email")
	in.AuthorURL = optString(r, "author_url")
	in.Type = optString(r, "type")
	in.Status = optString(r, "status")
	if in.Date, in.DateGMT, err = dateFields(r); err != nil {
		return in, err
	}
	return in, nil
}

// origin returns the client's address (forwarded.ClientIP: a forwarding
// header counts from trusted proxies only) and user agent.
func origin(r *rest.Request) content.CommentOrigin {
	var o content.CommentOrigin
	if r.HTTP != nil {
		o.IP = forwarded.ClientIP(r.HTTP)
		o.UserAgent = forwarded.UserAgent(r.HTTP)
	}
	if len(o.UserAgent) > 254 {
		o.UserAgent = o.UserAgent[:254]
	}
	return o
}

func (c *commentsController) create(r *rest.Request) (*rest.Response, error) {
	if r.Has("id") && r.Int("id") != 0 {
		return nil, rest.NewError("rest_comment_exists", 400, "Cannot create existing comment.")
	}
	in, err := c.input(r)
	if err != nil {
		return nil, err
	}
	// Create defaults (empty name and content, post and parent 0, type
	// comment) are the declared defaults of the arguments.
	if in.Content == nil {
		empty := ""
		in.Content = &empty
	}
	cm, err := c.site.CreateComment(r.Context(), r.User, in, origin(r), r)
	var ce *content.Error
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		// comment_flood: the client is told when it may comment again.
		resp := rest.NewResponse(ce.Status, apiError(r, err))
		resp.SetHeader("Retry-After", strconv.Itoa(max(1, int((ce.RetryAfter+time.Second-1)/time.Second))))
		return resp, nil
	}
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[commentKey(cm.ID)] = cm
	ctx := schema.View
	if r.User.HasCap("moderate_comments") {
		ctx = schema.Edit
	}
	res, err := c.prepareOne(r, cm, ctx)
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(201, res)
	resp.SetHeader("Location", r.URL(c.base+"/"+strconv.FormatInt(cm.ID, 10)))
	c.site.InsertCommentHook(r.Context(), cm, r, true)
	return resp, nil
}

func (c *commentsController) update(r *rest.Request) (*rest.Response, error) {
	old, err := loadItem(r, c.load, errCommentInvalidID)
	if err != nil {
		return nil, err
	}
	in, err := c.input(r)
	if err != nil {
		return nil, err
	}
	cm, err := c.site.UpdateComment(r.Context(), r.User, old, in)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[commentKey(cm.ID)] = cm
	res, err := c.prepareOne(r, cm, schema.Edit)
	if err != nil {
		return nil, err
	}
	c.site.InsertCommentHook(r.Context(), cm, r, false)
	return rest.NewResponse(200, res), nil
}

func (c *commentsController) delete(r *rest.Request) (*rest.Response, error) {
	cm, err := loadItem(r, c.load, errCommentInvalidID)
	if err != nil {
		return nil, err
	}
	res, err := c.prepareOne(r, cm, schema.Edit)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	if r.Bool("force") {
		err = c.site.DeleteComment(ctx, cm)
	} else {
		if !c.site.CommentTrashable(cm) {
			return nil, rest.NewError("rest_trash_not_supported", 501, "The comment does not support trashing.")
		}
		if cm.Approved == store.CommentTrash {
			return nil, rest.NewError("rest_already_trashed", 410, "The comment has already been trashed.")
		}
		err = c.site.TrashComment(ctx, cm)
	}
	if err != nil {
		return nil, cannotDelete(r, "The comment cannot be deleted.", err)
	}
	delete(r.Cache(), commentKey(cm.ID))
	c.site.DeleteCommentHook(ctx, cm, res, r)
	return rest.NewResponse(200, res), nil
}
