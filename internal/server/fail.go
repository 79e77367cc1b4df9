package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/folio-server/folio/internal/media"
	"github.com/folio-server/folio/internal/store"
)

// fail answers a request for one of the site's own pages (setup, sign-out,
// uploaded files) that could not be served, as the API's error boundary
// does: 503 with Retry-After while the database or the upload storage is
// unavailable or busy, 500 otherwise, with a plain message that carries no
// internal text. The cause is logged once, here, with the request's id.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	if store.Unavailable(err) || errors.Is(err, media.ErrUnavailable) {
		s.logger.WarnContext(r.Context(), what, "status", http.StatusServiceUnavailable, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(store.RetryAfterSeconds))
		http.Error(w, "503 the site is temporarily unavailable; please try again in a moment", http.StatusServiceUnavailable)
		return
	}
	s.logger.ErrorContext(r.Context(), what, "status", http.StatusInternalServerError, "err", err)
	http.Error(w, "500 internal server error", http.StatusInternalServerError)
}
