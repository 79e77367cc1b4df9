package rest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/store"
)

// Messages and codes of the errors the boundary produces itself.
const (
	// msgDatabaseUnavailable is the message of the 503 answered while the
	// database cannot be reached or stays locked by another writer.
	msgDatabaseUnavailable = "The database is unavailable. Try again shortly."
	msgNotFound            = "The requested resource was not found."
	msgConflict            = "The resource conflicts with an existing one."
)

// StatusClientClosedRequest is the status recorded for a request whose
// client went away before the answer was ready (nobody receives it).
const StatusClientClosedRequest = 499

// apiError is the error boundary: the one place an error of a handler,
// permission check, upload gate or authenticator becomes an API error.
//
//   - store unavailable or busy (anywhere in the chain, also under an
//     *Error's Cause): 503 rest_database_unavailable with Retry-After;
//   - an *Error: itself (its Cause, if any, is logged);
//   - an *auth.Error: its code, status and Retry-After;
//   - store.ErrNotFound: 404 rest_not_found; store.ErrConflict: 409
//     rest_conflict;
//   - the client going away: 499, logged at debug level only;
//   - anything else: 500 rest_internal_error with a generic message.
//
// No internal error text reaches the client; every 5xx is logged once,
// here, with its cause.
func (s *Server) apiError(req *Request, err error) *Error {
	if errors.Is(err, ErrForbidden) {
		return AuthError(req, "rest_forbidden", msgForbidden)
	}
	if store.Unavailable(err) {
		s.logFailure(req, http.StatusServiceUnavailable, err)
		return &Error{Code: "rest_database_unavailable", Status: http.StatusServiceUnavailable,
			Message: msgDatabaseUnavailable, RetryAfter: store.RetryAfterSeconds}
	}
	var ae *Error
	if errors.As(err, &ae) {
		if ae.Cause != nil {
			// A 5xx the handler chose (rest_cannot_delete, ...) with the
			// failure behind it; one without a cause is an answer of the
			// spec (a refused upload type), not a failure to log.
			s.logFailure(req, ae.HTTPStatus(), err)
		}
		return ae
	}
	var au *auth.Error
	if errors.As(err, &au) {
		e := NewError(au.Code, au.Status, au.Message)
		e.RetryAfter = au.RetryAfterSeconds()
		return e
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NewError("rest_not_found", http.StatusNotFound, msgNotFound)
	case errors.Is(err, store.ErrConflict):
		return NewError("rest_conflict", http.StatusConflict, msgConflict)
	case errors.Is(err, context.Canceled) && req.Context().Err() != nil:
		// The client went away: nothing is wrong with the server, and a
		// client must not be able to fill the log at will.
		s.log.DebugContext(req.Context(), "rest: client closed the request", "method", req.Method, "path", req.Path)
		return NewError("rest_request_canceled", StatusClientClosedRequest, "The client closed the request.")
	}
	s.logFailure(req, http.StatusInternalServerError, err)
	return NewError("rest_internal_error", http.StatusInternalServerError, msgInternal)
}

// logFailure writes the one log line of a failed request: a warning for a
// 503 (the database's state, not a fault of the server), an error for
// anything else, with the cause; the request's context gives the line its
// request id (reqlog.Handler).
func (s *Server) logFailure(req *Request, status int, cause error) {
	if errors.Is(cause, store.ErrSignInMoved) {
		// Not a failure: the request runs again (store.SignInCheck).
		return
	}
	if ae, ok := cause.(*Error); ok && ae.Cause != nil {
		cause = ae.Cause
	}
	level := slog.LevelError
	if status == http.StatusServiceUnavailable {
		level = slog.LevelWarn
	}
	s.log.Log(req.Context(), level, "rest: request failed", "method", req.Method, "path", req.Path, "status", status, "err", cause)
}
