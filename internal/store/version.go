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
