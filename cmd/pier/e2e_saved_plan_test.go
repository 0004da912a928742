package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved plan is carried out only against the source it was made from:
// an edit after planning refuses it (exit 3) before anything runs, even
// one that would plan the same operations.
func TestSavedPlanRefusesEditedSource(t *testing.T) {
	t.Parallel()
	conf := header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "a" }
}
`
	d := newDeployment(t, map[string]string{"main.pier.hcl": conf})
	plan := filepath.Join(t.TempDir(), "plan.json")
	d.mustRun("plan", "-out", plan)
	d.write(map[string]string{"main.pier.hcl": conf + "# reviewed? not this line\n"})
	out, errs, code := d.run("apply", plan)
	if code != exitStalePlan || !strings.Contains(errs, "its source files have changed since the plan was made") {
		t.Fatalf("apply of a plan whose source was edited: exit %d, want %d\n%s\n%s", code, exitStalePlan, out, errs)
	}
	if n := len(d.journal()); n != 0 {
		t.Fatalf("a refused plan ran the provider: %v", d.journal())
	}
	if _, err := os.Stat(filepath.Join(d.dir, "state.json")); err == nil {
		t.Error("a refused plan wrote the state file")
	}
	// Planned again, it applies.
	d.mustRun("plan", "-out", plan)
	if out := d.mustRun("apply", plan); !strings.Contains(out, "1 created") {
		t.Errorf("apply of the new plan:\n%s", out)
	}
	// And once applied, the state has moved: the same plan is stale.
	if _, errs, code := d.run("apply", plan); code != exitStalePlan || !strings.Contains(errs, "has changed since the plan was made") {
		t.Errorf("second apply of the plan: exit %d\n%s", code, errs)
	}
}
