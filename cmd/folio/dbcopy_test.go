package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/folio-server/folio/internal/store/storetest"
)

// copyProbe are the requests whose answers must survive a copy unchanged:
// anonymous and administrator views of every collection and some items.
var copyProbe = []struct{ path, login string }{
	{"/api/", ""},
	{"/api/svc/v2/posts", ""},
	{"/api/svc/v2/posts?context=edit&status=publish,draft,private,future,pending&per_page=100", admin},
	{"/api/svc/v2/posts?orderby=title&order=asc", ""},
	{"/api/svc/v2/posts?search=apple", ""},
	{"/api/svc/v2/posts?_embed", ""},
	{"/api/svc/v2/posts/1?context=edit", admin},
	{"/api/svc/v2/pages?context=edit&status=publish,draft", admin},
	{"/api/svc/v2/users?context=edit", admin},
	{"/api/svc/v2/users/me?context=edit", admin},
	{"/api/svc/v2/users", ""},
	{"/api/svc/v2/categories?context=edit", admin},
	{"/api/svc/v2/tags", ""},
	{"/api/svc/v2/comments?context=edit", admin},
	{"/api/svc/v2/comments", ""},
	{"/api/svc/v2/types", ""},
	{"/api/svc/v2/statuses?context=edit", admin},
	{"/api/svc/v2/taxonomies", ""},
	{"/api/svc/v2/media", ""},
}

// snapshot serves the site at database and records every probe's status,
// totals and body, with the server's own address replaced.
func snapshot(t *testing.T, database, pass string) map[string]string {
	t.Helper()
	p := startServe(t, nil, "--database", database)
	out := map[string]string{}
	for _, pr := range copyProbe {
		code, h, body := apiCall(t, "GET", p.url+pr.path, pr.login, pass, "")
		out[pr.login+" "+pr.path] = fmt.Sprintf("%d total=%s pages=%s\n%s", code, h.Get("X-API-Total"), h.Get("X-API-TotalPages"),
			strings.ReplaceAll(string(body), p.url, "BASE"))
	}
	if code := p.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("serve exit %d: %s", code, p.stderr)
	}
	return out
}

// TestDBCopyRoundTrip seeds a SQLite site, copies it to PostgreSQL and back
// into a new SQLite site, and compares every probe's answer on all three.
func TestDBCopyRoundTrip(t *testing.T) {
	t.Parallel()
	pgURL := storetest.PostgresURL(t) // skips without FOLIO_TEST_DATABASE_URL
	dir := filepath.Join(t.TempDir(), "site")
	pass := createAdmin(t, "--data", dir)
	mustRun(t, "user", "create", "--data", dir, "--login", "ed", "--email", "ed@example.com", "--password", "Hook-pass-1234", "--role", "editor")

	// Seed through the API.
	p := startServe(t, nil, "--data", dir)
	seed := []struct{ path, body string }{
		{"/api/svc/v2/posts", `{"title":"Apple pie","content":"Sweet <b>apple</b> pie","status":"publish","date":"2021-03-04T05:06:07"}`},
		{"/api/svc/v2/posts", `{"title":"banana","status":"publish","sticky":true}`},
		{"/api/svc/v2/posts", `{"title":"Draft","status":"draft"}`},
		{"/api/svc/v2/posts", `{"title":"Ünïcode Straße","status":"publish","slug":"unicode"}`},
		{"/api/svc/v2/posts", `{"title":"Apple pie","status":"publish"}`},
		{"/api/svc/v2/pages", `{"title":"About","status":"publish","menu_order":2}`},
		{"/api/svc/v2/categories", `{"name":"Fruit","description":"Things"}`},
		{"/api/svc/v2/tags", `{"name":"sweet"}`},
		{"/api/svc/v2/comments", `{"post":1,"content":"Nice pie"}`},
	}
	for _, s := range seed {
		if code, _, body := apiCall(t, "POST", p.url+s.path, admin, pass, s.body); code != 201 && code != 404 {
			t.Fatalf("seed %s: %d %s", s.path, code, body)
		}
	}
	// Deleting the newest post (the page, id 6) leaves the id counter above
	// the largest id: the copies must keep it.
	if code, _, body := apiCall(t, "DELETE", p.url+"/api/svc/v2/pages/6?force=true", admin, pass, ""); code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	p.stop(t, syscall.SIGTERM)

	sqliteDB := filepath.Join(dir, "folio.db")
	want := snapshot(t, sqliteDB, pass)

	out := mustRun(t, "db", "copy", "--from", dir, "--to", pgURL)
	if !strings.HasPrefix(out, "copied ") {
		t.Fatalf("db copy printed %q", out)
	}
	// A second copy into the now full database is refused.
	if r := run(t, nil, "db", "copy", "--from", dir, "--to", pgURL); r.code == 0 || !strings.Contains(r.stderr, "already has") {
		t.Fatalf("copy into a full database: exit %d, %s", r.code, r.stderr)
	}
	compareSnapshots(t, "postgres", want, snapshot(t, pgURL, pass))

	back := filepath.Join(t.TempDir(), "back")
	mustRun(t, "db", "copy", "--from", pgURL, "--to", back)
	compareSnapshots(t, "sqlite again", want, snapshot(t, filepath.Join(back, "folio.db"), pass))

	// Ids continue after the copied counters on every copy: the deleted
	// page's id is not reused.
	for _, db := range []string{pgURL, filepath.Join(back, "folio.db")} {
		n := startServe(t, nil, "--database", db)
		code, _, body := apiCall(t, "POST", n.url+"/api/svc/v2/posts", admin, pass, `{"title":"After copy"}`)
		if code != 201 || jsonField(t, body, "id").(float64) != 7 {
			t.Errorf("%s: new post = %d %s, want id 7", db, code, body)
		}
		n.stop(t, syscall.SIGTERM)
	}

	// A post published on PostgreSQL after the copy is counted in its
	// category; a copy back carries every count as it is there.
	n := startServe(t, nil, "--database", pgURL)
	if code, _, body := apiCall(t, "POST", n.url+"/api/svc/v2/posts", admin, pass, `{"title":"Counted","status":"publish"}`); code != 201 {
		t.Fatalf("publish on postgres: %d %s", code, body)
	}
	n.stop(t, syscall.SIGTERM)
	again := filepath.Join(t.TempDir(), "again")
	mustRun(t, "db", "copy", "--from", pgURL, "--to", again)
	compareSnapshots(t, "sqlite from a written postgres", snapshot(t, pgURL, pass), snapshot(t, filepath.Join(again, "folio.db"), pass))
}

func compareSnapshots(t *testing.T, name string, want, got map[string]string) {
	t.Helper()
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: %s differs:\nwant %s\n got %s", name, k, w, g)
		}
	}
}
