package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcPercent is the collector's pace for every pier process while its heap
// is small: the heap may grow to five times what is live before a
// collection, where Go's default is twice. pier's processes allocate far
// more than they keep: a no-op plan of 10,000 resources allocates about
// 100 MiB and keeps less than half of it, and collecting at the default
// pace costs it about a sixth of its CPU; a Terraform bridge keeps about
// 5 MiB while it converts every request and response. A long apply keeps
// little (about 11 MiB for 1000 bridged resources), so its heap stays
// small instead of growing to a fixed threshold first, and pier's own
// processes stay smaller than the providers they run.
const gcPercent = 400

// largeHeap is the live heap past which a process collects at Go's default
// pace again: five times a large state (hundreds of MiB) would be memory
// no one expects pier to take.
const largeHeap = 64 << 20

// tuneGC sets the collector's pace. GOGC or GOMEMLIMIT in the
// environment win: the user chose.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	watchHeap()
}

// watchHeap runs after the next collection (as the cleanup of an object
// nothing refers to) and restores Go's default pace once the live heap is
// large; otherwise it watches the collection after.
func watchHeap() {
	runtime.AddCleanup(new([64]byte), func(struct{}) {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > largeHeap {
			debug.SetGCPercent(100)
			return
		}
		watchHeap()
	}, struct{}{})
}
