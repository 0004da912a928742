package main

import (
	"testing"
	"time"
)

// TestProfilingCloseGrace sets the environment, so it runs alone.
func TestProfilingCloseGrace(t *testing.T) { //nolint:paralleltest // t.Setenv
	tests := map[string]struct {
		cpu, mem string
		want     time.Duration
	}{
		"not profiled": {want: 0},
		"cpu":          {cpu: "/tmp/p", want: profileCloseGrace},
		"heap":         {mem: "/tmp/h", want: profileCloseGrace},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PIER_CPUPROFILE", tt.cpu)
			t.Setenv("PIER_MEMPROFILE", tt.mem)
			if got := profilingCloseGrace(); got != tt.want {
				t.Errorf("profilingCloseGrace() = %v, want %v", got, tt.want)
			}
		})
	}
}
