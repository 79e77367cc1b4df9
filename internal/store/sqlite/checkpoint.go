package sqlite

import (
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// restartFrames is the WAL's length (in frames, pages) past which the
// checkpointer asks the writer to copy the rest itself (restart).
const restartFrames = 2000

// checkpointInterval is the least time between two of the checkpointer's
// checkpoints: under a steady load of writes each one copies what about
// that much time wrote (SQLite's own automatic checkpoint runs every 1,000
// pages, some 4 MB).
const checkpointInterval = 100 * time.Millisecond

// checkpointer copies the WAL into the database file (PASSIVE checkpoints)
// on a connection of its own. SQLite's automatic checkpoint runs inside the
// COMMIT that grows the WAL past 1,000 pages: on the single writer it held
// every write for the copy and two syncs of the disk (a sixth of the
// writer's time under creates). The writer therefore runs its batches with
// wal_autocheckpoint=0 and kicks the checkpointer after each one; a
// PASSIVE checkpoint waits for nobody and blocks nobody, copying what no
// reader still needs, and the WAL restarts from its beginning once all of
// it is copied, which a writer finds as it begins: under a steady load of
// writes, a checkpoint 100 ms behind never copies all of it in time. So
// once the WAL is past restartFrames the checkpointer asks the writer
// (restart) to copy what is left, between two batches: the few frames
// since the last checkpoint. The truncation past walCheckpointBytes stays
// the writer's (group.afterBatch).
type checkpointer struct {
	db *sql.DB
	// interval is checkpointInterval (tests shorten it).
	interval atomic.Int64
	kick     chan struct{}
	stop     chan struct{}
	stopped  chan struct{}
	once     sync.Once
	// mu is held by whoever runs a checkpoint, the checkpointer or the
	// writer (group.checkpoint): SQLite answers a checkpoint begun while
	// another runs with SQLITE_BUSY at once, without waiting.
	mu sync.Mutex
	// restart is set when the WAL is longer than restartAt frames
	// (restartFrames; tests lower it): the writer then finishes a
	// checkpoint itself (group.afterBatch).
	restart   atomic.Bool
	restartAt atomic.Int64
	// runs counts the checkpoints run; stats are the group's counters.
	runs  atomic.Int64
	stats *GroupStats
}

func newCheckpointer(db *sql.DB, interval time.Duration, stats *GroupStats) *checkpointer {
	c := &checkpointer{db: db, stats: stats, kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	c.interval.Store(int64(interval))
	c.restartAt.Store(restartFrames)
	go c.run()
	return c
}

// wake asks for a checkpoint: at once when the last one is at least
// interval old, else then.
func (c *checkpointer) wake() {
	select {
	case c.kick <- struct{}{}:
	default: // one is asked for already
	}
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		// A failure (the file busy) leaves the frames to the next one.
		var busy, frames, copied int64
		c.mu.Lock()
		err := c.db.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
		c.mu.Unlock()
		c.runs.Add(1)
		if err != nil || busy != 0 {
			c.stats.PassiveBusy.Add(1)
		} else {
			c.stats.Passive.Add(1)
		}
		if err == nil && frames > c.restartAt.Load() {
			c.restart.Store(true)
		}
		select {
		case <-c.stop:
			return
		case <-time.After(time.Duration(c.interval.Load())):
		}
	}
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.stopped
	return c.db.Close()
}
