package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// These tests check that pier replaces a Terraform resource exactly when
// Terraform would, with the real terraform-provider-time: only when a
// value at a requires_replace path changes.

// timeDeployment is one time_rotating and one time_static in a state_file.
func timeDeployment(t *testing.T, plugin string, rotationDays int, trigger string) string {
	t.Helper()
	return fmt.Sprintf(`
provider "local" { builtin = "local" }
provider "time" { terraform = %q }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "rot" {
  provider = provider.time
  type     = "time_rotating"
  state    = resource.state
  inputs   = { rotation_days = %d }
}
resource "stamp" {
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { release = %q } }
}
`, plugin, rotationDays, trigger)
}

func newTimeDeployment(t *testing.T, rotationDays int, trigger string) (*deployment, string) {
	t.Helper()
	plugin := tfProviderForTest(t, "terraform-provider-time")
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("main.pier.hcl", timeDeployment(t, plugin, rotationDays, trigger))
	return d, plugin
}

func (d *deployment) writeRaw(name, content string) {
	d.t.Helper()
	if err := os.WriteFile(d.dir+"/"+name, []byte(content), 0o644); err != nil {
		d.t.Fatal(err)
	}
}

// recordedOutput is one output of a resource recorded in state.json.
func (d *deployment) recordedOutput(addr, key string) any {
	d.t.Helper()
	res, _ := d.state("state.json")["resources"].(map[string]any)
	entry, _ := res[addr].(map[string]any)
	out, _ := entry["output_properties"].(map[string]any)
	if out == nil {
		d.t.Fatalf("state.json records no outputs of %s: %v", addr, res)
	}
	return out[key]
}

// TestTimeRotatingUpdatesInPlace: a rotation_days change updates the
// time_rotating in place and keeps its rotation base (rfc3339), as
// terraform apply does with the same provider.
func TestTimeRotatingUpdatesInPlace(t *testing.T) {
	t.Parallel()
	d, plugin := newTimeDeployment(t, 1, "v1")
	d.mustRun("apply")
	base := d.recordedOutput("rot", "rfc3339")

	d.writeRaw("main.pier.hcl", timeDeployment(t, plugin, 2, "v1"))
	out := d.mustRun("plan")
	for _, want := range []string{"# rot will be updated in place", "Plan: 0 to create, 1 to update, 0 to destroy, 1 unchanged."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "replaced") {
		t.Errorf("plan replaces something:\n%s", out)
	}
	out = d.mustRun("apply")
	if !strings.Contains(out, "0 created, 1 updated, 0 destroyed") {
		t.Errorf("apply:\n%s", out)
	}
	if got := d.recordedOutput("rot", "rfc3339"); got != base {
		t.Errorf("rfc3339 after the update = %v, want the rotation base %v kept", got, base)
	}
	if got := fmt.Sprint(d.recordedOutput("rot", "rotation_days")); got != "2" {
		t.Errorf("rotation_days recorded = %v, want 2", got)
	}
}

// TestTimeStaticTriggersReplace: a changed trigger replaces the
// time_static, as recorded steps: the state log shows the destroy, then
// the create, each after its intent (a pending event; see docs/state.md).
func TestTimeStaticTriggersReplace(t *testing.T) {
	t.Parallel()
	d, plugin := newTimeDeployment(t, 1, "v1")
	d.mustRun("apply")

	d.writeRaw("main.pier.hcl", timeDeployment(t, plugin, 1, "v2"))
	out := d.mustRun("plan")
	for _, want := range []string{"# stamp will be replaced (triggers forces a new object)", "0 to update, 0 to destroy, 1 to replace"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	before := strings.Count(d.mustRun("statefile", "log", "state.json"), "\n")
	out = d.mustRun("apply", "--yes")
	if !strings.Contains(out, "1 created, 0 updated, 1 destroyed") {
		t.Errorf("apply:\n%s", out)
	}
	log := strings.Split(strings.TrimSpace(d.mustRun("statefile", "log", "state.json")), "\n")
	steps := log[before:]
	var events []string
	for _, l := range steps {
		if f := strings.Fields(l); len(f) > 2 {
			events = append(events, f[2])
		}
	}
	if want := []string{"pending", "destroy", "pending", "create"}; !slices.Equal(events, want) {
		t.Errorf("the replace's events are %v, want %v (a destroy, then a create, each after its intent):\n%s", events, want, strings.Join(log, "\n"))
	}
	if got := d.recordedOutput("stamp", "triggers"); fmt.Sprint(got) != "map[release:v2]" {
		t.Errorf("recorded triggers = %v", got)
	}
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the replace:\n%s", out)
	}
}
