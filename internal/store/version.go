package store

import "context"

type versionKey struct{}

// WithVersion returns a context carrying v, a write version the caller has
// just read from Store.Version, so that code further down the same request
// (caches keyed by the version) need not read it again.
func WithVersion(ctx context.Context, v int64) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// ContextVersion returns the write version WithVersion put in ctx, and
// whether there is one.
func ContextVersion(ctx context.Context) (int64, bool) {
	v, ok := ctx.Value(versionKey{}).(int64)
	return v, ok
}
