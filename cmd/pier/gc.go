package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the collector's pace for every pier process: it lets the
// heap grow to five times what is live before collecting, where Go's
// default is twice. pier's processes allocate far more than they keep: a
// no-op plan of 10,000 resources allocates about 100 MiB and keeps less
// than half of it, and collecting at the default pace costs it about a
// sixth of its CPU; a Terraform bridge keeps about 5 MiB while it
// converts every request and response. A long apply keeps little (about
// 11 MiB for 1000 bridged resources), so its heap stays small instead of
// growing to a fixed threshold first, and pier's own processes stay
// smaller than the providers they run.
const gcPercent = 400

// tuneGC sets the collector's pace. GOGC or GOMEMLIMIT in the
// environment win: the user chose.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
}
