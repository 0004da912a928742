package main

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
)

// writeHeapProfileAtPeak keeps path holding a heap profile of the largest
// live heap this process has had: after every collection that finds the
// live heap at least an eighth above the last profile's, it writes the
// profile again. A profile taken at exit shows what survived the run, not
// what made its peak RSS, which is what PIER_MEMPROFILE is for. Each
// profile costs a collection of its own (see below), so a profiled run's
// time and RSS are not the unprofiled one's.
func writeHeapProfileAtPeak(path string) {
	var last uint64
	var watch func()
	watch = func() {
		runtime.AddCleanup(new([64]byte), func(struct{}) {
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > last+last/8 {
				last = live
				// A heap profile is that of the last cycle the runtime
				// published, up to two collections old: collect once
				// more so that it is this one's.
				runtime.GC()
				if f, err := os.Create(path); err == nil {
					pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
			}
			watch()
		}, struct{}{})
	}
	watch()
}
