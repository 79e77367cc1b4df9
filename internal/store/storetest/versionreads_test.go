package storetest_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/folio-server/folio/internal/store"
	"github.com/folio-server/folio/internal/store/storetest"
)

// TestConcurrentVersionReadsSeeEveryEarlierWrite: many requests read the
// write version at once while writes commit; each sees every write that
// had committed before it asked. Where the store shares reads between
// concurrent requests (PostgreSQL), fewer reads run than requests ask.
func TestConcurrentVersionReadsSeeEveryEarlierWrite(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	reads, shares := db.(interface{ VersionReads() int64 })
	if !shares {
		t.Fatal("the store does not count its shared version reads")
	}
	var committed atomic.Int64 // the highest version known committed
	var writes atomic.Int64
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := db.SetOption(ctx, "version_reads", strconv.Itoa(i)); err != nil {
				t.Error(err)
				return
			}
			var v int64
			if err := db.Tx(ctx, func(tx store.Store) error {
				var err error
				v, err = tx.Version(ctx)
				return err
			}); err != nil {
				t.Error(err)
				return
			}
			for old := committed.Load(); v > old && !committed.CompareAndSwap(old, v); old = committed.Load() {
			}
			writes.Add(1)
		}
	})
	// Each reader reads at least each times, and until 50 writes
	// committed meanwhile.
	const readers, each, minWrites = 16, 150, 50
	before := reads.VersionReads()
	var asked atomic.Int64
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			for i := 0; i < each || writes.Load() < minWrites; i++ {
				floor := committed.Load()
				asked.Add(1)
				v, err := db.Version(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if v < floor {
					t.Errorf("version %d read after version %d had committed", v, floor)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	ran := reads.VersionReads() - before
	if storetest.Backend() == "postgres" && ran >= asked.Load() {
		t.Fatalf("%d reads for %d concurrent requests: none shared", ran, asked.Load())
	}
	t.Logf("%d shared reads for %d requests, %d writes meanwhile", ran, asked.Load(), writes.Load())
}
