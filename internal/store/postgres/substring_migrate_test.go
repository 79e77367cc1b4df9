package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/migrate"
	"github.com/folio-server/folio/internal/store/postgres"
	"github.com/folio-server/folio/internal/store/storetest"
)

// migrateBefore applies the migrations before version to the database db
// is open on.
func migrateBefore(t *testing.T, db *postgres.DB, version int64) {
	t.Helper()
	all, err := migrate.Load(os.DirFS("migrations"))
	if err != nil {
		t.Fatal(err)
	}
	var before []migrate.Migration
	for _, m := range all {
		if m.Version < version {
			before = append(before, m)
		}
	}
	sdb := stdlib.OpenDBFromPool(db.Pool())
	defer sdb.Close()
	r := &migrate.Runner{Migrations: before, Placeholder: func(n int) string { return fmt.Sprintf("$%d", n) }}
	if _, err := r.Up(context.Background(), sdb); err != nil {
		t.Fatal(err)
	}
}

// Migration 0019 indexes the users, terms and comments a site already has:
// searches of three characters or more, which read the index's
// candidates, find them.
func TestMigration0019IndexesExistingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := postgres.Open(ctx, storetest.PostgresURL(t), postgres.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	migrateBefore(t, db, 19)
	for _, q := range []string{
		`INSERT INTO users (login, email, nicename, display_name) VALUES ('walrus', 'tusks@example.org', 'walrus', 'Wally Walrus')`,
		`INSERT INTO terms (taxonomy, name, slug) VALUES ('post_tag', 'Narwhals', 'narwhals')`,
		`INSERT INTO comments (post_id, author_name, author_email, author_ip, content) VALUES (0, 'Orca', 'orca@example.net', '192.0.2.44', 'Seen a Beluga today')`,
	} {
		if _, err := db.Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db.SetSubstringPlans(10000, 0) // always read the index's candidates
	users, err := db.ListUsers(ctx, store.UserQuery{Search: "LLY WAL"})
	if err != nil || len(users) != 1 || users[0].Login != "walrus" {
		t.Errorf("users matching LLY WAL: %v, %v", users, err)
	}
	users, err = db.ListUsers(ctx, store.UserQuery{Search: "tusks@", SearchAccounts: true})
	if err != nil || len(users) != 1 || users[0].Login != "walrus" {
		t.Errorf("users matching tusks@: %v, %v", users, err)
	}
	terms, err := db.ListTerms(ctx, store.TermQuery{Taxonomy: "post_tag", Search: "rwha"})
	if err != nil || len(terms) != 1 || terms[0].Slug != "narwhals" {
		t.Errorf("tags matching rwha: %v, %v", terms, err)
	}
	for _, q := range []store.CommentQuery{{Search: "beluga"}, {Search: "2.44", SearchPrivate: true}} {
		cs, err := db.ListComments(ctx, q)
		if err != nil || len(cs) != 1 || cs[0].AuthorName != "Orca" {
			t.Errorf("comments matching %q: %v, %v", q.Search, cs, err)
		}
	}
}

// TestMigration0019NeedsPgTrgm: on a database without pg_trgm, as a user
// who may not create it, migration 0019 fails with a message saying what
// to run, and leaves the site at version 18; once the extension exists
// (created by someone who may), the migration goes through.
func TestMigration0019NeedsPgTrgm(t *testing.T) {
	base := os.Getenv(storetest.EnvDatabaseURL)
	if base == "" {
		t.Skip(storetest.SkipReason())
	}
	t.Parallel()
	ctx := context.Background()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "folio_noext_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, `CREATE ROLE `+name+` LOGIN`); err != nil {
		t.Skipf("cannot create a role to run the migration as (%v)", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		for _, q := range []string{`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`, `DROP ROLE IF EXISTS ` + name} {
			if _, err := conn.Exec(context.Background(), q); err != nil {
				t.Error(err)
			}
		}
	})
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		t.Skipf("cannot create a database without pg_trgm (%v)", err)
	}
	dbURL := func(user string) string {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		if user != "" {
			u.User = url.User(user)
		}
		return u.String()
	}
	owner, err := pgx.Connect(ctx, dbURL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(context.Background())
	// The role owns its schema (so it may migrate there) but has no
	// CREATE privilege on the database, which creating even a trusted
	// extension needs.
	if _, err := owner.Exec(ctx, `CREATE SCHEMA site AUTHORIZATION `+name); err != nil {
		t.Fatal(err)
	}
	siteURL := dbURL(name)
	if strings.Contains(siteURL, "?") {
		siteURL += "&search_path=site"
	} else {
		siteURL += "?search_path=site"
	}
	db, err := postgres.Open(ctx, siteURL, postgres.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), "pg_trgm") || !strings.Contains(err.Error(), "CREATE EXTENSION pg_trgm") {
		t.Fatalf("migrating without pg_trgm: %v, want a message that says to create the extension", err)
	}
	if cur, _, err := db.SchemaVersion(ctx); err != nil || cur != 18 {
		t.Errorf("after the failed migration the schema is at %d (%v), want 18", cur, err)
	}
	if _, err := owner.Exec(ctx, `CREATE EXTENSION pg_trgm`); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrating once pg_trgm exists: %v", err)
	}
	if _, err := db.ListComments(ctx, store.CommentQuery{Search: "anything"}); err != nil {
		t.Error(err)
	}
}
