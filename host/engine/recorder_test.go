package engine

import (
	"testing"
	"time"
)

func TestBatchEvent(t *testing.T) {
	tests := []struct {
		events []string
		want   string
	}{
		{[]string{"create"}, "create"},
		{[]string{EventPending}, EventPending},
		{[]string{EventPending, "forget"}, "forget"},
		{[]string{"destroy", EventPending, "update"}, "destroy+update"},
		{[]string{"create", "destroy"}, "create+destroy"},
	}
	for _, tc := range tests {
		if got := batchEvent(tc.events); got != tc.want {
			t.Errorf("batchEvent(%q) = %q, want %q", tc.events, got, tc.want)
		}
	}
}

// TestBatchWithin: a batch's append is bounded by the shortest bound
// among its changes; changes without one leave it to the others, and a
// batch with none has none.
func TestBatchWithin(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		within []time.Duration
		want   time.Duration
	}{
		"none":          {nil, 0},
		"unbounded":     {[]time.Duration{0, 0}, 0},
		"one":           {[]time.Duration{time.Minute}, time.Minute},
		"first is zero": {[]time.Duration{0, 2 * time.Minute, 0}, 2 * time.Minute},
		"shortest":      {[]time.Duration{2 * time.Minute, time.Second, time.Minute}, time.Second},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var batch []*recordReq
			for _, w := range tc.within {
				batch = append(batch, &recordReq{within: w})
			}
			if got := batchWithin(batch); got != tc.want {
				t.Errorf("batchWithin(%v) = %v, want %v", tc.within, got, tc.want)
			}
		})
	}
}
