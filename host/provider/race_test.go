//go:build race

package provider

// raceEnabled: the race detector's sync.Pool drops some of what is put
// back, so a count of allocations means nothing under it.
const raceEnabled = true
