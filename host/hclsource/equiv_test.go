package hclsource

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pierhq/pier/host/source"
)

// TestJSONSyntaxEquivalence loads the same deployment written in HCL's
// native and JSON syntaxes and checks that every round resolves the same.
func TestJSONSyntaxEquivalence(t *testing.T) {
	t.Parallel()
	rounds := map[string]source.Outputs{
		"nothing known": nil,
		"db applied":    {"db": {"value": "dbv"}},
		"all applied": {
			"db": {"value": "dbv"}, "node[0]": {}, "node[1]": {}, "web.app": {"x": 1.0},
		},
	}
	ignore := cmp.Options{
		cmpopts.IgnoreFields(source.Resource{}, "Range"),
		cmpopts.IgnoreFields(source.Provider{}, "Range"),
		cmpopts.IgnoreFields(source.Output{}, "Range"),
		cmp.Comparer(func(a, b source.Address) bool { return a.String() == b.String() }),
		cmpopts.AcyclicTransformer("plain", func(m map[string]any) any { return plain(m) }),
	}
	for name, known := range rounds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := mustResolve(t, mustLoad(t, filepath.Join("testdata", "equiv", "hcl"), Options{}), known)
			j := mustResolve(t, mustLoad(t, filepath.Join("testdata", "equiv", "json"), Options{}), known)
			if len(h.Ready)+len(h.Blocked) != 7 {
				t.Errorf("HCL snapshot has %d ready and %d blocked, want 7 in all", len(h.Ready), len(h.Blocked))
			}
			// Executable paths are absolute and differ by directory.
			for _, s := range []*source.Snapshot{h, j} {
				p := *s.Providers["tool"]
				p.Executable = filepath.Base(p.Executable)
				s.Providers["tool"] = &p
			}
			if diff := cmp.Diff(h, j, ignore); diff != "" {
				t.Errorf("HCL vs JSON (-hcl +json):\n%s", diff)
			}
		})
	}
}
