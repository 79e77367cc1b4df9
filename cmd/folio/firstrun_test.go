package main

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFor reads p's standard error until it contains want.
func waitFor(t *testing.T, p *serveProc, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s := p.stderr.String(); strings.Contains(s, want) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("stderr lacks %q:\n%s", want, p.stderr)
	return ""
}

func TestServePrintsWhereToGoAndTheSetupLinkAfterItsListeningLine(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new-site")
	p := startServe(t, nil, "--data", dir)
	out := waitFor(t, p, "setup?token=")
	for _, want := range []string{
		"created new site in " + dir + "\n",
		"admin: " + p.url + "/admin/\n",
		"API:   " + p.url + "/api/\n",
		"site:  " + p.url + "/\n",
		"user create --data " + dir + " --login admin --email admin@example.com --role administrator\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(regexp.QuoteMeta(p.url) + `/admin/setup\?token=[A-Za-z0-9_-]{32}\n`).MatchString(out) {
		t.Errorf("no setup link:\n%s", out)
	}
	if code := p.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// A second start on the same site creates nothing and says nothing
	// about it.
	p = startServe(t, nil, "--data", dir)
	out = waitFor(t, p, "admin: ")
	if strings.Contains(out, "created new site") {
		t.Errorf("second start says it created the site:\n%s", out)
	}
	p.stop(t, syscall.SIGTERM)
}

func TestServeReportsAPortInUseBeforeCreatingTheDataDirectory(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "never")
	r := run(t, nil, "serve", "--addr", ln.Addr().String(), "--data", dir)
	if r.code != 1 || !strings.Contains(r.stderr, "already in use") || !strings.Contains(r.stderr, "--addr") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the data directory was created although the port is in use (stat: %v)", err)
	}
}

func TestAWrongDatabaseIsAnErrorNotANewSite(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"mysql://root:Secret-1@localhost/folio", "postgres//folio:Secret-1@db/folio", "postgresql:folio@db", "./no-such-dir", "site.txt"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			wd := t.TempDir()
			cmds := [][]string{
				{"serve", "--addr", "127.0.0.1:0", "--database", db},
				{"migrate", "--database", db},
				{"user", "list", "--database", db},
			}
			if strings.Contains(db, ":") {
				// db copy takes new directories, but no other URLs.
				cmds = append(cmds, []string{"db", "copy", "--from", filepath.Join(wd, "src"), "--to", db})
			}
			for _, args := range cmds {
				cmd := exec.Command(folioBin, args...)
				cmd.Dir = wd
				cmd.Env = cleanEnv()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Errorf("%v: err %v, want exit 1", args, err)
				}
				if !strings.Contains(stderr.String(), "postgres:// or postgresql:// URL, a SQLite file ending in .db, or an existing directory") {
					t.Errorf("%v: stderr does not name the accepted forms: %q", args, stderr.String())
				}
				if strings.Contains(stderr.String(), "Secret-1") {
					t.Errorf("%v: stderr shows the password: %q", args, stderr.String())
				}
			}
			if entries, _ := os.ReadDir(wd); len(entries) > 0 {
				t.Errorf("files created in the working directory: %v", entries)
			}
		})
	}
}

func TestServeOnAnUnreadableDataDirectorySaysPermissionDenied(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("", "folio-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(base, "data"), 0o755); os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "migrate", "--data", dir)
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--data", dir},
		{"user", "list", "--data", dir},
	} {
		cmd := exec.Command(folioBin, args...)
		cmd.Env = cleanEnv()
		if os.Geteuid() == 0 {
			// root passes permission bits: run as nobody, who must be
			// able to reach the binary.
			if err := os.Chmod(filepath.Dir(folioBin), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			cmd.Dir = "/"
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%v: err %v, stderr %q", args, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "data directory "+dir+": permission denied") || strings.Contains(stderr.String(), "(14)") {
			t.Errorf("%v: stderr %q, want the directory and \"permission denied\"", args, stderr.String())
		}
	}
}
