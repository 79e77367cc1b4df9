package endpoints

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/folio-server/folio/internal/content"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/rest"
	"github.com/folio-server/folio/internal/schema"
	"github.com/folio-server/folio/internal/store"
)

// uploadRetryAfter is the Retry-After, in seconds, of an upload refused
// because the image queue is full.
const uploadRetryAfter = 5

// mediaController serves attachments (reference §10.3). It is the posts
// controller of the attachment type with the upload, the media fields and
// the media collection filters on top.
type mediaController struct {
	*postsController
}

func newMediaController(site *content.Site, pt *content.PostType, names rest.Names) *mediaController {
	c := &mediaController{postsController: newPostsController(site, pt, names)}
	c.schema = mediaSchema(c.schema, site, names.WordPress)
	return c
}

func (c *mediaController) register(rs *rest.Server, ns string) {
	itemSchema := func() *schema.Object { return c.schema }
	rs.Register(ns, "/"+c.pt.RestBase, &rest.Route{
		Schema: itemSchema,
		Upload: true,
		// Uploads stream into the blob storage's temporary area, so
		// that local blobs take the finished file by a rename.
		UploadTemp: func() (*os.File, error) { return media.CreateTemp(c.site.Blobs()) },
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.list, Permission: c.listPermission, Args: c.mediaCollectionParams()},
			{Methods: rest.Creatable, Handler: c.create, Permission: c.createPermission, UploadGate: c.canUpload, Args: rest.ArgsFromSchema(c.schema, true)},
		},
	})
	rs.Register(ns, "/"+c.pt.RestBase+`/(?P<id>[\d]+)`, &rest.Route{
		Schema:   itemSchema,
		Prefetch: c.prefetch,
		// Metadata updates and deletes may be batched; uploads (the
		// collection route) may not, as a batch body is JSON.
		AllowBatch: true,
		Endpoints: []*rest.Endpoint{
			{Methods: rest.Readable, Handler: c.get, Permission: c.getPermission, Args: []*rest.Arg{contextArg("view")}},
			{Methods: rest.Editable, Handler: c.update, Permission: c.updatePermission, Args: rest.ArgsFromSchema(c.schema, false)},
			{Methods: rest.Deletable, Handler: c.delete, Permission: c.deletePermission, Args: []*rest.Arg{
				{Name: "force", Description: "Whether to bypass trash and force deletion.", Type: "boolean", Default: false},
			}},
		},
	})
}

// mediaSchema adds the attachment fields to the post schema of the type.
// caption and description are strings, as the spec has them, or
// {raw, rendered} objects in the WordPress-compatibility mode (objects),
// as WordPress 4.7+ clients expect.
func mediaSchema(o *schema.Object, site *content.Site, objects bool) *schema.Object {
	V, E, M := schema.View, schema.Edit, schema.Embed
	rawRendered := func(what string) []*schema.Property {
		return []*schema.Property{
			{Name: "raw", Description: what + " for the object, as it exists in the database.", Type: "string", Context: E},
			{Name: "rendered", Description: "HTML " + strings.ToLower(what) + " for the object, transformed for display.", Type: "string", Context: V | E},
		}
	}
	o.Add(&schema.Property{Name: "alt_text", Description: "Alternative text to display when attachment is not displayed.", Type: "string", Context: V | E | M})
	if objects {
		o.Add(&schema.Property{Name: "caption", Description: "The caption for the resource.", Type: "object", Context: V | E, Properties: rawRendered("Caption")})
		o.Add(&schema.Property{Name: "description", Description: "The description for the resource.", Type: "object", Context: V | E, Properties: rawRendered("Description")})
	} else {
		o.Add(&schema.Property{Name: "caption", Description: "The caption for the resource (HTML, filtered as post content).", Type: "string", Context: V | E})
		o.Add(&schema.Property{Name: "description", Description: "The description for the resource (HTML, filtered as post content).", Type: "string", Context: V | E})
	}
	o.Add(&schema.Property{Name: "media_type", Description: "Type of resource.", Type: "string", Enum: []string{"image", "file"}, Context: V | E | M, Readonly: true})
	o.Add(&schema.Property{Name: "mime_type", Description: "Mime type of resource.", Type: "string", Context: V | E | M, Readonly: true})
	o.Add(&schema.Property{Name: "media_details", Description: "Details about the resource file, specific to its type.", Type: "object", Context: V | E | M, Readonly: true})
	o.Add(&schema.Property{Name: "post", Description: "The id for the associated post of the resource.", Type: "integer", Context: V | E})
	o.Add(&schema.Property{Name: "source_url", Description: "URL to the original resource file.", Type: "string", Format: "uri", Context: V | E | M, Readonly: true})
	return o
}

