package content

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/render"
	"github.com/folio-server/folio/internal/store"
)

// AttachmentType is the post type of media.
const AttachmentType = "attachment"

// mediaState holds the upload machinery, built on first use from the
// configuration unless SetBlobs was called first.
type mediaState struct {
	once  sync.Once
	mu    sync.RWMutex
	blobs media.Blobs
	types *media.Types
	proc  *media.Processor
	err   error
}

func (s *Site) initMedia() {
	s.media.once.Do(func() {
		types, err := media.ParseTypes(s.cfg.Media.AllowedTypes)
		if err != nil {
			s.media.err = err
			types = media.DefaultTypes()
		}
		s.media.types = types
		budget := s.cfg.Media.ImageMemoryBytes
		if budget == 0 {
			budget = config.DefaultImageMemoryBytes
		}
		s.media.proc = media.NewProcessor(media.ProcessorConfig{
			MaxPixels:    s.cfg.Media.MaxImagePixels,
			Workers:      s.cfg.Media.ImageWorkers,
			MemoryBudget: budget,
			Queue:        s.cfg.Media.ImageQueueLen(),
		})
		s.media.mu.Lock()
		if s.media.blobs == nil {
			s.media.blobs, err = media.NewLocal(s.cfg.UploadsDir())
			if err != nil && s.media.err == nil {
				s.media.err = err
			}
		}
		s.media.mu.Unlock()
	})
}

// SetBlobs replaces the blob storage uploads go to (the server sets the
// configured one; tests set theirs).
func (s *Site) SetBlobs(b media.Blobs) {
	s.media.mu.Lock()
	s.media.blobs = b
	s.media.mu.Unlock()
}

// Blobs returns the blob storage of uploads.
func (s *Site) Blobs() media.Blobs {
	s.initMedia()
	s.media.mu.RLock()
	defer s.media.mu.RUnlock()
	return s.media.blobs
}

// MediaTypes returns the allowlist of upload file types.
func (s *Site) MediaTypes() *media.Types {
	s.initMedia()
	return s.media.types
}

// ImageProcessor returns the processor that decodes uploaded images and
// bounds that work (workers, memory budget, queue).
func (s *Site) ImageProcessor() *media.Processor {
	s.initMedia()
	return s.media.proc
}

// MediaConfigError reports a bad media configuration (allowed types).
func (s *Site) MediaConfigError() error {
	s.initMedia()
	return s.media.err
}

// MediaSize is one generated size of an image, as stored.
type MediaSize struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	MimeType string `json:"mime_type"`
}

// MediaDetails is the stored media_details of an attachment.
type MediaDetails struct {
	Width     int              `json:"width,omitempty"`
	Height    int              `json:"height,omitempty"`
	File      string           `json:"file,omitempty"`
	Sizes     []MediaSize      `json:"sizes,omitempty"`
	ImageMeta *media.ImageMeta `json:"image_meta,omitempty"`
}

// Details decodes m's media_details; an unreadable record gives empty
// details.
func Details(m *store.Media) MediaDetails {
	var d MediaDetails
	if m != nil && m.Details != "" {
		_ = json.Unmarshal([]byte(m.Details), &d)
	}
	return d
}

// MediaType returns the media_type of a MIME type: image for the image
// types Folio processes, file otherwise.
func MediaType(mimeType string) string {
	if media.IsImage(mimeType) {
		return "image"
	}
	return "file"
}

// Upload is a file sent to the media collection, already received into a
// temporary file.
type Upload struct {
	// Name is the file name the client gave (not yet sanitized).
	Name string
	// File holds the Size bytes of the upload. CreateMedia stores it with
	// media.PutFile, which for local blobs moves it into place; closing
	// and removing what is left is the caller's.
	File *os.File
	Size int64
	// Sum is the MD5 digest of the bytes, taken while they were received.
	Sum [md5.Size]byte
	// Head is the first bytes of the file (at least the first 1024 when it
	// has that many), for content sniffing.
	Head []byte
	// MD5 is the Content-MD5 header, "" when absent.
	MD5 string
	// Raw is true for a raw body upload, false for a multipart form; it
	// selects the error code of rejected files (reference §10.3).
	Raw bool
}

// MediaInput carries the writable attachment fields of a request; nil
// means "not sent".
type MediaInput struct {
	PostInput
	AltText     *string
	Caption     *string
	Description *string
	// Post is the parent post id (0 detaches).
	Post *int64
}

