package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/bench"
	"github.com/folio-server/folio/internal/cli"
	"github.com/folio-server/folio/internal/config"
	"github.com/folio-server/folio/internal/server"
	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// asFolio, set in a process's environment, makes the test binary run the
// folio command line instead of the tests: the benchmark starts it as its
// `folio` (serve, user create, user app-password). The benchmark keeps
// its subprocesses' environment but for FOLIO_* variables, so the name
// does not start with FOLIO_.
const asFolio = "BENCH_TEST_RUN_AS_FOLIO"

func TestMain(m *testing.M) {
	if os.Getenv(asFolio) == "1" {
		root := cli.NewRootCmd("test")
		root.SetArgs(os.Args[1:])
		if err := root.Execute(); err != nil {
			fmt.Fprintln(os.Stderr, "folio:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// soakOptions runs a soak on a tiny site with this test binary as folio,
// on the store the tests run on.
func soakOptions(t *testing.T) bench.Options {
	t.Helper()
	t.Setenv(asFolio, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts := bench.Options{
		Posts:        20,
		Soak:         2 * time.Second,
		SoakInterval: time.Second,
		Exe:          exe,
		Database:     os.Getenv(storetest.EnvDatabaseURL),
	}
	opts.OpenStore = func(ctx context.Context, where string) (store.Store, error) {
		cfg := config.Default()
		if opts.Database != "" {
			cfg.DatabaseURL = where
		} else {
			cfg.DataDir = where
		}
		return server.OpenStore(ctx, cfg)
	}
	return opts
}

func TestSoakReportsARowPerIntervalAndWhetherTheWALAndRSSStayedBounded(t *testing.T) {
	opts := soakOptions(t)
	var out bytes.Buffer
	rep, err := bench.Soak(context.Background(), opts, &out)
	if err != nil {
		t.Fatal(err)
	}
	sqlite := storetest.Backend() == "sqlite"
	wantBackend := map[bool]string{true: "SQLite", false: "PostgreSQL"}[sqlite]
	if rep.Backend != wantBackend || rep.Posts != 20 || rep.Duration != 2*time.Second || rep.Interval != time.Second {
		t.Errorf("report is %s, %d posts, %s every %s; want %s, 20 posts, 2s every 1s", rep.Backend, rep.Posts, rep.Duration, rep.Interval, wantBackend)
	}

	// The lines written while the soak ran are the report's markdown.
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if out.String() != md.String() {
		t.Errorf("lines written during the soak:\n%s\ndiffer from the report:\n%s", out.String(), md.String())
	}
	text := out.String()

	var head []string
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if head == nil {
			head = cells
		} else {
			rows = append(rows, cells)
		}
	}
	wantHead := []string{"time", "reads/s", "read p50", "read p99", "writes/s", "write p50", "write p99", "errors"}
	if sqlite {
		wantHead = append(wantHead, "WAL", "WAL max", "database", "RSS", "batches", "members/batch", "checkpoints (busy)")
	} else {
		wantHead = append(wantHead, "WAL written", "database", "RSS")
	}
	if strings.Join(head, ",") != strings.Join(wantHead, ",") {
		t.Errorf("table head = %q, want %q", head, wantHead)
	}
	if len(rows) != 2 || len(rep.Intervals) != 2 {
		t.Fatalf("%d rows, %d intervals, want 2 (2s, a row every 1s):\n%s", len(rows), len(rep.Intervals), text)
	}
	for i, row := range rows {
		if len(row) != len(wantHead) {
			t.Errorf("row %d has %d cells, want %d: %q", i, len(row), len(wantHead), row)
			continue
		}
		if want := fmt.Sprintf("0:%02d", i+1); row[0] != want {
			t.Errorf("row %d time = %q, want %s", i, row[0], want)
		}
		if row[7] != "0" {
			t.Errorf("row %d errors = %s", i, row[7])
		}
		for _, c := range wantHead[8:] {
			if strings.HasPrefix(c, "WAL") || c == "database" || c == "RSS" {
				if v := row[indexOf(wantHead, c)]; !strings.HasSuffix(v, " MiB") {
					t.Errorf("row %d %s = %q, want a size in MiB", i, c, v)
				}
			}
		}
		iv := rep.Intervals[i]
		if iv.DB <= 0 || iv.RSS <= 0 {
			t.Errorf("interval %d: database %d bytes, RSS %d bytes", i, iv.DB, iv.RSS)
		}
		if sqlite && iv.Group == nil {
			t.Errorf("interval %d: no group-commit counters from the server's metrics", i)
		}
	}

	if rep.Reads.Requests == 0 || rep.Writes.Requests == 0 || rep.Reads.Errors != 0 || rep.Writes.Errors != 0 {
		t.Errorf("reads %+v, writes %+v: want both, without errors (first errors %q, %q)", rep.Reads, rep.Writes, rep.FirstReadError, rep.FirstWriteError)
	}
	var batches, members int64
	for _, iv := range rep.Intervals {
		if iv.Group != nil {
			batches += iv.Group.Batches
			members += iv.Group.Members
		}
	}
	if sqlite && (batches == 0 || members < rep.Writes.Requests) {
		t.Errorf("the writer committed %d batches of %d members for %d creates", batches, members, rep.Writes.Requests)
	}

	if len(rep.ReadKinds) != 5 {
		t.Errorf("reads by kind: %+v, want 5 kinds", rep.ReadKinds)
	}
	var byKind int64
	for _, k := range rep.ReadKinds {
		byKind += k.Requests
		if !strings.Contains(text, " "+k.Name+" ") {
			t.Errorf("summary lacks the reads of %s:\n%s", k.Name, text)
		}
	}
	if byKind != rep.Reads.Requests {
		t.Errorf("reads by kind add up to %d, reads are %d", byKind, rep.Reads.Requests)
	}
	for _, want := range []string{"\nWhole soak: ", "\nReads by kind: list pages 1-50 ", "\nRSS: peak ", "limit 200.0 MiB: within.\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if !rep.RSSBounded() {
		t.Errorf("a 20-post site's server peaked at %d bytes", rep.Peak)
	}
	if sqlite {
		if !rep.WALBounded() || rep.WALMax <= 0 || !strings.Contains(text, "\nWAL: largest ") || !strings.Contains(text, "limit 128.0 MiB: within.\n") {
			t.Errorf("WAL largest %d bytes, bounded %v; summary:\n%s", rep.WALMax, rep.WALBounded(), text)
		}
	} else if rep.WALBounded() || !strings.Contains(text, "\nWAL: not applicable on PostgreSQL") {
		t.Errorf("PostgreSQL summary does not say the WAL bound does not apply:\n%s", text)
	}
}

func TestSoakNeedsADurationAndOneNode(t *testing.T) {
	opts := soakOptions(t)
	opts.Soak = 0
	if _, err := bench.Soak(context.Background(), opts, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "soak duration") {
		t.Errorf("soak of 0s: err = %v", err)
	}
	opts = soakOptions(t)
	opts.Nodes = 2
	opts.Database = "postgres://127.0.0.1/x"
	if _, err := bench.Soak(context.Background(), opts, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "one node") {
		t.Errorf("soak on 2 nodes: err = %v", err)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
