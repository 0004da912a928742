package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// startHeap is the heap a pier process grows to before its first garbage
// collection. Most commands are short: a no-op plan of 10,000 resources
// allocates about 100 MiB in all and keeps less than half of it, and
// collecting it in the default steps (4, 8, 16… MiB) costs a quarter of its
// CPU. Past this size pier collects as any Go program does, so a large
// state (hundreds of MiB) costs no more memory than before.
const startHeap = 128 << 20

// tuneGC turns the collector off until the heap reaches startHeap (a
// memory limit makes it collect then), and back to its defaults once a
// collection finds more than half of that still live: from then on the
// heap is large, and the default pace keeps it at about twice what is
// live. GOGC or GOMEMLIMIT in the environment win: the user chose.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startHeap)
	watchHeap()
}

// watchHeap runs after the next collection (a cleanup of an object that
// nothing refers to) and restores the defaults once the heap is large.
func watchHeap() {
	runtime.AddCleanup(new([64]byte), func(struct{}) {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > startHeap/2 {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			return
		}
		watchHeap()
	}, struct{}{})
}
