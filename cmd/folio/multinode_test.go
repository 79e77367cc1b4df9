package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store/storetest"
)

// apiCall sends one request and returns its status, headers and body.
func apiCall(t *testing.T, method, url, login, pass, body string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if login != "" {
		req.SetBasicAuth(login, pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// jsonField decodes body and returns one top-level field.
func jsonField(t *testing.T, body []byte, field string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %s", body)
	}
	return m[field]
}

// TestTwoNodesOnOnePostgres runs two `folio serve` processes on one
// PostgreSQL database, as two nodes behind a load balancer.
func TestTwoNodesOnOnePostgres(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t) // skips without FOLIO_TEST_DATABASE_URL

	// Two nodes migrating a new database at once both succeed.
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = run(t, nil, "migrate", "--database", url)
		}(i)
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("migrate #%d: exit %d: %s", i, r.code, r.stderr)
		}
	}

	// Credentials made by the CLI work on both nodes.
	mustRun(t, "user", "create", "--database", url, "--login", "admin", "--email", "admin@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	pass := lastLineOf(mustRun(t, "user", "app-password", "--database", url, "--login", "admin"))
	a := startServe(t, nil, "--database", url)
	b := startServe(t, nil, "--database", url)
	posts := "/api/svc/v2/posts"

	// Both nodes count (and cache) an empty collection first, signed in
	// (count cache) and anonymously (response cache).
	for _, n := range []*serveProc{a, b} {
		for _, login := range []string{"admin", ""} {
			pw := pass
			if login == "" {
				pw = ""
			}
			code, h, _ := apiCall(t, "GET", n.url+posts, login, pw, "")
			if code != 200 || h.Get("X-API-Total") != "0" {
				t.Fatalf("%s as %q: GET posts = %d, total %q", n.url, login, code, h.Get("X-API-Total"))
			}
		}
	}

	// A write on A is read back on B at once, counts included.
	code, _, body := apiCall(t, "POST", a.url+posts, "admin", pass, `{"title":"From A","status":"publish"}`)
	if code != 201 {
		t.Fatalf("POST on A = %d %s", code, body)
	}
	id := int64(jsonField(t, body, "id").(float64))
	code, _, body = apiCall(t, "GET", fmt.Sprintf("%s%s/%d", b.url, posts, id), "", "", "")
	if code != 200 || jsonField(t, body, "title").(map[string]any)["rendered"] != "From A" {
		t.Fatalf("GET on B = %d %s", code, body)
	}
	code, h, _ := apiCall(t, "GET", b.url+posts, "", "", "")
	if code != 200 || h.Get("X-API-Total") != "1" {
		t.Fatalf("B's count after A's write = %d, total %q (stale cache?)", code, h.Get("X-API-Total"))
	}

	// And the other way round: an update on B is seen by A.
	code, _, body = apiCall(t, "POST", fmt.Sprintf("%s%s/%d", b.url, posts, id), "admin", pass, `{"title":"Edited on B"}`)
	if code != 200 {
		t.Fatalf("update on B = %d %s", code, body)
	}
	code, _, body = apiCall(t, "GET", fmt.Sprintf("%s%s/%d", a.url, posts, id), "", "", "")
	if code != 200 || jsonField(t, body, "title").(map[string]any)["rendered"] != "Edited on B" {
		t.Fatalf("GET on A after B's update = %d %s", code, body)
	}
	code, _, body = apiCall(t, "GET", a.url+posts, "", "", "")
	if code != 200 || !strings.Contains(string(body), "Edited on B") {
		t.Fatalf("GET on A after B's update = %d %s", code, body)
	}

	// Concurrent creates with one title on both nodes get distinct slugs.
	const each = 4
	slugs := make(chan string, 2*each)
	errs := make(chan string, 2*each)
	for _, n := range []*serveProc{a, b} {
		for i := 0; i < each; i++ {
			wg.Add(1)
			go func(u string) {
				defer wg.Done()
				req, _ := http.NewRequest("POST", u+posts, strings.NewReader(`{"title":"Same title","status":"publish"}`))
				req.Header.Set("Content-Type", "application/json")
				req.SetBasicAuth("admin", pass)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				defer resp.Body.Close()
				var m map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&m)
				if resp.StatusCode != 201 {
					errs <- fmt.Sprintf("status %d: %v", resp.StatusCode, m)
					return
				}
				slugs <- m["slug"].(string)
			}(n.url)
		}
	}
	wg.Wait()
	close(slugs)
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	seen := map[string]bool{}
	for s := range slugs {
		if seen[s] {
			t.Fatalf("slug %q was given twice", s)
		}
		seen[s] = true
	}
	code, h, _ = apiCall(t, "GET", a.url+posts+"?per_page=1", "", "", "")
	if want := fmt.Sprint(1 + 2*each); code != 200 || h.Get("X-API-Total") != want {
		t.Fatalf("A's total = %q, want %s", h.Get("X-API-Total"), want)
	}

	// A user and password created while the nodes run work on both.
	mustRun(t, "user", "create", "--database", url, "--login", "late", "--email", "late@example.com", "--password", "Hook-pass-1234", "--role", "editor")
	late := lastLineOf(mustRun(t, "user", "app-password", "--database", url, "--login", "late"))
	for _, n := range []*serveProc{a, b} {
		code, _, body := apiCall(t, "GET", n.url+"/api/svc/v2/users/me", "late", late, "")
		if code != 200 || jsonField(t, body, "slug") != "late" {
			t.Fatalf("%s: users/me as late = %d %s", n.url, code, body)
		}
	}

	// Both nodes have signed late in (and keep what they read); a role
	// taken away with the CLI and a password revoked on B hold on both
	// at the next request.
	code, _, body = apiCall(t, "POST", a.url+posts, "late", late, `{"title":"By an editor","status":"publish"}`)
	if code != 201 {
		t.Fatalf("POST on A as an editor = %d %s", code, body)
	}
	mustRun(t, "user", "role", "--database", url, "--login", "late", "--role", "subscriber")
	for _, n := range []*serveProc{a, b} {
		code, _, body := apiCall(t, "POST", n.url+posts, "late", late, `{"title":"By a subscriber","status":"publish"}`)
		if code != 403 || jsonField(t, body, "code") != "rest_cannot_create" {
			t.Fatalf("%s: POST as a subscriber = %d %s", n.url, code, body)
		}
	}
	code, _, body = apiCall(t, "GET", b.url+"/api/svc/v2/users/me/application-passwords", "late", late, "")
	var listed []map[string]any
	if err := json.Unmarshal(body, &listed); code != 200 || err != nil || len(listed) != 1 {
		t.Fatalf("late's passwords on B = %d %s", code, body)
	}
	code, _, body = apiCall(t, "DELETE", fmt.Sprintf("%s/api/svc/v2/users/me/application-passwords/%s", b.url, listed[0]["uuid"]), "late", late, "")
	if code != 200 {
		t.Fatalf("revoke on B = %d %s", code, body)
	}
	for _, n := range []*serveProc{a, b} {
		code, _, body := apiCall(t, "GET", n.url+"/api/svc/v2/users/me", "late", late, "")
		if code != 401 || jsonField(t, body, "code") != "rest_authentication_failed" {
			t.Fatalf("%s: users/me with a revoked password = %d %s", n.url, code, body)
		}
	}
}

