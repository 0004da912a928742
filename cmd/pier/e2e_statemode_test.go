package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLooseStateFileIsTightened checks that a state file found readable
// by others is made 0600 and that pier says so.
func TestLooseStateFileIsTightened(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "memo" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "x" }
}
`})
	d.mustRun("apply")
	path := filepath.Join(d.dir, "state.json")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := d.run("plan")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "tightened its mode") {
		t.Errorf("pier did not say it tightened the mode:\n%s", errs)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("state file mode %v after plan, want 0600", perm)
	}
}
