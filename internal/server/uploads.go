package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/media"
)

// UploadsPrefix is the URL path uploaded files are served under.
const UploadsPrefix = "/uploads/"

// serveUploads serves an uploaded file (an original or a generated size)
// from the blob storage. Only files owned by an attachment the caller may
// read are served: media of a private or draft post stay hidden from
// callers who cannot read that post (the request is authenticated as API
// requests are). Responses carry the type of the file's extension,
// X-Content-Type-Options: nosniff, and the ETag, Range and 304 handling of
// http.ServeContent. Only images (not SVG), audio, video and PDF are shown
// in place: every other type is sent with Content-Disposition: attachment,
// so it is downloaded, never rendered in the site's origin. Everything but
// PDF (whose viewer a sandbox blocks) also gets Content-Security-Policy:
// sandbox, so a file opened directly runs no script with the site's origin
// even in a browser that ignores the other two.
func (s *Server) serveUploads(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	key := strings.TrimPrefix(r.URL.Path, UploadsPrefix)
	if key == "" || path.Clean("/"+key) != "/"+key {
		http.NotFound(w, r)
		return
	}
	ctx := r.Context()
	u, err := s.authenticate(r)
	if err != nil {
		authFailed(w, err)
		return
	}
	p, ok, err := s.site.MediaFile(ctx, u, key)
	if err != nil {
		s.fail(w, r, "serving upload "+key, err)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	obj, err := s.site.Blobs().Open(ctx, key)
	if errors.Is(err, media.ErrNotExist) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, "serving upload "+key, err)
		return
	}
	defer obj.Close()

	h := w.Header()
	ctype, known := s.site.MediaTypes().MimeOf(key)
	if !known {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	if !media.ServedInline(ctype) {
		d := mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(key)})
		if d == "" {
			d = "attachment"
		}
		h.Set("Content-Disposition", d)
	}
	if ctype != "application/pdf" {
		h.Set("Content-Security-Policy", "sandbox")
	}
	if s.site.CanRead(ctx, nil, p) {
		h.Set("Cache-Control", "public, max-age=86400")
	} else {
		h.Set("Cache-Control", "private, no-cache")
		h.Set("Vary", "Authorization, Cookie")
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%d", key, obj.Size(), obj.ModTime().UnixNano()))
	h.Set("ETag", `"`+hex.EncodeToString(sum[:12])+`"`)
	http.ServeContent(w, r, path.Base(key), obj.ModTime(), obj)
}

// MediaSweepInterval is how often upload names left reserved by a process
// that died mid-upload are looked for.
const MediaSweepInterval = 15 * time.Minute

// MediaReservationMaxAge is how old an unattached upload reservation must
// be before it is swept: far longer than any upload takes.
const MediaReservationMaxAge = time.Hour

// sweepMediaReservations removes stale upload reservations and their
// files, and temporary upload files (of local blobs) not written to for
// MediaReservationMaxAge, at start and then every MediaSweepInterval until
// ctx ends. Several nodes may run it at once.
func (s *Server) sweepMediaReservations(ctx context.Context) {
	t := time.NewTicker(MediaSweepInterval)
	defer t.Stop()
	for {
		if n, err := s.site.SweepMediaReservations(ctx, MediaReservationMaxAge); err != nil && ctx.Err() == nil {
			s.logger.Warn("sweeping media reservations", "err", err)
		} else if n > 0 {
			s.logger.Info("swept media reservations", "count", n)
		}
		if n, err := s.site.SweepUploadTemps(MediaReservationMaxAge); err != nil {
			s.logger.Warn("sweeping temporary upload files", "err", err)
		} else if n > 0 {
			s.logger.Info("swept temporary upload files", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// authFailed answers a request whose credentials were refused: the
// authenticator's status (401, 403, or 429 with Retry-After), or 401 when
// the failure was not about the credentials.
func authFailed(w http.ResponseWriter, err error) {
	status := http.StatusUnauthorized
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Status != 0 {
		status = ae.Status
		if secs := ae.RetryAfterSeconds(); secs > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
	}
	http.Error(w, strconv.Itoa(status)+" "+strings.ToLower(http.StatusText(status)), status)
}