func (c *mediaController) mediaCollectionParams() []*rest.Arg {
	var args []*rest.Arg
	for _, a := range c.collectionParams() {
		if a.Name == "status" {
			args = append(args, &rest.Arg{Name: "status", Description: "Limit result set to posts assigned a specific status (inherit, private or trash; anything else is inherit).",
				Type: "string", Default: "inherit", Sanitize: sanitizeMediaStatus, Validate: c.validateMediaStatus})
			continue
		}
		args = append(args, a)
		if a.Name == "orderby" {
			args = append(args,
				&rest.Arg{Name: "parent", Description: "Limit result set to those of particular parent ids.", Type: "array", Items: "integer", Default: []int64{}},
				&rest.Arg{Name: "parent_exclude", Description: "Limit result set to all items except those of a particular parent id.", Type: "array", Items: "integer", Default: []int64{}},
			)
		}
	}
	return append(args,
		&rest.Arg{Name: "media_type", Description: "Limit result set to attachments of a particular media type.", Type: "string", Enum: c.site.MediaTypes().Categories()},
		&rest.Arg{Name: "mime_type", Description: "Limit result set to attachments of a particular mime type.", Type: "string"},
	)
}

// sanitizeMediaStatus keeps inherit, private and trash and turns any other
// value into inherit: media have no other statuses (reference §6), so an
// unknown one is discarded rather than refused.
func sanitizeMediaStatus(r *rest.Request, name string, v any) (any, error) {
	s, _ := sanitizeKey(r, name, v)
	switch s {
	case "inherit", "private", "trash":
		return s, nil
	}
	return "inherit", nil
}

// validateMediaStatus lets everyone ask for inherit (the default); private
// and trash need the type's edit_posts.
func (c *mediaController) validateMediaStatus(r *rest.Request, _ string, v any) error {
	if s, _ := v.(string); s == "inherit" || r.User.HasCap(c.pt.Caps.EditPosts) {
		return nil
	}
	return rest.NewError("rest_forbidden_status", 400, "Status is forbidden")
}

// ---- permissions ----

// canUpload is creation rule 1: the caller may upload media at all. It is
// also the create endpoint's UploadGate, so a file from a caller who may
// not upload is refused before it is received.
func (c *mediaController) canUpload(r *rest.Request) error {
	caps := c.pt.Caps
	if !r.User.HasCap(caps.CreatePosts) || !r.User.HasCap(caps.EditPosts) {
		return rest.AuthError(r, "rest_cannot_create", "Sorry, you are not allowed to upload media on this site.")
	}
	return nil
}

// createPermission applies creation rules 1 and 2 (reference §5.3).
func (c *mediaController) createPermission(r *rest.Request) error {
	if err := c.writeChecks(r, "create"); err != nil {
		return err
	}
	if err := c.canUpload(r); err != nil {
		return err
	}
	if id := r.Int("post"); r.Has("post") && id != 0 {
		parent, err := c.load(r, id)
		if err != nil {
			return err
		}
		if parent == nil || !c.site.Can(r.Context(), r.User, "edit_post", parent) {
			return rest.AuthError(r, "rest_cannot_edit", "Sorry, you are not allowed to upload media to this post.")
		}
	}
	return nil
}

// ---- handlers ----

func (c *mediaController) get(r *rest.Request) (*rest.Response, error) {
	return getItem(r, c.loadOwn, errPostNotFound, c.prepareMediaOne, func(resp *rest.Response, p *store.Post, res *rest.Resource) {
		setAlternate(resp, res, p.Status == "inherit")
	})
}

