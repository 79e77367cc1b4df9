package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// listeningPrefix starts the line `folio serve` prints once it accepts
// connections.
const listeningPrefix = "listening on "

// startTimeout bounds how long a subprocess may take to print its
// listening line.
const startTimeout = 60 * time.Second

// process is a started `folio serve`-like subprocess.
type process struct {
	cmd    *exec.Cmd
	URL    string // base URL, e.g. http://127.0.0.1:40123
	stderr *syncBuffer
	done   chan error
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
// It keeps the last maxKept bytes or so: a server's stderr carries its
// request log (a line per request), and only the end is ever shown.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// maxKept bounds what a syncBuffer keeps.
const maxKept = 64 << 10

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len()+len(p) > 2*maxKept {
		tail := append([]byte(nil), s.b.Bytes()[max(0, s.b.Len()-maxKept):]...)
		s.b.Reset()
		s.b.Write(tail)
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProcess runs exe with args (and the extra environment variables
// env) and waits for its listening line.
func startProcess(ctx context.Context, exe string, env []string, args ...string) (*process, error) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(cleanEnv(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	p := &process{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		first := true
		for sc.Scan() {
			if first {
				lines <- sc.Text()
				first = false
			}
		}
		if first {
			close(lines)
		}
		// Drain anything else so the child never blocks on stdout.
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() { p.done <- cmd.Wait() }()

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case line, ok := <-lines:
		if !ok || !strings.HasPrefix(line, listeningPrefix) {
			p.kill()
			return nil, fmt.Errorf("%s %s did not start (first line %q): %s", exe, strings.Join(args, " "), line, p.stderr.String())
		}
		p.URL = strings.TrimSpace(strings.TrimPrefix(line, listeningPrefix))
		return p, nil
	case <-timer.C:
		p.kill()
		return nil, fmt.Errorf("%s %s printed no listening line within %s: %s", exe, strings.Join(args, " "), startTimeout, p.stderr.String())
	case <-ctx.Done():
		p.kill()
		return nil, ctx.Err()
	}
}

// cleanEnv returns the environment without FOLIO_* variables, so that a
// subprocess uses exactly the data directory and names the benchmark gives
// it and never a site the caller's environment points at.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FOLIO_") {
			env = append(env, kv)
		}
	}
	return env
}

// Pid returns the process id.
func (p *process) Pid() int { return p.cmd.Process.Pid }

// stop asks the process to shut down (SIGTERM) and waits; after the grace
// period it kills it. It returns the process's exit error, if any.
func (p *process) stop(grace time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		return err
	case <-time.After(grace):
		p.kill()
		return errors.New("process did not stop in time and was killed")
	}
}

func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Memory is a process's resident set size: now and at its peak.
type Memory struct {
	RSS  int64 // bytes (VmRSS)
	Peak int64 // bytes (VmHWM)
}

// ReadMemory reads /proc/PID/status. It fails where /proc is missing.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("read memory: %w", err)
	}
	defer f.Close()
	return parseStatus(f)
}

// parseStatus extracts VmRSS and VmHWM from a /proc/PID/status file.
func parseStatus(r io.Reader) (Memory, error) {
	var m Memory
	var seen int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return Memory{}, fmt.Errorf("parse %s: unexpected value %q", key, val)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("parse %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.RSS = n * 1024
		} else {
			m.Peak = n * 1024
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return Memory{}, fmt.Errorf("read status: %w", err)
	}
	if seen < 2 {
		return Memory{}, errors.New("status has no VmRSS/VmHWM lines")
	}
	return m, nil
}
