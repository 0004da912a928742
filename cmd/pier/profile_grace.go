package main

import (
	"os"
	"time"
)

// profileCloseGrace is how long a profiled provider (PIER_CPUPROFILE or
// PIER_MEMPROFILE set) may take to exit after its stdin closes. An
// adapter writes its CPU profile only as it exits, after its own shutdown
// work (a state_file writes its resolved-state cache, which at 100,000
// resources takes seconds on a loaded machine); killed at the default
// grace it would leave no profile of exactly that work. A profiled run is
// a measurement, so waiting longer costs nothing anyone relies on.
const profileCloseGrace = 2 * time.Minute

// profilingCloseGrace is the engines' provider close grace: 0 (the
// provider package's default) unless this run is profiled.
func profilingCloseGrace() time.Duration {
	if os.Getenv("PIER_CPUPROFILE") != "" || os.Getenv("PIER_MEMPROFILE") != "" {
		return profileCloseGrace
	}
	return 0
}
