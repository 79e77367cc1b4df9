// Package s3test runs a real S3-compatible server for tests: SeaweedFS's
// S3 gateway (the weed binary named by FOLIO_TEST_WEED, built by
// .ci/weed), started on loopback with its own directory and ports, with
// one identity whose credentials tests use. The in-process fake
// (gofakes3) stays for fast unit tests; this is what users run.
//
// Without FOLIO_TEST_WEED a test that asks for the server is skipped,
// except under CI=true, where that is a failure: CI must run them.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/folio-server/folio/internal/media"
)

// EnvWeed names the environment variable holding the weed binary's path.
const EnvWeed = "FOLIO_TEST_WEED"

// Region is the region the server answers for.
const Region = "us-east-1"

// startTimeout bounds how long a server may take to answer S3 requests.
const startTimeout = 90 * time.Second

// stopGrace is how long a stopping server gets after SIGTERM before it is
// killed (weed has been seen to take longer than 20 s to exit on its own).
const stopGrace = 3 * time.Second

// Server is a running SeaweedFS server with its S3 gateway on loopback.
type Server struct {
	// Endpoint is host:port of the S3 API.
	Endpoint string
	// AccessKey and SecretKey are the credentials Folio is given: they
	// may read, write, list and tag objects but not create buckets (as a
	// production key should be). Anonymous and other credentials are
	// refused.
	AccessKey, SecretKey string
	// adminKey and adminSecret may also create buckets (the test's setup).
	adminKey, adminSecret string

	cmd      *exec.Cmd
	done     chan struct{}
	stopOnce sync.Once
	logPath  string
}

// Binary returns the weed binary to run, or skips t when there is none
// (and fails it under CI=true).
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvWeed)
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run the tests against a real S3-compatible server (.ci/weed builds it)", EnvWeed)
		}
		t.Skipf("%s is not set: no real S3-compatible server to test against (run .ci/weed and set it)", EnvWeed)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v", EnvWeed, bin, err)
	}
	return bin
}

// Start starts a new server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	s := &Server{AccessKey: "folio-" + randomHex(4), SecretKey: randomHex(16),
		adminKey: "admin-" + randomHex(4), adminSecret: randomHex(16), done: make(chan struct{})}
	cfg := map[string]any{"identities": []any{
		map[string]any{
			"name":        "admin",
			"credentials": []any{map[string]string{"accessKey": s.adminKey, "secretKey": s.adminSecret}},
			"actions":     []string{"Admin", "Read", "List", "Tagging", "Write"},
		},
		map[string]any{
			"name":        "folio",
			"credentials": []any{map[string]string{"accessKey": s.AccessKey, "secretKey": s.SecretKey}},
			"actions":     []string{"Read", "List", "Tagging", "Write"},
		},
	}}
	cfgPath := filepath.Join(dir, "s3.json")
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 4)
	s.Endpoint = "127.0.0.1:" + strconv.Itoa(ports[3])
	dataDir := filepath.Join(dir, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"server",
		"-dir=" + dataDir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + strconv.Itoa(ports[0]), "-master.port.grpc=" + strconv.Itoa(ports[0]+10000),
		"-master.volumeSizeLimitMB=16",
		"-volume.port=" + strconv.Itoa(ports[1]), "-volume.port.grpc=" + strconv.Itoa(ports[1]+10000),
		"-volume.max=300",
		"-filer", "-filer.port=" + strconv.Itoa(ports[2]), "-filer.port.grpc=" + strconv.Itoa(ports[2]+10000),
		"-s3", "-s3.port=" + strconv.Itoa(ports[3]), "-s3.config=" + cfgPath,
	}
	s.logPath = filepath.Join(dir, "weed.log")
	logf, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.Dir = dir
	// Its own process group, so stopping it stops every child too, and
	// killed with the test process if that dies first.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start weed: %v", err)
	}
	go func() {
		_ = s.cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	t.Cleanup(s.Stop)
	if err := s.waitReady(); err != nil {
		s.Stop()
		log, _ := os.ReadFile(s.logPath)
		t.Fatalf("weed did not serve S3 on %s: %v\n%s", s.Endpoint, err, tail(log, 4000))
	}
	return s
}

// waitReady polls the S3 API until it lists buckets with the identity's
// credentials.
func (s *Server) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := s.client()
	if err != nil {
		return err
	}
	var last error
	for {
		rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
		_, last = c.ListBuckets(rctx)
		rcancel()
		if last == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("weed exited: %v", last)
		case <-ctx.Done():
			return fmt.Errorf("%v (last error: %v)", ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop stops the server: SIGTERM to its process group, then SIGKILL after
// a grace period. It is safe to call more than once.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.cmd == nil || s.cmd.Process == nil {
			return
		}
		pgid := -s.cmd.Process.Pid
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(stopGrace):
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			<-s.done
		}
	})
}

// client is an S3 client with the administrator's credentials.
func (s *Server) client() (*minio.Client, error) {
	return minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(s.adminKey, s.adminSecret, ""),
		Region: Region,
	})
}

// Bucket creates a bucket with a fresh name and returns the options that
// reach it with the server's credentials.
func (s *Server) Bucket(t testing.TB) media.S3Options {
	t.Helper()
	c, err := s.client()
	if err != nil {
		t.Fatal(err)
	}
	name := "folio-" + randomHex(6)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.MakeBucket(ctx, name, minio.MakeBucketOptions{Region: Region}); err != nil {
		t.Fatalf("make bucket %s: %v", name, err)
	}
	// SeaweedFS gives a new bucket its storage volumes on the first write
	// and answers 500 until they exist; a bucket in use has them. Write
	// once (and remove it) so that tests start on a bucket in use.
	for {
		_, err := c.PutObject(ctx, name, ".warm", strings.NewReader("x"), 1, minio.PutObjectOptions{})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("bucket %s never took a write: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := c.RemoveObject(ctx, name, ".warm", minio.RemoveObjectOptions{}); err != nil {
		t.Fatalf("bucket %s: %v", name, err)
	}
	return s.Options(name)
}

// Options are the options for bucket on this server (which need not exist).
func (s *Server) Options(bucket string) media.S3Options {
	return media.S3Options{Endpoint: s.Endpoint, Region: Region, Bucket: bucket, AccessKey: s.AccessKey, SecretKey: s.SecretKey}
}

// Objects lists the keys under prefix in bucket.
func (s *Server) Objects(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	c, err := s.client()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for o := range c.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("list %s/%s: %v", bucket, prefix, o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// freePorts finds n loopback ports that are free, each with port+10000
// free too (weed's gRPC ports).
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var out []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for tries := 0; len(out) < n && tries < 1000; tries++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		if p+10000 > 65535 {
			l.Close()
			// Ask for a port in the lower range explicitly.
			p = 20000 + randomInt(25000)
			l, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				continue
			}
		}
		g, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+10000))
		if err != nil {
			l.Close()
			continue
		}
		held = append(held, l, g)
		out = append(out, p)
	}
	if len(out) < n {
		t.Fatal("no free loopback ports for weed")
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// randomInt is a random number in [0, n).
func randomInt(n int) int {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) % n
}

// tail is the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
