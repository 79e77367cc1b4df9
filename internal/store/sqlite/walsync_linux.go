package sqlite

import (
	"os"
	"syscall"
)

// datasync flushes f's data (and the size that reaching it needs) to the
// disk, as SQLite itself does on Linux.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
