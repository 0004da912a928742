package rpcapi_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// TestSetupStop calls Setup.Stop from a Python client while an apply's
// first resource is in its provider's hands: it finishes and is recorded,
// its dependent never starts, the apply says it was interrupted, and a
// plan asked for after Stop does not start.
func TestSetupStop(t *testing.T) {
	t.Parallel()
	python := grpcPython(t)
	pier := testbin.Pier(t)
	dir := t.TempDir()
	journal, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), "cmd", "pier", "testdata", "providers", "journal.py"))
	if err != nil {
		t.Fatal(err)
	}
	testbin.WriteExecutable(t, filepath.Join(dir, "journal.py"), journal, 0o755)
	gate := filepath.Join(t.TempDir(), "gate")
	hcl := `
provider "local" { builtin = "local" }
provider "journal" { executable = "./journal.py" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "first" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "first", gate = "` + gate + `" }
}
resource "second" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = resource.first.outputs.value }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/stop.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, pier, proto, t.TempDir(), dir, gate)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "JOURNAL="+filepath.Join(dir, "journal.jsonl"))
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("stop.py: %v\n%s", err, out)
	}
	var got struct {
		StoppedWhile string   `json:"stopped_while"`
		Created      int      `json:"created"`
		Interrupted  bool     `json:"interrupted"`
		Skipped      []string `json:"skipped"`
		PlanAfter    int64    `json:"plan_after_stop"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("stop.py printed %q: %v", out, err)
	}
	if got.StoppedWhile != "first" || got.Created != 1 || !got.Interrupted || got.PlanAfter != 0 {
		t.Errorf("after Setup.Stop: %+v; want first created and recorded, the apply interrupted, no plan after", got)
	}
	ops, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(ops), `"op": "create"`); n != 1 {
		t.Errorf("the provider created %d objects after Stop, want only the one in flight:\n%s", n, ops)
	}
}