// CheckMediaParent applies creation rule 3: a parent that is a revision or
// an attachment is an invalid parameter.
func (s *Site) CheckMediaParent(ctx context.Context, parent int64) error {
	if parent == 0 {
		return nil
	}
	p, ok, err := s.GetPost(ctx, parent)
	if err != nil {
		return err
	}
	if ok && (p.Type == RevisionType || p.Type == AttachmentType) {
		return &Error{Code: "rest_invalid_param", Message: "Invalid parent type.", Status: 400,
			Data: map[string]any{"params": map[string]any{"post": "Invalid parent type."}}}
	}
	return nil
}

var numericTitle = regexp.MustCompile(`^[0-9\s.,]+$`)

// CreateMedia stores an uploaded file and its attachment record (creation
// rules 3 to 5; the controller checked 1 and 2). Files are written first,
// under names reserved in the store; when the record cannot be stored the
// files are removed again, so a failure leaves no record and no orphan.
// publicBase is the URL of the uploads root, for the GUID.
func (s *Site) CreateMedia(ctx context.Context, u *auth.User, up Upload, in MediaInput, publicBase string) (*store.Post, *store.Media, error) {
	if in.Post != nil {
		if err := s.CheckMediaParent(ctx, *in.Post); err != nil {
			return nil, nil, err
		}
	}
	if h := strings.TrimSpace(up.MD5); h != "" {
		if !strings.EqualFold(h, hex.EncodeToString(up.Sum[:])) {
			return nil, nil, &Error{Code: "rest_upload_hash_mismatch", Message: "Content hash did not match expected.", Status: 412}
		}
	}
	rejected := func(msg string) *Error {
		code := "rest_upload_unknown_error"
		if up.Raw {
			code = "rest_upload_sideload_error"
		}
		return &Error{Code: code, Message: msg, Status: 500}
	}
	types := s.MediaTypes()
	name := media.SanitizeFileName(up.Name)
	if name == "" || media.Ext(name) == "" {
		if ext := media.Ext(media.SanitizeFileName("x" + up.Name)); ext != "" {
			name = "unnamed-file." + ext
		}
	}
	var mimeType string
	err := media.ErrEmptyFile
	if up.Size > 0 && up.File != nil {
		name, mimeType, err = types.Check(name, up.Head, s.Can(ctx, u, "unfiltered_html"))
	}
	switch {
	case errors.Is(err, media.ErrEmptyFile):
		return nil, nil, rejected("File is empty. Please upload something more substantial.")
	case errors.Is(err, media.ErrActiveType):
		return nil, nil, errBad("rest_upload_invalid_type",
			"Sorry, you are not allowed to upload this file type: it could run scripts in the browsers of the site's visitors.")
	case errors.Is(err, media.ErrSniffedType):
		return nil, nil, errBad("rest_upload_sniffed_type_not_allowed",
			"Sorry, the content of this file does not match its file type, and it could run scripts in the browsers of the site's visitors.")
	case err != nil:
		return nil, nil, rejected("Sorry, this file type is not permitted for security reasons.")
	}

	pt, _ := s.types.Get(AttachmentType)
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, nil, err
	}
	p := &store.Post{Type: AttachmentType, Status: "inherit", Author: u.ID(), MimeType: mimeType,
		CommentStatus: set.DefaultCommentStatus, PingStatus: "closed"}
	if in.Status != nil && *in.Status != "private" {
		in.Status = nil
	}
	if err := s.apply(ctx, u, pt, p, in.PostInput, true, set); err != nil {
		return nil, nil, err
	}

	details := MediaDetails{}
	var info *media.ImageInfo
	if media.IsImage(mimeType) {
		s.initMedia()
		info, err = s.media.proc.ProcessFile(ctx, up.File, up.Size, mimeType)
		switch {
		case errors.Is(err, media.ErrTooManyPixels):
			return nil, nil, rejected("The image is too large to be processed: it has more pixels than the site allows.")
		case errors.Is(err, media.ErrOverBudget):
			return nil, nil, rejected("The image is too large to be processed: decoding it would take more memory than the site allows.")
		case errors.Is(err, media.ErrBusy):
			return nil, nil, &Error{Code: "rest_upload_queue_full", Status: 503,
				Message: "Too many images are being processed. Try again shortly."}
		case errors.Is(err, media.ErrBadImage):
			return nil, nil, rejected("The image could not be read: its content is damaged or not of its type.")
		case err != nil:
			return nil, nil, rejected(fmt.Sprintf("The image could not be processed: %v", err))
		}
		SanitizeImageMeta(&info.Meta)
	}

	now := s.Now()
	local := WallClock(now, set.Location())
	folder := fmt.Sprintf("%04d/%02d", local.Year(), int(local.Month()))
	blobs := s.Blobs()
	if blobs == nil {
		return nil, nil, rejected("The upload storage is not configured.")
	}
	// storeFailed is the error for a failed write of the file or a size:
	// 503 when the storage is unavailable (the client may try again),
	// else the upload error without the storage's internal detail.
	storeFailed := func(err error) *Error {
		if errors.Is(err, media.ErrUnavailable) {
			return &Error{Code: "rest_upload_storage_unavailable", Status: 503,
				Message: "The upload storage is unavailable. Try again shortly."}
		}
		return rejected(fmt.Sprintf("The uploaded file could not be moved to %s.", folder))
	}
	file, paths, err := s.reserveNames(ctx, blobs, folder, name, info)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) || errors.Is(err, context.Canceled) {
			return nil, nil, err
		}
		return nil, nil, storeFailed(err)
	}
	release := func() {
		cleanup := context.WithoutCancel(ctx)
		for _, p := range paths {
			_ = blobs.Delete(cleanup, p)
		}
		_ = s.st.ReleaseMediaPaths(cleanup, paths)
	}
	base := media.Ext(file)
	base = strings.TrimSuffix(file[strings.LastIndexByte(file, '/')+1:], "."+base)
	if err := media.PutFile(ctx, blobs, file, up.File, up.Size, mimeType); err != nil {
		release()
		return nil, nil, storeFailed(err)
	}
	if info != nil {
		details.Width, details.Height, details.File = info.Width, info.Height, file
		meta := info.Meta
		details.ImageMeta = &meta
		for _, r := range info.Sizes {
			sized := media.SizedName(base+".x", r.Ext, r.Width, r.Height)
			details.Sizes = append(details.Sizes, MediaSize{Name: r.Name, File: sized, Width: r.Width, Height: r.Height, MimeType: r.Mime})
			key := folder + "/" + sized
			if err := blobs.Put(ctx, key, bytes.NewReader(r.Data), int64(len(r.Data)), r.Mime); err != nil {
				release()
				return nil, nil, storeFailed(err)
			}
		}
	}

	if p.Title == "" {
		switch {
		case info != nil && info.Meta.Title != "" && !numericTitle.MatchString(info.Meta.Title):
			p.Title = render.KSESPost(info.Meta.Title)
		default:
			p.Title = base
		}
	}
	if in.Post != nil {
		p.Parent = *in.Post
	}
	if in.Caption != nil {
		p.Excerpt = render.KSESPost(*in.Caption)
	} else if info != nil && info.Meta.Caption != "" {
		p.Excerpt = render.KSESPost(info.Meta.Caption)
	}
	if in.Description != nil {
		p.Content = render.KSESPost(*in.Description)
	}
	m := &store.Media{File: file, Details: "{}"}
	if in.AltText != nil {
		m.AltText = render.PlainText(*in.AltText)
	}
	if info != nil {
		js, err := json.Marshal(details)
		if err != nil {
			release()
			return nil, nil, err
		}
		m.Details = string(js)
	}
	p.GUID = publicBase + "/" + file
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := s.finishSlug(ctx, tx, pt, p); err != nil {
			return err
		}
		if err := tx.InsertPost(ctx, p); err != nil {
			return err
		}
		if p.Slug == "" {
			p.Slug = fmt.Sprint(p.ID)
			if err := tx.UpdatePost(ctx, p); err != nil {
				return err
			}
		}
		m.PostID = p.ID
		if err := tx.PutMedia(ctx, m); err != nil {
			return err
		}
		if err := tx.AttachMediaPaths(ctx, p.ID, paths); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "media", Type: pt.Name, Action: "created", ID: p.ID, Record: p})
	})
	if err != nil {
		p.ID = 0
		release()
		return nil, nil, &Error{Code: "db_update_error", Message: "Could not insert attachment into the database.", Status: 500,
			Data: map[string]any{"cause": errorCause(err)}, Cause: err}
	}
	return p, m, nil
}

