package main

// Not a scenario: each test SIGKILLs pier at a moment found by polling the state file as it runs.

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/statefile"
)

// These tests kill pier between the steps of a replacement, through the
// real pier binary and the journal provider, and check that the next apply
// converges.

// entry returns a recorded resource of state.json, or nil.
func (d *deployment) entry(name string) map[string]any {
	res, _ := d.state("state.json")["resources"].(map[string]any)
	e, _ := res[name].(map[string]any)
	return e
}

// valueOps lists the journal's operations as "op value".
func (d *deployment) valueOps() []string {
	var out []string
	for _, e := range d.journal() {
		out = append(out, e.Op+" "+asString(e.Inputs["value"]))
	}
	return out
}

func asString(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

const cbdDeployment = header + `
variable "a" { default = "a" }
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = var.a }
  lifecycle {
    create_before_destroy = true
  }
}
resource "b" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "b-${resource.a.outputs.value}" }
}
`

// waitFor polls cond until it holds; a pier process it waits on runs
// meanwhile. The deadline is generous: the machine may be loaded.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stateHas reports what the state file now says about a, reading it
// without locking, as a second process would: through pier's reader, so
// that an event still being appended (a torn tail) is not there yet. It
// is false until the file holds a complete event.
func (d *deployment) stateHas(pred func(entry map[string]any) bool) func() bool {
	return func() bool {
		s, err := statefile.Read(filepath.Join(d.dir, "state.json"))
		if err != nil || !s.Exists {
			return false
		}
		state, err := s.State()
		if err != nil {
			return false
		}
		res, _ := state["resources"].(map[string]any)
		e, _ := res["a"].(map[string]any)
		return pred(e)
	}
}

// killDuring starts pier apply ARGS, waits until cond holds, and kills
// pier with SIGKILL: nothing of it may run any more.
func (d *deployment) killDuring(cond func() bool, what string, args ...string) {
	d.t.Helper()
	cmd := d.command(args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	waitFor(d.t.(*testing.T), what, cond)
	// The whole group: pier and the providers it started.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		d.t.Fatal(err)
	}
	_ = cmd.Wait()
	d.waitStateUnlocked()
}

// waitStateUnlocked waits until no process holds state.json's lock: a
// killed pier's state provider may still be dying when pier is reaped,
// and the next command would be refused as locked.
func (d *deployment) waitStateUnlocked() {
	d.t.Helper()
	lock, err := statefile.AcquireLock(filepath.Join(d.dir, "state.json"), statefile.Options{Wait: true})
	if err != nil {
		d.t.Fatal(err)
	}
	if err := lock.Release(); err != nil {
		d.t.Fatal(err)
	}
}

// Killed between the destroy and the create of a replace, pier leaves a
// state that records no object that is gone; applying again converges.
func TestKillBetweenReplaceSteps(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "a", sleep = 0 }
}
`})
	d.mustRun("apply")
	// The new object takes long to create: pier is killed while it does.
	d.write(map[string]string{"main.pier.hcl": header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "a", sleep = 60 }
}
`})
	d.killDuring(d.stateHas(func(e map[string]any) bool { return e == nil && d.peekPendingOps()["a"]["operation"] == "create" }),
		"the destroy of a and the intent of its create to be recorded", "apply", "--replace", "a", "--yes")
	if d.count("destroy", "a") != 1 {
		t.Fatalf("journal %v: the old a was not destroyed", d.valueOps())
	}
	if e := d.entry("a"); e != nil {
		t.Fatalf("state records a, which is destroyed: %v", e)
	}
	d.write(map[string]string{"main.pier.hcl": header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "a", sleep = 0 }
}
`})
	// The new object's create was in flight: it is pending, and the next
	// apply refuses to create a again until it is resolved.
	d.refusesPending()
	d.resolveAbsent(d.absentPending()...)
	out := d.mustRun("apply")
	if !strings.Contains(out, "1 created, 0 updated, 0 destroyed") {
		t.Errorf("re-apply:\n%s", out)
	}
	if e := d.entry("a"); e == nil {
		t.Fatal("a is not recorded after the re-apply")
	}
	if got, want := d.valueOps(), []string{"create a", "destroy a", "create a"}; !slices.Equal(got, want) {
		t.Errorf("provider operations %v, want %v", got, want)
	}
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after converging:\n%s", out)
	}
}

// Killed between a create-before-destroy's create and the destroy of the
// deposed object, pier leaves both recorded, as both exist; applying
// again destroys the deposed one.
func TestKillBetweenCreateBeforeDestroySteps(t *testing.T) {
	t.Parallel()
	slowDependent := strings.Replace(cbdDeployment, `inputs   = { value = "b-${resource.a.outputs.value}" }`, `inputs   = { value = "b-${resource.a.outputs.value}", sleep = var.sleep }`, 1) + `
variable "sleep" { default = 0 }
`
	d := newDeployment(t, map[string]string{"main.pier.hcl": slowDependent})
	d.mustRun("apply")
	d.killDuring(d.stateHas(func(e map[string]any) bool { return e != nil && e["deposed"] != nil }), "a's old object to be recorded as deposed",
		"apply", "--replace", "a", "--yes", "--var", "sleep=60", "--var", "a=a2")
	e := d.entry("a")
	if deposed, _ := e["deposed"].(map[string]any); len(deposed) != 1 {
		t.Fatalf("a after the kill: %v, want the new object current and the old one deposed", e)
	}
	if n := d.count("destroy", "a"); n != 0 {
		t.Fatalf("the deposed object was destroyed before its dependent was updated: %v", d.valueOps())
	}
	out := d.mustRun("apply", "--yes", "--var", "a=a2")
	if !strings.Contains(out, "0 created, 1 updated, 1 destroyed") {
		t.Errorf("re-apply:\n%s", out)
	}
	if e := d.entry("a"); e == nil || e["deposed"] != nil {
		t.Errorf("a after converging: %v", e)
	}
	if n := d.count("destroy", "a"); n != 1 {
		t.Errorf("the old a destroyed %d times, want 1", n)
	}
	if n := d.count("update", "b-a2"); n != 1 {
		t.Errorf("b updated to the new a %d times, want 1: %v", n, d.valueOps())
	}
	if out := d.mustRun("plan", "--var", "a=a2"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after converging:\n%s", out)
	}
}
