package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"sync"

	"github.com/folio-server/folio/internal/store/sqlstore"
)

// The response cache and conditional requests read the store's version
// before every answer. Reading its one row begins and ends a read
// transaction, several times the cost of the lookup, and it was a
// quarter of the CPU of a cached GET /posts. SQLite's WAL-index (the
// -shm file every connection to the database maps) begins with a header
// that every commit rewrites, in any process: its change counter, the
// WAL's last frame and their checksum. Read with one pread (under 1 µs),
// an unchanged header tells that the version read last is still the
// version (sqlstore.ChangeMarker).
//
// Two rules keep it true:
//   - The -shm file read must be the one SQLite uses. SQLite removes it
//     when its last connection to the database closes, and the next one
//     creates a new file, which a descriptor of the old one would never
//     see change. The store holds one connection open (pin) for as long
//     as it reads the header: while any connection is open, SQLite keeps
//     the file (removing it takes a lock no other connection may hold).
//   - The descriptor is closed only when no connection of this process
//     uses the file. SQLite locks the -shm file with POSIX locks, which
//     belong to the process: closing any descriptor of the file drops
//     every one of them, those of SQLite's connections too. Stores of one
//     process on one file share one descriptor (shmFiles), closed by the
//     last of them after it closed its connections.

// walIndexVersion is the version of the WAL-index format whose header
// the store reads (SQLite's WALINDEX_MAX_VERSION).
const walIndexVersion = 3007000

// walIndexHeader is the size of one copy of the header; SQLite writes
// it twice, the second copy first, and a reader that finds the two
// copies different is reading while a commit writes them.
const walIndexHeader = 48

// changeMarks reads the WAL-index header of a database.
type changeMarks struct {
	pin    *sql.DB // one connection, held by conn
	conn   *sql.Conn
	shm    *shmFile
	closed sync.Once
}

// openChangeMarks opens the reading of path's WAL-index header, with a
// connection of its own opened with query.
func openChangeMarks(ctx context.Context, path, query string) (*changeMarks, error) {
	pin, err := sql.Open("sqlite", path+"?"+query)
	if err != nil {
		return nil, err
	}
	pin.SetMaxOpenConns(1)
	conn, err := pin.Conn(ctx)
	if err != nil {
		pin.Close()
		return nil, err
	}
	// A read opens the connection's WAL, and with it the -shm file.
	var n int64
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema`).Scan(&n); err != nil {
		conn.Close()
		pin.Close()
		return nil, err
	}
	shm, err := openShm(path + "-shm")
	if err != nil {
		conn.Close()
		pin.Close()
		return nil, err
	}
	return &changeMarks{pin: pin, conn: conn, shm: shm}, nil
}

// mark returns the header, when both copies agree and it is one of the
// format this store knows.
func (m *changeMarks) mark() (sqlstore.ChangeMark, bool) {
	var mark sqlstore.ChangeMark
	var b [2 * walIndexHeader]byte
	if n, _ := m.shm.f.ReadAt(b[:], 0); n != len(b) {
		return mark, false
	}
	if !bytes.Equal(b[:walIndexHeader], b[walIndexHeader:]) {
		return mark, false // a commit is writing it
	}
	// iVersion (native byte order) and isInit.
	if binary.NativeEndian.Uint32(b[0:4]) != walIndexVersion || b[12] == 0 {
		return mark, false
	}
	copy(mark[:], b[:walIndexHeader])
	return mark, true
}

// close closes the pinned connection, then gives the descriptor back:
// the caller closed its own connections to the file first. Closing again
// does nothing.
func (m *changeMarks) close() (err error) {
	m.closed.Do(func() {
		err = errors.Join(m.conn.Close(), m.pin.Close())
		m.shm.release()
	})
	return err
}

// shmFile is an open -shm file, shared by the stores of this process on
// one database.
type shmFile struct {
	f    *os.File
	fi   os.FileInfo // f's, to tell the file
	refs int
	// extra are descriptors of the same file opened by a store that
	// raced with another (see openShm), closed with f.
	extra []*os.File
}

var shmFiles struct {
	sync.Mutex
	open []*shmFile
}

// sharedShm returns the open file that is fi's, if any.
func sharedShm(fi os.FileInfo) *shmFile {
	for _, s := range shmFiles.open {
		if os.SameFile(s.fi, fi) {
			return s
		}
	}
	return nil
}

// openShm returns the shared descriptor of the -shm file at path,
// opening it when this process has none. A descriptor it opens is closed
// only by release: SQLite may hold locks on the file.
func openShm(path string) (*shmFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	shmFiles.Lock()
	defer shmFiles.Unlock()
	if s := sharedShm(fi); s != nil {
		s.refs++
		return s, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The file opened is the one found above (the pinned connection
	// keeps it), but it is told by the descriptor's own where it can be.
	if ffi, err := f.Stat(); err == nil {
		fi = ffi
	}
	if s := sharedShm(fi); s != nil {
		s.refs++
		s.extra = append(s.extra, f)
		return s, nil
	}
	s := &shmFile{f: f, fi: fi, refs: 1}
	shmFiles.open = append(shmFiles.open, s)
	return s, nil
}

// release gives the descriptor back; the last store to use it closes it.
func (s *shmFile) release() {
	shmFiles.Lock()
	defer shmFiles.Unlock()
	if s.refs--; s.refs > 0 {
		return
	}
	shmFiles.open = slices.DeleteFunc(shmFiles.open, func(o *shmFile) bool { return o == s })
	s.f.Close()
	for _, f := range s.extra {
		f.Close()
	}
}