// SanitizeImageMeta makes the text an image carries about itself (EXIF and
// IPTC: title, caption, credit, camera, copyright, keywords, ...) plain
// text, as the original's sanitize_text_field does: tags are stripped,
// invalid UTF-8 dropped and white space collapsed. The caption keeps its
// line breaks; empty keywords are dropped.
func SanitizeImageMeta(m *media.ImageMeta) {
	for _, f := range []*string{&m.Aperture, &m.Credit, &m.Camera, &m.CreatedTimestamp, &m.Copyright,
		&m.FocalLength, &m.ISO, &m.ShutterSpeed, &m.Title, &m.Orientation} {
		*f = render.PlainText(*f)
	}
	lines := strings.Split(strings.ReplaceAll(m.Caption, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = render.PlainText(l)
	}
	m.Caption = strings.TrimSpace(strings.Join(lines, "\n"))
	kw := make([]string, 0, len(m.Keywords))
	for _, k := range m.Keywords {
		if k = render.PlainText(k); k != "" {
			kw = append(kw, k)
		}
	}
	m.Keywords = kw
}

// errorCause is a short, safe description of a storage failure.
func errorCause(err error) string {
	if store.Unavailable(err) {
		return "database unavailable"
	}
	return "storage failure"
}

// reserveNames picks the first free name in folder for the original and
// its sizes ("name.ext", "name-1.ext", ...) and reserves every path in the
// store. A name counts as taken when the store has it or a file already
// sits there.
func (s *Site) reserveNames(ctx context.Context, blobs media.Blobs, folder, name string, info *media.ImageInfo) (string, []string, error) {
	for n := 0; n < 10000; n++ {
		cand := media.Candidate(name, n)
		file := folder + "/" + cand
		paths := []string{file}
		if info != nil {
			seen := map[string]bool{file: true}
			for _, r := range info.Sizes {
				sized := folder + "/" + media.SizedName(cand, r.Ext, r.Width, r.Height)
				if !seen[sized] {
					seen[sized] = true
					paths = append(paths, sized)
				}
			}
		}
		taken := false
		for _, p := range paths {
			exists, err := blobs.Exists(ctx, p)
			if err != nil {
				return "", nil, err
			}
			if exists {
				taken = true
				break
			}
		}
		if taken {
			continue
		}
		err := s.st.ReserveMediaPaths(ctx, paths)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return file, paths, nil
	}
	return "", nil, errors.New("no free file name")
}

// UpdateMedia applies in to the stored attachment old (whose file record
// is m, nil when it has none).
func (s *Site) UpdateMedia(ctx context.Context, u *auth.User, old *store.Post, m *store.Media, in MediaInput) (*store.Post, *store.Media, error) {
	if in.Post != nil {
		if err := s.CheckMediaParent(ctx, *in.Post); err != nil {
			return nil, nil, err
		}
	}
	pt, ok := s.types.Get(AttachmentType)
	if !ok || old.Type != AttachmentType {
		return nil, nil, errBad("rest_post_invalid_id", "Post id is invalid.")
	}
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, nil, err
	}
	p := *old
	if err := s.apply(ctx, u, pt, &p, in.PostInput, false, set); err != nil {
		return nil, nil, err
	}
	if in.Post != nil {
		p.Parent = *in.Post
	}
	if in.Caption != nil {
		p.Excerpt = render.KSESPost(*in.Caption)
	}
	if in.Description != nil {
		p.Content = render.KSESPost(*in.Description)
	}
	nm := &store.Media{PostID: p.ID, Details: "{}"}
	if m != nil {
		c := *m
		nm = &c
	}
	if in.AltText != nil {
		nm.AltText = render.PlainText(*in.AltText)
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := s.finishSlug(ctx, tx, pt, &p); err != nil {
			return err
		}
		if err := tx.UpdatePost(ctx, &p); err != nil {
			return err
		}
		if err := s.syncPostComments(ctx, tx, old, &p); err != nil {
			return err
		}
		if m != nil || in.AltText != nil {
			if err := tx.PutMedia(ctx, nm); err != nil {
				return err
			}
		}
		return s.changed(ctx, tx, Change{Kind: "media", Type: pt.Name, Action: "updated", ID: p.ID, Record: &p, Old: old})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("update attachment %d: %w", p.ID, err)
	}
	return &p, nm, nil
}

