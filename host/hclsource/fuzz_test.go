package hclsource

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pierhq/pier/host/source"
)

// FuzzLoad feeds one deployment file, in either syntax, through Load and
// two rounds of Resolve. Any outcome but a panic or a non-diagnostic error
// is fine.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "*.pier.*"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*", "*", "*.pier.*"))
	for _, p := range append(seeds, more...) {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, filepath.Ext(p) == ".json")
	}
	f.Add([]byte(chainSrc), false)
	f.Fuzz(func(t *testing.T, src []byte, isJSON bool) {
		name := "main.pier.hcl"
		if isJSON {
			name = "main.pier.json"
		}
		d, err := loadFiles("fuzz", []sourceFile{{filepath.Join("fuzz", name), src}}, Options{})
		var de *DiagnosticsError
		if err != nil {
			if !errors.As(err, &de) {
				t.Fatalf("Load returned %T %v, want *DiagnosticsError", err, err)
			}
			_ = de.Error()
			return
		}
		_ = d.Graph()
		// Large counts are correct but slow, which only hides real finds.
		d.maxInstances = 50
		snap, err := d.Resolve(t.Context(), nil)
		if err != nil {
			if !errors.As(err, &de) {
				t.Fatalf("Resolve returned %T %v, want *DiagnosticsError", err, err)
			}
			return
		}
		// Feed every ready resource some outputs and resolve again.
		known := source.Outputs{}
		for _, r := range snap.Ready {
			known[r.Address.String()] = map[string]any{"x": "1", "items": []any{"a"}}
		}
		if _, err := d.Resolve(t.Context(), known); err != nil && !errors.As(err, &de) {
			t.Fatalf("second Resolve returned %T %v, want *DiagnosticsError", err, err)
		}
	})
}
