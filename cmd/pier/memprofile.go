package main

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
)

// writeHeapProfileAtPeak keeps path holding a heap profile of the largest
// live heap this process has had: after every collection that finds the
// live heap at least an eighth above the last profile's, it writes the
// profile again. A profile taken at exit shows what survived the run, not
// what made its peak RSS, which is what PIER_MEMPROFILE is for. Each
// profile costs a collection of its own (see below), so a profiled run's
// time and RSS are not the unprofiled one's.
//
// The returned function is for the process's exit: a run too short to
// collect even once has written no profile yet, and gets one then, so
// that every profiled process leaves one.
func writeHeapProfileAtPeak(path string) (atExit func()) {
	var mu sync.Mutex
	var last uint64
	written := false
	write := func() {
		// A heap profile is that of the last cycle the runtime
		// published, up to two collections old: collect once more so
		// that it is this one's.
		runtime.GC()
		if f, err := os.Create(path); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
			written = true
		}
	}
	var watch func()
	watch = func() {
		runtime.AddCleanup(new([64]byte), func(struct{}) {
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			metrics.Read(sample)
			mu.Lock()
			if live := sample[0].Value.Uint64(); live > last+last/8 {
				last = live
				write()
			}
			mu.Unlock()
			watch()
		}, struct{}{})
	}
	watch()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if !written {
			write()
		}
	}
}
