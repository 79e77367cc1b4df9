package store

import (
	"context"
	"errors"
	"sync/atomic"
)

// ErrSignInMoved is the error of a write transaction whose SignInCheck
// found the sign-in moved on: the transaction is rolled back, and the
// request that made it runs again with the sign-in read first.
var ErrSignInMoved = errors.New("store: the sign-in moved on since it was kept")

// SignInCheck is a request's promise about its sign-in, to be checked
// before anything the request does is committed or answered. A request
// signed in with a kept sign-in reads the authentication generation, the
// site generation and its login counter (UserAppPasswordsStore's
// AuthGeneration) before it runs, one round trip of its own. Where the
// store can check them with the first statement of a write transaction
// instead (SignInDeferrer), a write request may go on with what the last
// read of Key returned (Gen, Counter): its first write transaction reads
// them again with its first statement and refuses to commit when they
// differ (ErrSignInMoved), and a request that wrote nothing reads them
// before it answers (Verify). Either way what the request does stands, and
// what it answers is sent, only once the sign-in is known to be what it
// was; otherwise the request runs again from its start.
type SignInCheck struct {
	// Key is the login counter's key (AuthGeneration's counterKey).
	Key string
	// Gen and Counter are what the last read of Key returned.
	Gen     Generations
	Counter LoginCounter
	// Read reads the sign-in now (AuthGeneration of Key), for Verify.
	Read func(ctx context.Context) (Generations, LoginCounter, error)

	state atomic.Int32 // signIn*
}

const (
	signInUnchecked int32 = iota
	signInHeld
	signInMoved
)

// Unchecked reports whether nothing has read the sign-in since the
// request began.
func (c *SignInCheck) Unchecked() bool { return c.state.Load() == signInUnchecked }

// Moved reports whether a read found the sign-in moved on.
func (c *SignInCheck) Moved() bool { return c.state.Load() == signInMoved }

// Observe records a read of the sign-in, gen and counter, and reports
// whether it is still what was kept. The first read decides: a later one
// changes nothing (a sign-in found held stays held for the request, as one
// read at its start would have).
func (c *SignInCheck) Observe(gen Generations, counter LoginCounter) bool {
	same := gen == c.Gen && sameCounter(counter, c.Counter)
	want := signInMoved
	if same {
		want = signInHeld
	}
	c.state.CompareAndSwap(signInUnchecked, want)
	return c.state.Load() == signInHeld
}

// Verify reads the sign-in now unless a read already has, and reports
// whether it is still what was kept.
func (c *SignInCheck) Verify(ctx context.Context) (bool, error) {
	if c.Unchecked() {
		gen, counter, err := c.Read(ctx)
		if err != nil {
			return false, err
		}
		c.Observe(gen, counter)
	}
	return c.state.Load() == signInHeld, nil
}

func sameCounter(a, b LoginCounter) bool {
	return a.Key == b.Key && a.Failures == b.Failures && a.Last.Equal(b.Last) && a.Next.Equal(b.Next)
}

type signInCheckKey struct{}

// WithSignInCheck returns ctx carrying c: the write transactions begun
// with it check c with their first statement where the store can
// (SignInDeferrer).
func WithSignInCheck(ctx context.Context, c *SignInCheck) context.Context {
	return context.WithValue(ctx, signInCheckKey{}, c)
}

// ContextSignInCheck returns the SignInCheck ctx carries, or nil.
func ContextSignInCheck(ctx context.Context) *SignInCheck {
	c, _ := ctx.Value(signInCheckKey{}).(*SignInCheck)
	return c
}

// SignInDeferrer is a store whose write transactions check the
// SignInCheck their context carries with their first statement, in its
// round trip, and refuse to commit (ErrSignInMoved) when it moved on.
type SignInDeferrer interface {
	DefersSignIn() bool
}

type signInDeferKey struct{}

// WithSignInDeferred returns ctx marking a request that may go on with a
// kept sign-in and have it checked later (SignInCheck): one whose answer
// the server holds back until then and can run again from its start.
func WithSignInDeferred(ctx context.Context) context.Context {
	return context.WithValue(ctx, signInDeferKey{}, true)
}

// SignInDeferred reports whether ctx is marked by WithSignInDeferred.
func SignInDeferred(ctx context.Context) bool {
	v, _ := ctx.Value(signInDeferKey{}).(bool)
	return v
}