// TestPostgresRestart stops and starts the local PostgreSQL cluster under a
// running node: requests fail with 503 rest_database_unavailable while it
// is down and succeed again after, without a restart of the node. It
// disturbs every other user of the cluster, so it only runs when
// FOLIO_TEST_PG_RESTART=1 (.ci/run sets it for a run of this test alone).
func TestPostgresRestart(t *testing.T) {
	if os.Getenv("FOLIO_TEST_PG_RESTART") != "1" {
		t.Skip("FOLIO_TEST_PG_RESTART is not 1: not restarting the PostgreSQL cluster")
	}
	url := storetest.PostgresURL(t)
	versions, err := os.ReadDir("/etc/postgresql")
	if err != nil || len(versions) == 0 {
		t.Fatalf("no local PostgreSQL cluster to restart: %v", err)
	}
	ver := versions[0].Name()
	ctl := func(action string) {
		out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", ver, "main", action).CombinedOutput()
		if err != nil {
			t.Fatalf("pg_ctlcluster %s: %v: %s", action, err, out)
		}
	}
	t.Cleanup(func() { _ = exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", ver, "main", "start").Run() })

	mustRun(t, "user", "create", "--database", url, "--login", "admin", "--email", "admin@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	pass := lastLineOf(mustRun(t, "user", "app-password", "--database", url, "--login", "admin"))
	n := startServe(t, nil, "--database", url, "--db-connect-timeout", "2s")
	posts := n.url + "/api/svc/v2/posts"
	if code, _, body := apiCall(t, "POST", posts, "admin", pass, `{"title":"Before","status":"publish"}`); code != 201 {
		t.Fatalf("POST before the restart = %d %s", code, body)
	}

	ctl("stop")
	for _, c := range []struct{ method, login, body string }{{"GET", "", ""}, {"GET", "admin", ""}, {"POST", "admin", `{"title":"During"}`}} {
		code, _, body := apiCall(t, c.method, posts, c.login, pass, c.body)
		if code != 503 || jsonField(t, body, "code") != "rest_database_unavailable" {
			t.Fatalf("%s %s while down = %d %s; want 503 rest_database_unavailable", c.method, c.login, code, body)
		}
	}
	ctl("start")

	deadline := time.Now().Add(30 * time.Second)
	for {
		code, h, body := apiCall(t, "GET", posts, "admin", pass, "")
		if code == 200 && h.Get("X-API-Total") == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered 30s after the restart: %d %s", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, _, body := apiCall(t, "POST", posts, "admin", pass, `{"title":"After","status":"publish"}`); code != 201 {
		t.Fatalf("POST after the restart = %d %s", code, body)
	}
	select {
	case err := <-n.done:
		t.Fatalf("the node exited: %v\n%s", err, n.stderr)
	default:
	}
}

// TestRollingUpgradeOldNodesServeANewerSchema is the upgrade path of
// several nodes on PostgreSQL: the first node of a new release migrates
// while the old nodes keep serving, and an old node that restarts in the
// meantime comes back on the newer schema (a release's migrations only
// add). `folio migrate` of the old release still refuses it, and a SQLite
// site (one process) refuses a newer schema at start.
func TestRollingUpgradeOldNodesServeANewerSchema(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t) // skips without FOLIO_TEST_DATABASE_URL
	mustRun(t, "migrate", "--database", url)
	mustRun(t, "user", "create", "--database", url, "--login", "admin", "--email", "admin@example.com", "--password", "Hook-pass-1234", "--role", "administrator")
	pass := lastLineOf(mustRun(t, "user", "app-password", "--database", url, "--login", "admin"))
	old := startServe(t, nil, "--database", url)

	// A newer release's migration: additive, as the upgrade rule demands.
	db := storetest.OpenPostgres(t, url)
	ctx := context.Background()
	for _, q := range []string{
		`ALTER TABLE posts ADD COLUMN reading_minutes integer NOT NULL DEFAULT 0`,
		`CREATE TABLE future_feature (id bigint PRIMARY KEY)`,
		`INSERT INTO schema_migrations VALUES (9999, now())`,
	} {
		if _, err := db.Pool().Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	// The node that was running keeps reading and writing.
	code, _, body := apiCall(t, "POST", old.url+"/api/svc/v2/posts", "admin", pass, `{"title":"During the upgrade","status":"publish"}`)
	if code != 201 {
		t.Fatalf("write on the running old node = %d %s", code, body)
	}
	// An old node that starts now serves too, with a warning, and is ready.
	restarted := startServe(t, nil, "--database", url)
	// The warning is written before the listening line, on the other pipe:
	// the parent may read the listening line first.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(restarted.stderr.String(), "newer than this binary"); {
		if time.Now().After(deadline) {
			t.Errorf("no warning about the newer schema:\n%s", restarted.stderr)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, path := range []string{"/readyz", "/api/svc/v2/posts"} {
		code, _, body := apiCall(t, "GET", restarted.url+path, "", "", "")
		if code != 200 {
			t.Fatalf("GET %s on the restarted old node = %d %s", path, code, body)
		}
	}
	code, _, body = apiCall(t, "POST", restarted.url+"/api/svc/v2/posts", "admin", pass, `{"title":"After the restart","status":"publish"}`)
	if code != 201 {
		t.Fatalf("write on the restarted old node = %d %s", code, body)
	}
	// The old release's `folio migrate` does not touch the newer schema.
	if r := run(t, nil, "migrate", "--database", url); r.code == 0 || !strings.Contains(r.stderr, "newer") {
		t.Errorf("old migrate on a newer schema: exit %d %s", r.code, r.stderr)
	}
}
