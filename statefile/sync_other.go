//go:build !linux

package statefile

import "os"

// syncWrites is the flag the writer opens its log with; elsewhere than
// Linux it is none, and datasync flushes each event.
const syncWrites = 0

// datasync flushes an appended event; fdatasync is Linux-only, so other
// systems use fsync.
func datasync(f *os.File) error { return f.Sync() }
