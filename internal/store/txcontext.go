package store

import "context"

type txKey struct{}

// WithTx returns a context carrying tx, the store a Tx hands to its fn, so
// that writes further down the same request (hooks, extensions) join that
// transaction instead of opening their own: a store's Tx, and its writes
// made outside a transaction, run inside the transaction ctx carries while
// it is open and belongs to the same database. Reads outside the
// transaction are not redirected.
func WithTx(ctx context.Context, tx Store) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// ContextTx returns the transaction store WithTx put in ctx, and whether
// there is one.
func ContextTx(ctx context.Context) (Store, bool) {
	tx, ok := ctx.Value(txKey{}).(Store)
	return tx, ok
}
