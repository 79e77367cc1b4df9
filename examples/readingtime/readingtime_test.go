package readingtime_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/examples/readingtime"
	"github.com/folio-server/folio/internal/auth"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
)

func TestEstimate(t *testing.T) {
	cases := []struct {
		text           string
		words, minutes int64
	}{
		{"", 0, 1},
		{"<p>Hello, <b>world</b>!</p><!-- wp:paragraph -->", 2, 1},
		{strings.Repeat("word ", 401), 401, 3},
	}
	for _, c := range cases {
		got := readingtime.Estimate(c.text)
		if got["words"] != c.words || got["minutes"] != c.minutes {
			t.Errorf("Estimate(%.20q) = %v, want %d words %d minutes", c.text, got, c.words, c.minutes)
		}
	}
}

func getJSON(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m
}

func TestReadingTimeFieldAndRoute(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewWith(context.Background(), cfg, nil, readingtime.New())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ctx := context.Background()
	u := &store.User{Login: "ed", Email: "ed@example.com", Nicename: "ed", Registered: time.Now().UTC(), Roles: []string{"editor"}}
	if err := srv.Store().InsertUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	plain, hash, _ := auth.GenerateAppPassword()
	if err := srv.Store().InsertAppPassword(ctx, &store.AppPassword{UUID: "u1", UserID: u.ID, Name: "t", Hash: hash, Created: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	body := `{"title":"Long","status":"publish","content":"` + strings.Repeat("lorem ", 450) + `"}`
	req, _ := http.NewRequest("POST", hs.URL+"/api/svc/v2/posts", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("ed", plain)
	status, post := getJSON(t, req)
	if status != 201 {
		t.Fatalf("create: %d %v", status, post)
	}
	rt, _ := post["reading_time"].(map[string]any)
	if rt["words"] != float64(450) || rt["minutes"] != float64(3) {
		t.Fatalf("reading_time = %v", post["reading_time"])
	}
	// The field gets the same inputs whatever _fields asks for.
	for _, q := range []string{"_fields=id,reading_time", "_fields=reading_time", "_fields=reading_time.words"} {
		req, _ = http.NewRequest("GET", fmt.Sprintf("%s/api/svc/v2/posts/%v?%s", hs.URL, post["id"], q), nil)
		status, got := getJSON(t, req)
		rt, _ := got["reading_time"].(map[string]any)
		if status != 200 || rt["words"] != float64(450) {
			t.Errorf("?%s: %d reading_time = %v, want 450 words", q, status, got["reading_time"])
		}
	}
	req, _ = http.NewRequest("GET", hs.URL+"/api/svc/v2/posts?context=embed", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	_ = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list) != 1 || list[0]["reading_time"] == nil {
		t.Fatalf("embed list = %v", list)
	}
	req, _ = http.NewRequest("OPTIONS", hs.URL+"/api/svc/v2/pages", nil)
	_, opt := getJSON(t, req)
	if _, ok := opt["schema"].(map[string]any)["properties"].(map[string]any)["reading_time"]; !ok {
		t.Fatal("reading_time missing from the pages schema")
	}
	req, _ = http.NewRequest("GET", hs.URL+"/api/readingtime/v1/estimate?text="+url.QueryEscape("one two three"), nil)
	status, est := getJSON(t, req)
	if status != 200 || est["words"] != float64(3) {
		t.Fatalf("estimate: %d %v", status, est)
	}
	req, _ = http.NewRequest("GET", hs.URL+"/api/readingtime/v1/estimate", nil)
	if status, errBody := getJSON(t, req); status != 400 || errBody["code"] != "rest_missing_callback_param" {
		t.Fatalf("estimate without text: %d %v", status, errBody)
	}
}

// TestCustomBinary builds the custom main and talks to the binary.
func TestCustomBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "folio-readingtime")
	build := exec.Command("go", "build", "-o", bin, "./cmd/folio-readingtime")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	env := append(os.Environ(), "FOLIO_CONFIG=", "FOLIO_DATABASE_URL=", "FOLIO_DATA=")
	// runBin runs a command of the custom binary to completion and returns
	// its trimmed standard output.
	runBin := func(args ...string) string {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Env = env
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			t.Fatalf("folio-readingtime %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return strings.TrimSpace(out.String())
	}
	if v := runBin("version"); !strings.HasPrefix(v, "folio dev (go") {
		t.Fatalf("version = %q", v)
	}
	if id := runBin("user", "create", "--data", data, "--login", "ed", "--email", "ed@example.com", "--password", "Hook-pass-1234", "--role", "editor"); id != "1" {
		t.Fatalf("user create printed %q, want the id 1", id)
	}
	pass := runBin("user", "app-password", "--data", data, "--login", "ed", "--name", "binary-test")
	if len(pass) < 20 {
		t.Fatalf("user app-password printed %q", pass)
	}
	if list := runBin("user", "list", "--data", data); !strings.Contains(list, "ed") || !strings.Contains(list, "editor") {
		t.Fatalf("user list = %q", list)
	}
	cmd := exec.Command(bin, "serve", "--data", data, "--addr", "127.0.0.1:0")
	cmd.Env = env
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v", err)
	}
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	req, _ := http.NewRequest("GET", base+"/api/readingtime/v1/estimate?text=a+b", nil)
	status, est := getJSON(t, req)
	if status != 200 || est["words"] != float64(2) {
		t.Fatalf("estimate from the binary: %d %v", status, est)
	}
	req, _ = http.NewRequest("GET", base+"/api/", nil)
	_, idx := getJSON(t, req)
	ns, _ := json.Marshal(idx["namespaces"])
	if !strings.Contains(string(ns), "readingtime/v1") {
		t.Fatalf("namespaces = %s", ns)
	}
	body := `{"title":"From the CLI user","status":"publish","content":"` + strings.Repeat("lorem ", 250) + `"}`
	req, _ = http.NewRequest("POST", base+"/api/svc/v2/posts", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("ed", pass)
	status, post := getJSON(t, req)
	if status != 201 {
		t.Fatalf("create with the CLI-made app password: %d %v", status, post)
	}
	if rt, _ := post["reading_time"].(map[string]any); rt["words"] != float64(250) || rt["minutes"] != float64(2) {
		t.Fatalf("reading_time = %v", post["reading_time"])
	}
}
