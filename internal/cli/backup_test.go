package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/sqlite"
	"github.com/folio-server/folio/internal/store/storetest"
	"github.com/jackc/pgx/v5"
)

// runCmd runs the folio command line with args and returns its output.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := NewRootCmd("test")
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// pairs counts the posts titled a-N and b-N in the SQLite file at path.
func pairs(t *testing.T, path string) (a, b int64) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT
		(SELECT COUNT(*) FROM posts WHERE title LIKE 'a-%'),
		(SELECT COUNT(*) FROM posts WHERE title LIKE 'b-%')`).Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// TestBackupUnderConcurrentWritesRestoresAConsistentSite: folio backup of
// a SQLite site that is being written (each transaction adds two posts)
// gives a file that passes the integrity check and holds whole
// transactions only; folio restore puts it and the uploads in place in
// another directory, refuses to replace a database without --force, and
// the copy serves.
func TestBackupUnderConcurrentWritesRestoresAConsistentSite(t *testing.T) {
	for _, k := range []string{config.EnvData, config.EnvDatabaseURL, config.EnvConfig, config.EnvMediaURL} {
		t.Setenv(k, "")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg, err := config.Resolve(config.Overrides{DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := os.MkdirAll(filepath.Join(dir, "uploads", "2026", "01"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "uploads", "2026", "01", "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wrote atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := st.Tx(ctx, func(tx store.Store) error {
				for _, p := range []string{"a", "b"} {
					if err := tx.InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("%s-%d", p, i)}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Error(err)
				return
			}
			wrote.Add(1)
		}
	})
	for wrote.Load() < 20 {
		time.Sleep(time.Millisecond)
	}
	out := filepath.Join(t.TempDir(), "site.backup.db")
	msg, err := runCmd(t, "backup", "--data", dir, "-o", out, "--with-uploads")
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, msg)
	}
	if !strings.Contains(msg, "integrity ok") || !strings.Contains(msg, "(1 files)") {
		t.Fatalf("backup said %q", msg)
	}
	if problems, err := sqlite.IntegrityCheck(ctx, out); err != nil || len(problems) > 0 {
		t.Fatalf("integrity of the backup: %v %v", problems, err)
	}
	a, b := pairs(t, out)
	if a == 0 || a != b {
		t.Fatalf("backup holds %d a-posts and %d b-posts: not whole transactions", a, b)
	}
	if _, err := runCmd(t, "backup", "--data", dir, "-o", out); err == nil {
		t.Fatal("backup over an existing file succeeded")
	}

	dir2 := t.TempDir()
	msg, err = runCmd(t, "restore", "--data", dir2, "-i", out, "--uploads", out+UploadsTarSuffix)
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, msg)
	}
	if got, err := os.ReadFile(filepath.Join(dir2, "uploads", "2026", "01", "a.txt")); err != nil || string(got) != "hello" {
		t.Fatalf("restored upload: %q %v", got, err)
	}
	if ra, rb := pairs(t, filepath.Join(dir2, config.DatabaseFile)); ra != a || rb != b {
		t.Fatalf("restored %d/%d posts, backup had %d/%d", ra, rb, a, b)
	}
	if _, err := runCmd(t, "restore", "--data", dir2, "-i", out); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("restore over a database without --force: %v", err)
	}
	if _, err := runCmd(t, "restore", "--data", dir2, "-i", out, "--force"); err != nil {
		t.Fatalf("restore --force: %v", err)
	}
	// The restored site opens and serves its posts.
	cfg2, err := config.Resolve(config.Overrides{DataDir: dir2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(ctx, cfg2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if n, err := srv.Store().CountPosts(ctx, store.PostQuery{Types: []string{"post"}, Statuses: []string{"publish"}}); err != nil || n != a+b {
		t.Fatalf("restored site counts %d posts (%v), want %d", n, err, a+b)
	}
	// A file that is not a database is refused before anything changes.
	bad := filepath.Join(t.TempDir(), "bad.db")
	if err := os.WriteFile(bad, []byte("not a database at all, just text of some length"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, "restore", "--data", dir2, "-i", bad, "--force"); err == nil {
		t.Fatal("restore of a file that is not a database succeeded")
	}
}

// TestBackupAndRestoreOnPostgresPointAtPgDump: on PostgreSQL, backup and
// restore refuse with a message naming pg_dump / pg_restore.
func TestBackupAndRestoreOnPostgresPointAtPgDump(t *testing.T) {
	for _, k := range []string{config.EnvData, config.EnvDatabaseURL, config.EnvConfig} {
		t.Setenv(k, "")
	}
	url := "postgres://folio@127.0.0.1:1/folio"
	if _, err := runCmd(t, "backup", "--database", url, "-o", filepath.Join(t.TempDir(), "x.db")); err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup on PostgreSQL: %v", err)
	}
	if _, err := runCmd(t, "restore", "--database", url, "-i", "x.db"); err == nil || !strings.Contains(err.Error(), "pg_restore") {
		t.Fatalf("restore on PostgreSQL: %v", err)
	}
}

// TestDoctorReportsIntegrityMigrationsOrphansAndOutbox runs folio doctor on
// a site (SQLite, or PostgreSQL with FOLIO_TEST_DATABASE_URL) with an
// orphaned upload and a pending webhook delivery.
func TestDoctorReportsIntegrityMigrationsOrphansAndOutbox(t *testing.T) {
	for _, k := range []string{config.EnvData, config.EnvDatabaseURL, config.EnvConfig, config.EnvMediaURL} {
		t.Setenv(k, "")
	}
	ctx := context.Background()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	st, err := server.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.ReserveMediaPaths(ctx, []string{"2026/01/owned.png"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"owned.png", "orphan.png"} {
		p := filepath.Join(cfg.UploadsDir(), "2026", "01", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wh := &store.Webhook{URL: "https://hooks.example/x", Events: []string{"*"}, Active: true}
	if err := st.InsertWebhook(ctx, wh); err != nil {
		t.Fatal(err)
	}
	ev := &store.WebhookEvent{Name: "post.created", Kind: "post", ObjectID: 1, OccurredAt: time.Now().Add(-73 * time.Hour)}
	if err := st.EnqueueEvent(ctx, ev, []int64{wh.ID}); err != nil {
		t.Fatal(err)
	}
	args := []string{"doctor", "--data", cfg.DataDir}
	if cfg.IsPostgres() {
		args = append(args, "--database", cfg.DatabaseURL)
	}
	msg, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, msg)
	}
	for _, want := range []string{"schema: version", ", current", "posts", "webhook_events", "1 pending deliveries", "oldest webhook event: ", "(3 days ago)", "2 files", "1 orphaned", "2026/01/orphan.png"} {
		if !strings.Contains(msg, want) {
			t.Errorf("doctor's report lacks %q:\n%s", want, msg)
		}
	}
	if !cfg.IsPostgres() && !strings.Contains(msg, "integrity: ok") {
		t.Errorf("doctor's report lacks the integrity check:\n%s", msg)
	}
	if cfg.IsPostgres() != strings.Contains(msg, "\nautovacuum: ") {
		t.Errorf("doctor's report says whether autovacuum is on exactly on PostgreSQL:\n%s", msg)
	}
}

// TestDoctorWarnsWhenAutovacuumIsOff: the autovacuum line names the
// server and the tables autovacuum does not reach, and says why it
// matters; with nothing off it says on.
func TestDoctorWarnsWhenAutovacuumIsOff(t *testing.T) {
	var b strings.Builder
	reportVacuum(&b, nil)
	if b.String() != "autovacuum: on\n" {
		t.Errorf("nothing off: %q", b.String())
	}
	b.Reset()
	reportVacuum(&b, []string{"server", "rate_limits"})
	for _, want := range []string{"autovacuum: OFF for the server (autovacuum or track_counts), table rate_limits;", "warning:", "never reclaimed", "turn autovacuum on"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q: %q", want, b.String())
		}
	}
}

// TestPgDumpRestoreServesTheSameAPI follows the PostgreSQL runbook: a
// site's schema dumped with pg_dump --format=custom and restored with
// pg_restore into an empty database (given the pg_trgm extension first)
// serves the same API answers.
func TestPgDumpRestoreServesTheSameAPI(t *testing.T) {
	base := os.Getenv(storetest.EnvDatabaseURL)
	if base == "" {
		t.Skip(storetest.SkipReason())
	}
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	ctx := context.Background()
	cfg := config.Default()
	storetest.Configure(t, cfg)
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	a, err := server.New(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := range 3 {
		if err := a.Store().InsertPost(ctx, &store.Post{Type: "post", Status: "publish", Title: fmt.Sprintf("Post %d", i), Content: "<p>Body</p>", Slug: fmt.Sprintf("post-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	dump := filepath.Join(t.TempDir(), "site.dump")
	if out, err := exec.Command("pg_dump", "--format=custom", "--no-owner", "--schema="+schema, "--file="+dump, base).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}

	// An empty database to restore into.
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	dbName := "folio_restore_" + hex.EncodeToString(rnd[:])
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	_, err = admin.Exec(ctx, `CREATE DATABASE `+dbName)
	admin.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run after the deferred calls (the servers' pools closed):
	// the drop needs a connection of its own.
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop %s: %v", dbName, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP DATABASE `+dbName+` WITH (FORCE)`); err != nil {
			t.Errorf("drop %s: %v", dbName, err)
		}
	})
	target, _ := url.Parse(base)
	target.Path = "/" + dbName
	// A dump of one schema leaves out the extensions, which live in the
	// database: the search indexes need pg_trgm there first.
	conn, err := pgx.Connect(ctx, target.String())
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `CREATE EXTENSION pg_trgm`)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pg_restore", "--no-owner", "--dbname="+target.String(), dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	q := target.Query()
	q.Set("search_path", schema)
	target.RawQuery = q.Encode()
	cfg2 := config.Default()
	cfg2.DataDir = t.TempDir()
	cfg2.DatabaseURL = target.String()
	if err := cfg2.Normalize(); err != nil {
		t.Fatal(err)
	}
	b, err := server.New(ctx, cfg2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, path := range []string{"/api/svc/v2/posts", "/api/svc/v2/categories", "/api/svc/v2/posts?slug=post-1", "/api/svc/v2/categories?search=ategoriz"} {
		get := func(s *server.Server) string {
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if rec.Code != 200 {
				t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
			}
			return rec.Body.String()
		}
		if ga, gb := get(a), get(b); ga != gb {
			t.Errorf("GET %s differs after pg_dump and pg_restore:\n%s\n%s", path, ga, gb)
		}
	}
}
