package statefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync flushes an appended event. fdatasync skips the inode times,
// which replay does not need; the file size, which it does need, is
// flushed either way.
func datasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
