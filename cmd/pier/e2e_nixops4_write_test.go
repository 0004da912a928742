package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/nixops4state"
)

// nestedMemos is a deployment whose composite app holds only a nested
// deployment, and db a memo, so that app's level needs no resources member
// of its own: the shape in which pier used to write app without one.
const nestedMemos = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "top" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "TOP" }
}
deployment "app" {
  deployment "db" {
    resource "r" {
      provider = provider.local
      type     = "memo"
      state    = resource.state
      inputs   = { initialize_with = "R" }
    }
  }
}
`

// nixops4Append appends what NixOps4 would write for a new memo at path
// (see nixops4state.Write: emulated from NixOps4's state writer, diffing
// its own full view), then checks that both NixOps4 and pier still read
// the file.
func nixops4Append(t *testing.T, d *deployment, path ...string) {
	t.Helper()
	file := filepath.Join(d.dir, "state.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := nixops4state.Write(data, path, "create", nixops4state.Resource{Type: "memo", InputProperties: map[string]any{"initialize_with": "N4"}, OutputProperties: map[string]any{"value": "N4"}})
	if err != nil {
		t.Fatalf("NixOps4 reads the file pier wrote: %v", err)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(ev); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nixops4state.ReadFile(after); err != nil {
		t.Fatalf("after NixOps4 wrote %s, NixOps4 cannot read the file: %v\nits event:\n%s", strings.Join(path, "."), err, ev)
	}
	if out, errs, code := d.run("state", "list"); code != 0 || !strings.Contains(out, strings.Join(path, ".")) {
		t.Fatalf("after NixOps4 wrote %s, pier state list: exit %d\n%s%s", strings.Join(path, "."), code, out, errs)
	}
}

// TestNixOps4WritesAfterPier has pier write nested levels, then NixOps4
// add resources under them, the way its writer computes patches: both
// tools must read the file afterwards.
func TestNixOps4WritesAfterPier(t *testing.T) {
	t.Parallel()
	t.Run("after apply", func(t *testing.T) {
		t.Parallel()
		d := newDeployment(t, map[string]string{"main.pier.hcl": nestedMemos})
		d.mustRun("apply")
		// app has only deployments in pier's deployment, resources too
		// in NixOps4's view; db's nested sub exists nowhere yet.
		nixops4Append(t, d, "app", "r2")
		nixops4Append(t, d, "app", "db", "sub", "r3")
	})
	t.Run("after destroy", func(t *testing.T) {
		t.Parallel()
		// A destroy leaves the levels, emptied; NixOps4 writes under them.
		d := newDeployment(t, map[string]string{"main.pier.hcl": nestedMemos})
		d.mustRun("apply")
		d.mustRun("destroy", "--yes")
		nixops4Append(t, d, "app", "db", "r4")
		nixops4Append(t, d, "app", "db", "more", "r5")
		nixops4Append(t, d, "app", "r2")
	})
}

// TestNixOps4WritesAfterOldPierFile starts from a file in the shape pier
// wrote before it wrote both members at every level: the next event pier
// appends adds the missing ones, and NixOps4 can then write under them.
func TestNixOps4WritesAfterOldPierFile(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": strings.ReplaceAll(nestedMemos, `"TOP"`, `"TOP2"`)})
	old := `{"index":0,"meta":{"time":"2026-01-01T00:00:00Z"},"patch":[{"op":"add","path":"","value":{"_type":"nixopsState","resources":{},"deployments":{}}}]}
{"index":1,"meta":{"time":"2026-01-01T00:00:01Z","event":"create"},"patch":[{"op":"add","path":"/resources/top","value":{"type":"memo","input_properties":{"initialize_with":"TOP"},"output_properties":{"value":"TOP"},"provider":"local","dependencies":["state"]}},{"op":"add","path":"/deployments/app","value":{}},{"op":"add","path":"/deployments/app/deployments","value":{}},{"op":"add","path":"/deployments/app/deployments/db","value":{}},{"op":"add","path":"/deployments/app/deployments/db/resources","value":{}},{"op":"add","path":"/deployments/app/deployments/db/resources/r","value":{"type":"memo","input_properties":{"initialize_with":"R"},"output_properties":{"value":"R"},"provider":"local","dependencies":["state"]}}]}
`
	if err := os.WriteFile(filepath.Join(d.dir, "state.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	// The top memo's input changed: one update, one event, which heals.
	out := d.mustRun("apply")
	if !strings.Contains(out, "1 updated") {
		t.Fatalf("apply did not update top:\n%s", out)
	}
	nixops4Append(t, d, "app", "r2")
	nixops4Append(t, d, "app", "db", "sub", "r3")
}
