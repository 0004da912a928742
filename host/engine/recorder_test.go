package engine

import "testing"

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