// DeleteMedia removes an attachment for good: every file it owns (the
// original and all its sizes) first, so that a failure leaves the record
// to retry with, then the record.
func (s *Site) DeleteMedia(ctx context.Context, p *store.Post) error {
	paths, err := s.st.MediaPaths(ctx, p.ID)
	if err != nil {
		return fmt.Errorf("delete attachment %d: %w", p.ID, err)
	}
	blobs := s.Blobs()
	for _, path := range paths {
		if err := blobs.Delete(ctx, path); err != nil {
			return fmt.Errorf("delete attachment %d: %w", p.ID, err)
		}
	}
	err = s.write(ctx, func(ctx context.Context, tx store.Store) error {
		if err := tx.ReleaseMediaPaths(ctx, paths); err != nil {
			return err
		}
		if err := s.deletePostDependents(ctx, tx, p); err != nil {
			return err
		}
		if err := tx.DeletePost(ctx, p.ID); err != nil {
			return err
		}
		return s.changed(ctx, tx, Change{Kind: "media", Type: "attachment", Action: "deleted", ID: p.ID, Record: p})
	})
	if err != nil {
		return fmt.Errorf("delete attachment %d: %w", p.ID, err)
	}
	return nil
}

// GetMedia loads the file records of many attachments in one query.
func (s *Site) GetMedia(ctx context.Context, ids []int64) (map[int64]*store.Media, error) {
	return s.st.GetMedia(ctx, ids)
}

