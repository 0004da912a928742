package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcPercent is the collector's pace for every pier process while its heap
// is neither large nor, in an apply's execution, small (see smallHeap):
// the heap may grow to five times what is live before a collection, where
// Go's default is twice. pier's processes allocate far more than they
// keep: a no-op plan of 10,000 resources allocates about 100 MiB and
// keeps less than half of it, and collecting at the default pace costs it
// about a sixth of its CPU; a Terraform bridge keeps about 5 MiB while it
// converts every request and response.
const gcPercent = 400

// largeHeap is the live heap past which a process collects at Go's default
// pace again: five times a large state (hundreds of MiB) would be memory
// no one expects pier to take.
const largeHeap = 64 << 20

// smallHeap is the live heap below which the command collects at Go's
// default pace once it executes an apply (see startApplying): its heap
// then stays below twice what it keeps, and a collection marks less than
// 16 MiB, a few milliseconds of CPU. An apply's execution is long and
// allocates slowly while it waits for providers, and at gcPercent its
// heap grows until the command exits: a fresh apply of 1000 bridged
// resources keeps 8-12 MiB, allocates about 25 MiB while it executes, and
// collected once, at the plan, so its heap ended at about 30 MiB, the
// largest resident set of all of pier's processes. Planning keeps
// gcPercent: the no-op of 10,000 resources spends its CPU there.
const smallHeap = 16 << 20

// gcTuned says tuneGC set the pace (the environment did not).
var gcTuned atomic.Bool

// applying says the command executes an apply: small heaps collect at
// Go's default pace.
var applying atomic.Bool

// tuneGC sets the collector's pace. GOGC or GOMEMLIMIT in the
// environment win: the user chose.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	gcTuned.Store(true)
	debug.SetGCPercent(gcPercent)
	watchHeap()
}

// startApplying is called by the commands that execute a plan with
// changes (apply, destroy) once it is made, before the first operation
// starts: from then on a small live heap collects at Go's default pace,
// starting with the plan's own garbage. A plan without changes executes
// nothing, so a no-op apply collects nothing more.
func startApplying() {
	applying.Store(true)
	if !gcTuned.Load() {
		return
	}
	// The live heap is the last collection's, perhaps from early in the
	// plan; a heap of objects below twice smallHeap bounds what is live
	// now, so that the collection this may start right away marks
	// little. A larger heap waits for its next collection to choose.
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	if sample[1].Value.Uint64() < 2*smallHeap {
		debug.SetGCPercent(paceFor(sample[0].Value.Uint64(), true))
	}
}

// paceFor is the collector's pace for the next cycle given the live heap
// the last one left; small says whether a small heap collects at the
// default pace (an apply's execution) or at gcPercent.
func paceFor(live uint64, small bool) int {
	switch {
	case live > largeHeap:
		return 100
	case small && live < smallHeap:
		return 100
	default:
		return gcPercent
	}
}

// watchHeap runs after the next collection (as the cleanup of an object
// nothing refers to) and sets the pace paceFor gives for the live heap.
// Once the live heap is large the pace stays Go's default; otherwise it
// watches the collection after.
func watchHeap() {
	runtime.AddCleanup(new([64]byte), func(struct{}) {
		live, ok := liveHeap()
		if !ok {
			return
		}
		debug.SetGCPercent(paceFor(live, applying.Load()))
		if live > largeHeap {
			return
		}
		watchHeap()
	}, struct{}{})
}

// liveHeap is the live heap the last collection found.
func liveHeap() (uint64, bool) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return sample[0].Value.Uint64(), true
}