// upload takes the file of a create request, which the server streamed
// into a temporary file while reading the body: the multipart part
// "file", else the raw body with its Content-Type and Content-Disposition.
// A raw body the server read into memory (a JSON one) is written to a
// temporary file here.
func (c *mediaController) upload(r *rest.Request) (content.Upload, error) {
	up := content.Upload{MD5: r.Header.Get("Content-MD5")}
	f := r.Upload
	if f != nil && f.Header != nil {
		up.Name = media.MultipartFileName(f.Header.Get("Content-Disposition"))
		if up.Name == "" {
			up.Name = f.Filename
		}
		fillUpload(&up, f)
		return up, nil
	}
	if isForm(r) {
		return up, rest.NewError("rest_upload_no_data", 400, "No data supplied.")
	}
	up.Raw = true
	if (f == nil || f.Size == 0) && len(r.Body) == 0 {
		return up, rest.NewError("rest_upload_no_data", 400, "No data supplied.")
	}
	if r.Header.Get("Content-Type") == "" {
		return up, rest.NewError("rest_upload_no_content_type", 400, "No Content-Type supplied.")
	}
	values := r.Header.Values("Content-Disposition")
	if len(values) == 0 {
		return up, rest.NewError("rest_upload_no_content_disposition", 400, "No Content-Disposition supplied.")
	}
	up.Name = media.ParseDisposition(values)
	if up.Name == "" {
		return up, rest.NewError("rest_upload_invalid_disposition", 400, `Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `+"`"+`attachment; filename="image.png"`+"`"+` or similar.`)
	}
	if f == nil {
		tmp, err := media.CreateTemp(c.site.Blobs())
		if err != nil {
			return up, rest.NewError("rest_upload_file_error", 500, "Could not write the uploaded file.")
		}
		f, err = rest.SpoolUpload(tmp, bytes.NewReader(r.Body))
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
			return up, rest.NewError("rest_upload_file_error", 500, "Could not write the uploaded file.")
		}
		r.Upload = f
	}
	fillUpload(&up, f)
	return up, nil
}

func fillUpload(up *content.Upload, f *rest.UploadFile) {
	up.File, up.Size, up.Sum, up.Head = f.File, f.Size, f.MD5, f.Head
}

// isForm reports whether the request body is a form (urlencoded or
// multipart) rather than a raw file.
func isForm(r *rest.Request) bool {
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	return strings.HasPrefix(ct, "multipart/form-data") || strings.HasPrefix(ct, "application/x-www-form-urlencoded")
}

// publicBase is the URL of the uploads root.
func (c *mediaController) publicBase(r *rest.Request) string {
	if u := c.site.Config().Media.PublicURL; u != "" {
		return u
	}
	return r.SiteURL("/uploads")
}

func (c *mediaController) mediaInput(r *rest.Request) (content.MediaInput, error) {
	var in content.MediaInput
	var err error
	if in.PostInput, err = c.input(r); err != nil {
		return in, err
	}
	if r.Has("alt_text") {
		s := r.String("alt_text")
		in.AltText = &s
	}
	if in.Caption, err = textField(r, "caption", false); err != nil {
		return in, err
	}
	if in.Description, err = textField(r, "description", false); err != nil {
		return in, err
	}
	if r.Has("post") {
		n := r.Int("post")
		in.Post = &n
	}
	return in, nil
}

func (c *mediaController) create(r *rest.Request) (*rest.Response, error) {
	if r.Has("id") && r.Int("id") != 0 {
		return nil, rest.NewError("rest_post_exists", 400, "Cannot create existing post.")
	}
	// Rule 3 comes before anything is read.
	if r.Has("post") {
		if err := c.site.CheckMediaParent(r.Context(), r.Int("post")); err != nil {
			return nil, apiError(r, err)
		}
	}
	up, err := c.upload(r)
	if err != nil {
		return nil, err
	}
	in, err := c.mediaInput(r)
	if err != nil {
		return nil, err
	}
	p, m, err := c.site.CreateMedia(r.Context(), r.User, up, in, c.publicBase(r))
	if err != nil {
		e := apiError(r, err)
		var ce *content.Error
		if re, ok := e.(*rest.Error); ok && errors.As(err, &ce) && (ce.Code == "rest_upload_queue_full" || ce.Code == "rest_upload_storage_unavailable") {
			// The image queue is full or the storage is down for a moment:
			// the client is told when to try again.
			re.RetryAfter = uploadRetryAfter
		}
		return nil, e
	}
	r.Cache()[postKey(p.ID)] = p
	r.Cache()[mediaKey(p.ID)] = m
	res, err := c.prepareMediaOne(r, p, schema.Edit)
	if err != nil {
		return nil, err
	}
	c.site.InsertAttachmentHook(r.Context(), p, m, r, true)
	resp := rest.NewResponse(201, res)
	resp.SetHeader("Location", r.URL(c.base+"/"+strconv.FormatInt(p.ID, 10)))
	return resp, nil
}

