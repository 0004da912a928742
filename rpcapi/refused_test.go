package rpcapi_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
)

// keptHCL is a deployment whose memo may not be destroyed.
const keptHCL = `provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "kept" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "x" }
  lifecycle {
    prevent_destroy = true
  }
}
`

// TestRefusedDestroyIsADiagnosticOverRPC plans destroying a resource
// whose lifecycle sets prevent_destroy, from a Python gRPC client: the
// refusal is the diagnostic pier plan shows, with its summary, the
// resource's address and the setting's file:line:col, not one line of
// error text.
func TestRefusedDestroyIsADiagnosticOverRPC(t *testing.T) {
	t.Parallel()
	python := grpcPython(t)
	pier := testbin.Pier(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(keptHCL), 0o644); err != nil {
		t.Fatal(err)
	}
	apply := exec.Command(pier, "apply", "--yes")
	apply.Dir = dir
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("pier apply: %v\n%s", err, out)
	}
	script, err := filepath.Abs("testdata/refused.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, pier, proto, t.TempDir(), dir)
	cmd.Dir = t.TempDir()
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("refused.py: %v\n%s", err, out)
	}
	type diagnostic struct {
		Severity, Summary, Detail, Address string
		Subject                            []any
	}
	var got []diagnostic
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("refused.py printed %q: %v", out, err)
	}
	want := []diagnostic{{
		Severity: "ERROR",
		Summary:  "Instance cannot be destroyed",
		Detail:   "resource kept has lifecycle.prevent_destroy set, but this plan would destroy it (pier destroy destroys everything); change the plan, or remove prevent_destroy first",
		Address:  "kept",
		Subject:  []any{"main.pier.hcl", float64(13), float64(5)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan diagnostics (-want +got):\n%s", diff)
	}
}
