package main

import "testing"

func TestPaceFor(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		live  uint64
		small bool
		want  int
	}{
		"applying, small heap":      {live: 9 << 20, small: true, want: 100},
		"applying, nothing live":    {live: 0, small: true, want: 100},
		"applying, at smallHeap":    {live: smallHeap, small: true, want: gcPercent},
		"applying, middle heap":     {live: 40 << 20, small: true, want: gcPercent},
		"applying, at largeHeap":    {live: largeHeap, small: true, want: gcPercent},
		"applying, large heap":      {live: 100 << 20, small: true, want: 100},
		"planning, small heap":      {live: 3 << 20, small: false, want: gcPercent},
		"planning, nothing live":    {live: 0, small: false, want: gcPercent},
		"planning, below largeHeap": {live: largeHeap - 1, small: false, want: gcPercent},
		"planning, above largeHeap": {live: largeHeap + 1, small: false, want: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := paceFor(tc.live, tc.small); got != tc.want {
				t.Errorf("paceFor(%d, %v) = %d, want %d", tc.live, tc.small, got, tc.want)
			}
		})
	}
}