func (c *mediaController) update(r *rest.Request) (*rest.Response, error) {
	if r.Has("post") {
		if err := c.site.CheckMediaParent(r.Context(), r.Int("post")); err != nil {
			return nil, apiError(r, err)
		}
	}
	old, err := loadItem(r, c.loadOwn, errPostInvalidID)
	if err != nil {
		return nil, err
	}
	in, err := c.mediaInput(r)
	if err != nil {
		return nil, err
	}
	ms, err := c.site.GetMedia(r.Context(), []int64{old.ID})
	if err != nil {
		return nil, err
	}
	p, m, err := c.site.UpdateMedia(r.Context(), r.User, old, ms[old.ID], in)
	if err != nil {
		return nil, apiError(r, err)
	}
	r.Cache()[postKey(p.ID)] = p
	r.Cache()[mediaKey(p.ID)] = m
	c.site.InsertAttachmentHook(r.Context(), p, m, r, false)
	res, err := c.prepareMediaOne(r, p, schema.Edit)
	if err != nil {
		return nil, err
	}
	return rest.NewResponse(200, res), nil
}

func (c *mediaController) delete(r *rest.Request) (*rest.Response, error) {
	p, err := loadItem(r, c.loadOwn, errPostNotFound)
	if err != nil {
		return nil, err
	}
	if !r.Bool("force") && !c.site.Trashable(c.pt, p) {
		return nil, rest.NewError("rest_trash_not_supported", 501, "The post does not support trashing.")
	}
	res, err := c.prepareMediaOne(r, p, schema.Edit)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	if r.Bool("force") {
		if err := c.site.DeleteMedia(ctx, p); err != nil {
			return nil, cannotDelete(r, "The post cannot be deleted.", err)
		}
	} else {
		if p.Status == "trash" {
			return nil, rest.NewError("rest_already_trashed", 410, "The post has already been deleted.")
		}
		if err := c.site.TrashPost(ctx, p); err != nil {
			return nil, cannotDelete(r, "The post cannot be deleted.", err)
		}
	}
	delete(r.Cache(), postKey(p.ID))
	return rest.NewResponse(200, res), nil
}

// ---- collection ----

func (c *mediaController) list(r *rest.Request) (*rest.Response, error) {
	q, page, perPage, err := c.query(r)
	if err != nil {
		return nil, err
	}
	if r.Has("parent") {
		q.Parents, q.ParentsSet = r.IDs("parent"), true
	}
	q.ParentExclude = r.IDs("parent_exclude")
	q.ParentVisibility = c.site.ParentVisibility(r.User)
	types := c.site.MediaTypes()
	if mt := r.String("media_type"); mt != "" {
		q.MimePrefixes = []string{mt + "/"}
	}
	if mt := strings.ToLower(r.String("mime_type")); mt != "" && types.Allows(mt) {
		q.MimeTypes = []string{mt}
	}
	posts, total, err := c.site.ListPosts(r.Context(), q)
	if err != nil {
		return nil, err
	}
	res, err := c.prepareMediaMany(r, posts, requestContext(r))
	if err != nil {
		return nil, err
	}
	resp := rest.NewResponse(200, res)
	resp.Paginate(r, total, page, perPage)
	return resp, nil
}

// ---- prepare for response ----

// mediaKey caches loaded file records in the request-scoped cache.
type mediaKey int64