// ParentVisibility returns, for every type media can be attached to, the
// restriction that keeps it to what u may read, so that a media query
// drops media of posts u cannot read (the beta10 privacy rule).
func (s *Site) ParentVisibility(u *auth.User) map[string]*store.Visibility {
	out := map[string]*store.Visibility{}
	for _, pt := range s.types.All() {
		if pt.ShowInRest && pt.Name != AttachmentType {
			out[pt.Name] = s.Visibility(u, pt)
		}
	}
	return out
}

// MediaFile resolves an upload path to the attachment owning it, for
// serving files: ok is false when no readable attachment owns path (an
// unknown path, an upload in flight, or media of a post u cannot read).
func (s *Site) MediaFile(ctx context.Context, u *auth.User, path string) (*store.Post, bool, error) {
	id, err := s.st.MediaPathOwner(ctx, path)
	if errors.Is(err, store.ErrNotFound) || (err == nil && id == 0) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	p, ok, err := s.GetPost(ctx, id)
	if err != nil || !ok {
		return nil, false, err
	}
	if !s.CanRead(ctx, u, p) {
		return p, false, nil
	}
	return p, true, nil
}

// sweepBatch is how many stale reservations one sweep step handles.
const sweepBatch = 200

// SweepMediaReservations removes upload names that were reserved more
// than olderThan ago and never attached to an attachment (the process
// died between reserving them and storing the record) together with any
// file written under them. Files go first and the reservations after, so
// a failure part-way leaves reservations for the next sweep to retry. A
// path attached meanwhile keeps its reservation. It returns how many
// reservations were removed. Several nodes may sweep at once.
func (s *Site) SweepMediaReservations(ctx context.Context, olderThan time.Duration) (int, error) {
	blobs := s.Blobs()
	if blobs == nil {
		return 0, nil
	}
	cutoff := time.Now().Add(-olderThan)
	total := 0
	for {
		paths, err := s.st.StaleMediaReservations(ctx, cutoff, sweepBatch)
		if err != nil {
			return total, fmt.Errorf("sweep media reservations: %w", err)
		}
		if len(paths) == 0 {
			return total, nil
		}
		for _, p := range paths {
			if err := blobs.Delete(ctx, p); err != nil {
				return total, fmt.Errorf("sweep media reservations: %w", err)
			}
		}
		if err := s.st.ReleaseMediaReservations(ctx, paths); err != nil {
			return total, fmt.Errorf("sweep media reservations: %w", err)
		}
		total += len(paths)
		if len(paths) < sweepBatch {
			return total, nil
		}
	}
}

// SweepUploadTemps removes temporary upload files last written more than
// olderThan ago (a process died while receiving or storing them) from the
// blob storage's temporary area, for local blobs; see media.SweepTemp. It
// returns how many it removed.
func (s *Site) SweepUploadTemps(olderThan time.Duration) (int, error) {
	blobs := s.Blobs()
	if blobs == nil {
		return 0, nil
	}
	n, err := media.SweepTemp(blobs, time.Now().Add(-olderThan))
	if err != nil {
		return n, fmt.Errorf("sweep upload temporary files: %w", err)
	}
	return n, nil
}
