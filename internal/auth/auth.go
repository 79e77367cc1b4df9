// Package auth holds Folio's identity and permission model: roles and their
// capabilities, the signed-in User, the resolver that maps meta capabilities
// such as edit_post on one post to primitive capabilities, password hashing,
// and the authenticators that turn a request into a User.
//
// The model follows the original platform's (reference §5): a user holds the
// capabilities of its roles plus capabilities granted or denied directly;
// every per-object check goes through Authorizer.MapMetaCap.
package auth

import (
	"fmt"
	"net/http"
	"time"
)

// Error is an authentication failure reported by an Authenticator. The rest
// layer renders it as an error response with Code, Message and Status.
type Error struct {
	Code    string
	Message string
	Status  int
	// RetryAfter, when positive, is sent as the Retry-After header (in
	// whole seconds, rounded up).
	RetryAfter time.Duration
}

// Error returns the code and the message.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// RetryAfterSeconds returns RetryAfter in whole seconds, rounded up; 0
// when there is none.
func (e *Error) RetryAfterSeconds() int {
	if e.RetryAfter <= 0 {
		return 0
	}
	return int((e.RetryAfter + time.Second - 1) / time.Second)
}

// Authenticator recognises one kind of credentials on a request.
//
// Authenticate returns (nil, nil) when no credentials of its kind are
// present, the signed-in user when they are present and valid, and an error
// (an *Error for bad credentials) otherwise. A request with bad credentials
// never falls back to anonymous (decisions #14).
type Authenticator interface {
	Authenticate(r *http.Request) (*User, error)
}

// Chain returns a function that tries the authenticators in order: the first
// one that returns a user or an error decides; when none does, the request is
// anonymous (nil, nil).
func Chain(as ...Authenticator) func(r *http.Request) (*User, error) {
	list := append([]Authenticator(nil), as...)
	return func(r *http.Request) (*User, error) {
		for _, a := range list {
			u, err := a.Authenticate(r)
			if err != nil {
				return nil, err
			}
			if u != nil {
				return u, nil
			}
		}
		return nil, nil
	}
}
