package hclsource

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
		got, err := d.Resolve(t.Context(), known)
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("second Resolve returned %T %v, want *DiagnosticsError", err, err)
		}
		// The incremental answer must be the answer from scratch.
		fresh, ferr := loadFiles("fuzz", []sourceFile{{filepath.Join("fuzz", name), src}}, Options{})
		if ferr != nil {
			t.Fatalf("second Load: %v", ferr)
		}
		fresh.maxInstances = d.maxInstances
		want, ferr := fresh.Resolve(t.Context(), known)
		if (err == nil) != (ferr == nil) {
			t.Fatalf("incremental Resolve error %v, fresh Resolve error %v", err, ferr)
		}
		if err == nil {
			if diff := cmp.Diff(view(t, want), view(t, got)); diff != "" {
				t.Fatalf("incremental vs fresh (-fresh +incremental):\n%s", diff)
			}
		}
	})
}
