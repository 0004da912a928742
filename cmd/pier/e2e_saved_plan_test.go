package main

import (
	"encoding/json"
	"fmt"
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

// pier show prints a saved plan as pier plan did, from the file alone;
// --json gives each change's actions with its inputs before and after.
func TestShowSavedPlan(t *testing.T) {
	t.Parallel()
	conf := func(v string) string {
		return header + `
variable "token" {
  default   = "hunter2-secret"
  sensitive = true
}
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "` + v + `" }
}
resource "b" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "b-${resource.a.outputs.serial}", sleep = 0 }
}
resource "s" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = var.token }
}
`
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": conf("one")})
	d.mustRun("apply")
	d.write(map[string]string{"main.pier.hcl": conf("two")})
	planned := d.mustRun("plan", "-out", "plan.json")
	shown := d.mustRun("show", "plan.json")
	if want := planned[:strings.Index(planned, "\nSaved the plan")]; !strings.Contains(shown, want) {
		t.Errorf("pier show differs from pier plan:\n--- plan\n%s\n--- show\n%s", want, shown)
	}
	var got struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions      []string       `json:"actions"`
				Before       map[string]any `json:"before"`
				After        map[string]any `json:"after"`
				AfterUnknown []string       `json:"after_unknown"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	out := d.mustRun("show", "--json", "plan.json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	byAddr := map[string]int{}
	for i, rc := range got.ResourceChanges {
		byAddr[rc.Address] = i
	}
	a := got.ResourceChanges[byAddr["a"]].Change
	if fmt.Sprint(a.Actions) != "[update]" || a.Before["value"] != "one" || a.After["value"] != "two" {
		t.Errorf("a: %+v", a)
	}
	b := got.ResourceChanges[byAddr["b"]].Change
	if fmt.Sprint(b.Actions) != "[update]" || b.Before["value"] != "b-1" || fmt.Sprint(b.AfterUnknown) != "[value]" {
		t.Errorf("b (its value is known after apply): %+v", b)
	}
	if _, ok := byAddr["s"]; ok {
		t.Errorf("an unchanged resource is listed as a change: %s", out)
	}
	if strings.Contains(out+shown, "hunter2") {
		t.Errorf("a sensitive value was shown:\n%s\n%s", shown, out)
	}
}
