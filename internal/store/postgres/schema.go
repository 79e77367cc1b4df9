package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
)

// TempSchema creates a new, empty schema named prefix_<random> in the
// database url names and returns a URL whose connections work in it
// (search_path) and a function that drops the schema with everything in
// it. Tests and benchmarks use it to stay out of each other's way.
func TempSchema(ctx context.Context, dbURL, prefix string) (schemaURL string, drop func() error, err error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("postgres: schema name: %w", err)
	}
	schema := prefix + "_" + hex.EncodeToString(b[:])
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", nil, fmt.Errorf("postgres: parse database url: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	exec := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			return fail("connect", err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fail("schema", err)
		}
		return nil
	}
	ident := pgx.Identifier{schema}.Sanitize()
	if err := exec(ctx, `CREATE SCHEMA `+ident); err != nil {
		return "", nil, err
	}
	drop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return exec(ctx, `DROP SCHEMA `+ident+` CASCADE`)
	}
	return u.String(), drop, nil
}

// Analyze refreshes the planner statistics of the posts tables (posts,
// post_search, post_counts) in the schema the database url names. The
// server leaves this to autovacuum; a test that has just loaded a site
// calls it so that its queries are not planned on the statistics of
// empty tables.
func Analyze(ctx context.Context, dbURL string) error {
	return onPostsTables(ctx, dbURL, "analyze", `ANALYZE posts, post_search, post_counts`)
}

// VacuumAnalyze vacuums the posts tables and refreshes their statistics,
// which autovacuum does on its own soon after a bulk load (its insert
// threshold): the visibility map it sets lets index-only scans skip the
// table, and readers no longer set each row's hint bits. A benchmark that
// has just bulk-loaded a site calls it, so that it measures the site as
// a server with autovacuum would serve it, whether or not the database
// it runs on has autovacuum on.
func VacuumAnalyze(ctx context.Context, dbURL string) error {
	return onPostsTables(ctx, dbURL, "vacuum", `VACUUM (ANALYZE) posts, post_search, post_counts`)
}

// onPostsTables runs the statement query on a connection of its own.
func onPostsTables(ctx context.Context, dbURL, what, query string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fail("connect", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, query); err != nil {
		return fail(what, err)
	}
	return nil
}
