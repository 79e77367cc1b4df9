package sqlite

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/folio-server/folio/internal/store"
)

// versionReads returns db's version and how many statements reading it
// ran.
func versionReads(t *testing.T, db *DB) (v, stmts int64) {
	t.Helper()
	before := db.Statements()
	v, err := db.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v, db.Statements() - before
}

// TestVersionIsReadAfterCommitsOnly: the version is read from the
// database when a transaction committed since the last read, and taken
// from that read otherwise.
func TestVersionIsReadAfterCommitsOnly(t *testing.T) {
	t.Parallel()
	db := openAt(t, filepath.Join(t.TempDir(), "folio.db"))
	ctx := context.Background()
	if db.c.marks == nil {
		t.Fatal("no WAL-index header read on a file in WAL mode")
	}
	v0, _ := versionReads(t, db)
	v, reads := versionReads(t, db)
	if v != v0 || reads != 0 {
		t.Fatalf("nothing committed: version %d after %d (%d statements), want the same and none", v, v0, reads)
	}
	if err := db.SetOption(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	v1, reads := versionReads(t, db)
	if v1 <= v0 || reads != 1 {
		t.Fatalf("after a write: version %d after %d (%d statements), want a later one, read once", v1, v0, reads)
	}
	if v, reads := versionReads(t, db); v != v1 || reads != 0 {
		t.Fatalf("read again: version %d (%d statements), want %d and none", v, reads, v1)
	}
	// A commit that leaves the version as it was still has it read.
	if _, err := db.c.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS scratch (x)`); err != nil {
		t.Fatal(err)
	}
	if v, reads := versionReads(t, db); v != v1 || reads != 1 {
		t.Fatalf("after a commit that kept it: version %d (%d statements), want %d, read once", v, reads, v1)
	}
}

// TestSignInIsReadAfterCommitsOnly: a key's sign-in read (the
// generations and its login counter) is taken from the last read of that
// key when nothing committed since, and read again after any commit: a
// counter moved, an option set, a generation moved by another program.
func TestSignInIsReadAfterCommitsOnly(t *testing.T) {
	t.Parallel()
	db := openAt(t, filepath.Join(t.TempDir(), "folio.db"))
	ctx := context.Background()
	read := func(key string) (store.Generations, store.LoginCounter, int64) {
		t.Helper()
		before := db.Statements()
		gen, c, err := db.AuthGeneration(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return gen, c, db.Statements() - before
	}
	g0, _, _ := read("a")
	if g, c, n := read("a"); g != g0 || c.Key != "a" || c.Failures != 0 || n != 0 {
		t.Fatalf("nothing committed: %+v %+v in %d statements, want %+v, no failures, none", g, c, n, g0)
	}
	if _, c, n := read("b"); c.Key != "b" || n != 1 {
		t.Fatalf("another key: %+v in %d statements, want b read once", c, n)
	}
	err := db.UpdateLoginCounters(ctx, []string{"a"}, func(cs []store.LoginCounter) []store.LoginCounter {
		cs[0].Failures, cs[0].Last, cs[0].Next = 3, time.Now(), time.Now().Add(time.Minute)
		return cs
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, c, n := read("a"); c.Failures != 3 || n != 1 {
		t.Fatalf("after a failure was counted: %d failures in %d statements, want 3, read once", c.Failures, n)
	}
	if _, c, n := read("a"); c.Failures != 3 || n != 0 {
		t.Fatalf("read again: %d failures in %d statements, want 3 and none", c.Failures, n)
	}
	if err := db.SetOption(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	g1, _, n := read("a")
	if g1.Site <= g0.Site || n != 1 {
		t.Fatalf("after an option was set: site generation %d after %d (%d statements), want a later one, read once", g1.Site, g0.Site, n)
	}
	// A generation moved by another program on the file.
	if _, err := db.c.write.ExecContext(ctx, `UPDATE auth_generation SET n = n + 1`); err != nil {
		t.Fatal(err)
	}
	if g, _, n := read("a"); g.Auth <= g1.Auth || n != 1 {
		t.Fatalf("after the authentication generation moved: %d after %d (%d statements), want a later one, read once", g.Auth, g1.Auth, n)
	}
	// Inside a write transaction the read is the transaction's own.
	err = db.Tx(ctx, func(tx store.Store) error {
		before := db.Statements()
		if _, _, err := tx.(store.UserAppPasswordsStore).AuthGeneration(ctx, "a"); err != nil {
			return err
		}
		if n := db.Statements() - before; n != 1 {
			t.Errorf("in a transaction: %d statements, want 1", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVersionSeesAnotherProcessWrite: a write committed by another
// process (the command line beside a serving node) is seen at the next
// read of the version.
func TestVersionSeesAnotherProcessWrite(t *testing.T) {
	if path := os.Getenv("FOLIO_VERSION_CHILD"); path != "" {
		db, err := Open(context.Background(), path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.SetOption(context.Background(), "child", "wrote"); err != nil {
			t.Fatal(err)
		}
		return
	}
	path, db := childProcessFile(t)
	for i := range 3 {
		before, _ := versionReads(t, db)
		if _, reads := versionReads(t, db); reads != 0 {
			t.Fatalf("round %d: the version was read again with nothing committed", i)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestVersionSeesAnotherProcessWrite$", "-test.v=false")
		cmd.Env = append(os.Environ(), "FOLIO_VERSION_CHILD="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("round %d: child: %v\n%s", i, err, out)
		}
		after, reads := versionReads(t, db)
		if after <= before || reads != 1 {
			t.Fatalf("round %d: after the other process wrote: version %d after %d (%d statements), want a later one", i, after, before, reads)
		}
	}
}

// TestStoresOfOneFileShareItsHeader: two stores of one process on one
// file read the header through one descriptor, which the first to close
// (even twice) leaves open for the other.
func TestStoresOfOneFileShareItsHeader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "folio.db")
	one := openAt(t, path)
	ctx := context.Background()
	two, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if one.c.marks == nil || two.c.marks == nil || one.c.marks.shm != two.c.marks.shm {
		t.Fatal("the two stores do not share the -shm file's descriptor")
	}
	if refs := sharedRefs(one.c.marks.shm); refs != 2 {
		t.Fatalf("%d stores hold the descriptor, want 2", refs)
	}
	if err := two.Close(); err != nil {
		t.Fatal(err)
	}
	if err := two.Close(); err != nil {
		t.Fatalf("closing a closed store: %v", err)
	}
	if refs := sharedRefs(one.c.marks.shm); refs != 1 {
		t.Fatalf("%d stores hold the descriptor after one closed (twice), want 1", refs)
	}
	before, _ := versionReads(t, one)
	if err := one.SetOption(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if after, reads := versionReads(t, one); after <= before || reads != 1 {
		t.Fatalf("after the other store closed: version %d after %d (%d statements)", after, before, reads)
	}
	if _, ok := one.c.ChangeMark(); !ok {
		t.Fatal("the header cannot be read after the other store closed")
	}
}

func sharedRefs(s *shmFile) int {
	shmFiles.Lock()
	defer shmFiles.Unlock()
	return s.refs
}

// TestChangeMarkOnlyFromAWholeHeader: a header is a mark only when its
// two copies agree, it is initialized and of the known format.
func TestChangeMarkOnlyFromAWholeHeader(t *testing.T) {
	t.Parallel()
	header := func() []byte {
		h := make([]byte, walIndexHeader)
		binary.NativeEndian.PutUint32(h[0:4], walIndexVersion)
		binary.NativeEndian.PutUint32(h[8:12], 7) // iChange
		h[12] = 1                                 // isInit
		return h
	}
	for _, c := range []struct {
		name   string
		second func([]byte) []byte
		first  func([]byte) []byte
		ok     bool
	}{
		{"whole", nil, nil, true},
		{"copies differ", func(h []byte) []byte { h[8]++; return h }, nil, false},
		{"not initialized", func(h []byte) []byte { h[12] = 0; return h }, func(h []byte) []byte { h[12] = 0; return h }, false},
		{"other format", func(h []byte) []byte { h[0]++; return h }, func(h []byte) []byte { h[0]++; return h }, false},
	} {
		first, second := header(), header()
		if c.first != nil {
			first = c.first(first)
		}
		if c.second != nil {
			second = c.second(second)
		}
		path := filepath.Join(t.TempDir(), "x-shm")
		if err := os.WriteFile(path, append(first, second...), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m := &changeMarks{shm: &shmFile{f: f}}
		mark, ok := m.mark()
		f.Close()
		if ok != c.ok {
			t.Fatalf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if ok && string(mark[:]) != string(first) {
			t.Fatalf("%s: the mark is not the header", c.name)
		}
	}
	short := filepath.Join(t.TempDir(), "short-shm")
	if err := os.WriteFile(short, header(), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(short)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := (&changeMarks{shm: &shmFile{f: f}}).mark(); ok {
		t.Fatal("a file shorter than the two copies gave a mark")
	}
}
