package nixsource

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeclaredOperations applies, with the real nix, a flake whose provider
// declaration is exactly what NixOps4's resource module exports (type,
// executable, args: no operations) and whose component declares destroy in
// pier.providers beside rootFunction. A member removed from it is
// destroyed.
func TestDeclaredOperations(t *testing.T) {
	t.Parallel()
	needNix(t)
	flake := copyFlake(t, "operations", nil)
	ref := "path:" + flake

	// What NixOps4 reads of this flake is in its own shape: the component
	// has _type and rootFunction (its evaluator selects only those), and
	// each resource's provider has only the attributes NixOps4's resource
	// module exports (nix/component/resource.nix: type, executable, args).
	shape := exec.CommandContext(t.Context(), "nix", "eval", "--extra-experimental-features", "nix-command flakes", "--json",
		ref+"#nixops4", "--apply", `c: { component = builtins.attrNames c; providers = builtins.attrValues (builtins.mapAttrs (_: m: builtins.attrNames m.resource.provider) ((c.rootFunction { outputValues = { }; resourceProviderSystem = builtins.currentSystem; }).members)); }`)
	out, err := shape.Output()
	if err != nil {
		t.Fatalf("nix eval: %v", err)
	}
	var got struct {
		Component []string
		Providers [][]string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"_type", "pier", "rootFunction"}, got.Component); d != "" {
		t.Errorf("component attributes (-want +got):\n%s", d)
	}
	for _, attrs := range got.Providers {
		if !slices.Equal(attrs, []string{"args", "executable", "type"}) && !slices.Equal(attrs, []string{"builtin"}) {
			t.Errorf("a provider declaration has %v; NixOps4's resource module exports args, executable, type", attrs)
		}
	}
	first := runPier(t, flake, "apply", "--flake", ref)
	if d := cmp.Diff(map[string]float64{"created": 2, "updated": 0, "destroyed": 0}, first.summary(t)); d != "" {
		t.Errorf("first apply (-want +got):\n%s", d)
	}
	requests(t, flake)
	if err := os.WriteFile(filepath.Join(flake, "names.json"), []byte(`["a"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	removal := runPier(t, flake, "apply", "--yes", "--flake", ref)
	if d := cmp.Diff(map[string]float64{"created": 0, "updated": 0, "destroyed": 1}, removal.summary(t)); d != "" {
		t.Errorf("apply after removing b (-want +got):\n%s", d)
	}
	if reqs := requests(t, flake); !slices.Equal(reqs, []string{"destroy b.txt"}) {
		t.Errorf("requests = %q, want destroy b.txt", reqs)
	}
	if _, err := os.Stat(filepath.Join(flake, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt survives its member's removal: %v", err)
	}
}

func TestCheckDeclared(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		declared []declaredOperations
		wantErr  bool
	}{
		"none":              {},
		"destroy":           {declared: []declaredOperations{{Executable: "/p", Operations: []string{"destroy"}}}},
		"no executable":     {declared: []declaredOperations{{Operations: []string{"destroy"}}}, wantErr: true},
		"unknown operation": {declared: []declaredOperations{{Executable: "/p", Operations: []string{"explode"}}}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := checkDeclared(tc.declared); (err != nil) != tc.wantErr {
				t.Errorf("checkDeclared: err = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestWithDeclared(t *testing.T) {
	t.Parallel()
	args := []string{"--log", "x"}
	tests := map[string]struct {
		own      []string
		exe      string
		args     []string
		declared []declaredOperations
		want     []string
	}{
		"nothing declared":       {own: []string{"read"}, exe: "/p", want: []string{"read"}},
		"by executable":          {exe: "/p", declared: []declaredOperations{{Executable: "/p", Operations: []string{"destroy"}}}, want: []string{"destroy"}},
		"other executable":       {exe: "/p", declared: []declaredOperations{{Executable: "/q", Operations: []string{"destroy"}}}},
		"args must match":        {exe: "/p", args: args, declared: []declaredOperations{{Executable: "/p", Args: &[]string{"--other"}, Operations: []string{"destroy"}}}},
		"args match":             {exe: "/p", args: args, declared: []declaredOperations{{Executable: "/p", Args: &args, Operations: []string{"destroy"}}}, want: []string{"destroy"}},
		"union, sorted, no dups": {own: []string{"read", "destroy"}, exe: "/p", declared: []declaredOperations{{Executable: "/p", Operations: []string{"import", "destroy"}}}, want: []string{"destroy", "import", "read"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, withDeclared(tc.own, tc.exe, tc.args, tc.declared)); d != "" {
				t.Errorf("withDeclared (-want +got):\n%s", d)
			}
		})
	}
}
