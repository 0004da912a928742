package engine

import (
	"fmt"
	"testing"
)

// TestEnumNames pins every event type's and status's name: they are what
// `--json` events and the web view carry, so a changed one breaks readers.
func TestEnumNames(t *testing.T) {
	for _, tc := range []struct {
		v    fmt.Stringer
		want string
	}{
		{EventInvalid, "invalid"},
		{EventStatus, "status"},
		{EventLog, "log"},
		{EventEvaluation, "evaluation"},
		{EventType(4), "EventType(4)"},
		{StatusInvalid, "INVALID"},
		{StatusPending, "PENDING"},
		{StatusApplying, "APPLYING"},
		{StatusApplied, "APPLIED"},
		{StatusErrored, "ERRORED"},
		{StatusSkipped, "SKIPPED"},
		{StatusRefreshing, "REFRESHING"},
		{StatusRefreshed, "REFRESHED"},
		{Status(8), "Status(8)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%T %d: String() = %q, want %q", tc.v, tc.v, got, tc.want)
		}
	}
}
