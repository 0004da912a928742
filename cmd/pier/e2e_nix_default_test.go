package main

import (
	"os"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// TestFlakeInDirectoryIsTheDeployment runs pier plan and apply in a
// directory that holds a flake.nix and no *.pier.hcl, with no flag, as
// nixops4 is run; a directory with neither names both ways to give one.
func TestFlakeInDirectoryIsTheDeployment(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../examples/flake/flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	d := gitFlake(t, string(src))
	if out := d.mustRun("plan"); !strings.Contains(out, "+ site.motd") || !strings.Contains(out, "2 to create") {
		t.Errorf("plan in the flake's directory:\n%s", out)
	}
	d.mustRun("apply")
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes") {
		t.Errorf("plan after apply:\n%s", out)
	}
	if out := d.mustRun("state", "list"); !strings.Contains(out, "site.motd") {
		t.Errorf("state list in the flake's directory:\n%s", out)
	}

	empty := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	_, errs, code := empty.run("plan")
	if code != exitError || !strings.Contains(errs, "--flake") || !strings.Contains(errs, "--file nixops4.nix") {
		t.Errorf("plan in an empty directory: exit %d, stderr:\n%s", code, errs)
	}
}