func (c *mediaController) prepareMediaOne(r *rest.Request, p *store.Post, ctx schema.Context) (*rest.Resource, error) {
	out, err := c.prepareMediaMany(r, []*store.Post{p}, ctx)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// prepareMediaMany builds the post part with the posts controller, then
// adds the media fields from the file records, loaded in one query.
func (c *mediaController) prepareMediaMany(r *rest.Request, posts []*store.Post, ctx schema.Context) ([]*rest.Resource, error) {
	out, err := c.prepareMany(r, posts, ctx)
	if err != nil {
		return nil, err
	}
	cache := r.Cache()
	var missing []int64
	// The file records feed alt_text, media_details and source_url only.
	needFiles := r.Wants("alt_text") || r.Wants("media_details") || r.Wants("source_url")
	for _, p := range posts {
		if _, ok := cache[mediaKey(p.ID)]; !ok && needFiles {
			missing = append(missing, p.ID)
		}
	}
	if len(missing) > 0 {
		got, err := c.site.GetMedia(r.Context(), missing)
		if err != nil {
			return nil, err
		}
		for _, id := range missing {
			cache[mediaKey(id)] = got[id]
		}
	}
	base := c.publicBase(r)
	for i, p := range posts {
		m, _ := cache[mediaKey(p.ID)].(*store.Media)
		c.prepareMedia(r, out[i], p, m, base)
	}
	return out, nil
}

func (c *mediaController) prepareMedia(r *rest.Request, res *rest.Resource, p *store.Post, m *store.Media, base string) {
	alt := ""
	file := ""
	if m != nil {
		alt, file = m.AltText, m.File
	}
	res.Set("alt_text", alt)
	switch {
	case !c.names.WordPress:
		// The stored values, filtered by the HTML allow-list on write.
		res.Set("caption", p.Excerpt)
		res.Set("description", p.Content)
	default:
		if r.Wants("caption") {
			res.Set("caption", map[string]any{"raw": p.Excerpt, "rendered": c.site.RenderExcerpt(p)})
		}
		if r.Wants("description") {
			res.Set("description", map[string]any{"raw": p.Content, "rendered": c.site.RenderContent(p)})
		}
	}
	res.Set("media_type", content.MediaType(p.MimeType))
	res.Set("mime_type", p.MimeType)
	if r.Wants("media_details") {
		res.Set("media_details", mediaDetails(content.Details(m), base, p.MimeType))
	}
	if p.Parent != 0 {
		res.Set("post", p.Parent)
	} else {
		res.Set("post", nil)
	}
	if file != "" {
		res.Set("source_url", base+"/"+file)
	} else {
		res.Set("source_url", p.GUID)
	}
	c.site.PrepareAttachmentHook(r.Context(), p, res, r)
}

// mediaDetails builds media_details in the original's key order: for
// images width, height, file, sizes (each size, then full when at least one
// size exists) and image_meta; {} for other files.
func mediaDetails(d content.MediaDetails, base, mimeType string) *rest.Keyed {
	k := rest.NewKeyed()
	if d.Width == 0 && d.File == "" {
		return k
	}
	folder := ""
	if i := strings.LastIndexByte(d.File, '/'); i >= 0 {
		folder = d.File[:i+1]
	}
	k.Add("width", d.Width)
	k.Add("height", d.Height)
	k.Add("file", d.File)
	sizes := rest.NewKeyed()
	for _, s := range d.Sizes {
		sizes.Add(s.Name, sizeEntry(s.File, s.Width, s.Height, s.MimeType, base+"/"+folder+s.File))
	}
	if len(d.Sizes) > 0 {
		full := d.File[len(folder):]
		sizes.Add("full", sizeEntry(full, d.Width, d.Height, mimeType, base+"/"+d.File))
	}
	k.Add("sizes", sizes)
	if d.ImageMeta != nil {
		k.Add("image_meta", d.ImageMeta)
	}
	return k
}

func sizeEntry(file string, w, h int, mimeType, url string) *rest.Keyed {
	k := rest.NewKeyed()
	k.Add("file", file)
	k.Add("width", w)
	k.Add("height", h)
	k.Add("mime_type", mimeType)
	k.Add("source_url", url)
	return k
}
