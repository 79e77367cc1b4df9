package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/store/storetest"
)

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls buf until re matches, and returns the match's groups.
func waitFor(t *testing.T, buf *syncBuffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(buf.String()); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no match for %s in:\n%s", re, buf.String())
	return nil
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeMetricsListenerJSONLogAndSIGHUP runs folio serve on real
// listeners: the metrics are served on --metrics-addr only, the log is
// JSON, and SIGHUP reloads the log level from the config file (health
// probes show up once it is debug).
func TestServeMetricsListenerJSONLogAndSIGHUP(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "folio.toml")
	writeLevel := func(level string) {
		if err := os.WriteFile(cfgPath, []byte("[log]\nformat = \"json\"\nlevel = \""+level+"\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeLevel("info")
	site := config.Default()
	storetest.Configure(t, site)
	args := []string{"serve", "--config", cfgPath, "--data", site.DataDir, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}
	if site.DatabaseURL != "" {
		args = append(args, "--database", site.DatabaseURL)
	}
	cmd := NewRootCmd("test")
	cmd.SetArgs(args)
	var stdout, stderr syncBuffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	site0 := waitFor(t, &stdout, regexp.MustCompile(`listening on (http://\S+)`))[1]
	metricsURL := waitFor(t, &stderr, regexp.MustCompile(`metrics on (http://\S+)`))[1]

	if code, body := get(t, site0+"/healthz"); code != http.StatusOK || !strings.Contains(body, `"ok"`) {
		t.Errorf("GET /healthz = %d %s", code, body)
	}
	if code, _ := get(t, site0+"/metrics"); code != http.StatusNotFound {
		t.Errorf("GET /metrics on the public address = %d, want 404", code)
	}
	code, body := get(t, metricsURL)
	if code != http.StatusOK || !strings.Contains(body, `folio_http_requests_total{code="2xx",method="GET",route="/healthz"} 1`) {
		t.Errorf("GET %s = %d, missing the healthz count:\n%.2000s", metricsURL, code, body)
	}
	if code, _ := get(t, strings.TrimSuffix(metricsURL, "/metrics")+"/healthz"); code != http.StatusNotFound {
		t.Errorf("the metrics listener serves other paths: %d", code)
	}
	if code, _ := get(t, site0+"/api/"); code != http.StatusOK {
		t.Errorf("GET /api/ = %d", code)
	}
	waitFor(t, &stderr, regexp.MustCompile(`\{"time":"[^"]+","level":"INFO","msg":"request","method":"GET","route":"/api/"`))
	if strings.Contains(stderr.String(), `"route":"/healthz"`) {
		t.Errorf("a health probe was logged at info:\n%s", stderr.String())
	}

	writeLevel("debug")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, regexp.MustCompile(`"msg":"configuration reloaded","log_level":"debug"`))
	get(t, site0+"/healthz")
	waitFor(t, &stderr, regexp.MustCompile(`"level":"DEBUG","msg":"request","method":"GET","route":"/healthz"`))

	// A file that no longer loads leaves the running settings alone.
	if err := os.WriteFile(cfgPath, []byte("[log]\nlevel = \"loud\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &stderr, regexp.MustCompile(`"msg":"reloading the configuration failed; the running settings stay"`))
	if code, _ := get(t, site0+"/healthz"); code != http.StatusOK {
		t.Errorf("GET /healthz after a failed reload = %d", code)
	}
}
