package store

import (
	"context"
	"sync/atomic"
)

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

type siteGenerationKey struct{}

// WithSiteGeneration returns a context carrying g, the site generation
// (Generations.Site) the caller read for the request, so that what keeps
// the site's options or webhooks may use them without reading them again
// while g is theirs.
func WithSiteGeneration(ctx context.Context, g int64) context.Context {
	return context.WithValue(ctx, siteGenerationKey{}, g)
}

// ContextSiteGeneration returns the site generation WithSiteGeneration
// put in ctx, and whether there is one.
func ContextSiteGeneration(ctx context.Context) (int64, bool) {
	g, ok := ctx.Value(siteGenerationKey{}).(int64)
	return g, ok
}

// KeptAt keeps the last value read at a store version or generation,
// for readers that carry the one they read (ContextVersion,
// ContextSiteGeneration). A value read after the reader read at is at
// least as new as at; an older one never replaces a newer. The zero
// value is empty and ready; it is safe for concurrent use.
type KeptAt[T any] struct {
	p atomic.Pointer[keptAt[T]]
}

type keptAt[T any] struct {
	at  int64
	val T
}

// Get returns the value kept for at, if the kept one is of at.
func (k *KeptAt[T]) Get(at int64) (T, bool) {
	if e := k.p.Load(); e != nil && e.at == at {
		return e.val, true
	}
	var zero T
	return zero, false
}

// Keep keeps val, read at or after at, unless a value of a later one is
// kept already.
func (k *KeptAt[T]) Keep(at int64, val T) {
	next := &keptAt[T]{at: at, val: val}
	for {
		cur := k.p.Load()
		if (cur != nil && cur.at > at) || k.p.CompareAndSwap(cur, next) {
			return
		}
	}
}
