package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuiltinNames(t *testing.T) {
	t.Parallel()
	shipped := Adapters{"local": {}, "postgres": {}, "terraform": {Bridge: true}}
	tests := map[string]struct {
		adapters  Adapters
		wantNames []string
		lookups   map[string]bool
	}{
		"nil":     {adapters: nil, lookups: map[string]bool{"local": false}},
		"empty":   {adapters: Adapters{}, lookups: map[string]bool{"": false}},
		"shipped": {adapters: shipped, wantNames: []string{"local", "postgres"}, lookups: map[string]bool{"local": true, "postgres": true, "terraform": false, "cloud": false}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.wantNames, BuiltinNames(tc.adapters)); diff != "" {
				t.Errorf("BuiltinNames (-want +got):\n%s", diff)
			}
			for n, want := range tc.lookups {
				if _, ok := Builtin(tc.adapters, n); ok != want {
					t.Errorf("Builtin(%q) found = %v, want %v", n, ok, want)
				}
			}
		})
	}
}
