package hclsource

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadMultipleFiles checks that blocks in several files, in both
// syntaxes, form one deployment and may refer to each other.
func TestLoadMultipleFiles(t *testing.T) {
	t.Parallel()
	s := mustResolve(t, mustLoad(t, filepath.Join("testdata", "multifile"), Options{}), nil)
	want := map[string]resView{
		"a": {Status: "ready", Provider: "p", Type: "t", Inputs: map[string]any{"from": "hcl", "b": "json"}, DependsOn: []string{"b"}, Line: 5},
		"b": {Status: "ready", Provider: "p", Type: "t", Inputs: map[string]any{"from": "json"}, Line: 3},
	}
	if diff := cmp.Diff(want, view(t, s)); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	tests := map[string]struct {
		dir  string
		want string
	}{
		"no deployment files": {
			dir:  empty,
			want: "load deployment " + empty + ": no .pier.hcl or .pier.json files",
		},
		"no directory": {
			dir:  filepath.Join(empty, "missing"),
			want: "load deployment: open " + filepath.Join(empty, "missing") + ": no such file or directory",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tc.dir, Options{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("Load = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDiagnosticsErrorText checks both renderings of several diagnostics.
func TestDiagnosticsErrorText(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"main.pier.hcl": `resource "a" {
  provider = provider.x
  type     = "t"
}
resource "b" {
  provider = provider.y
  type     = "t"
}
`})
	_, err := Load(dir, Options{})
	if err == nil {
		t.Fatal("Load succeeded")
	}
	f := filepath.Join(dir, "main.pier.hcl")
	want := f + `:2:22: Unknown provider: no provider "x" is declared.` + "\n" +
		f + `:6:22: Unknown provider: no provider "y" is declared.`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Error() (-want +got):\n%s", diff)
	}
}
