//go:build !linux

package statefile

import "os"

// datasync flushes an appended event; fdatasync is Linux-only, so other
// systems use fsync.
func datasync(f *os.File) error { return f.Sync() }
