package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/statefile"
)

// These tests drive replacements, deposed objects and the lifecycle
// controls through the real pier binary and the journal provider.

// logEvent is one line of pier statefile log --json.
type logEvent struct {
	Meta struct {
		Event string `json:"event"`
	} `json:"meta"`
	Paths []string `json:"paths"`
}

// stateLog returns the events of state.json.
func (d *deployment) stateLog() []logEvent {
	d.t.Helper()
	var out []logEvent
	for _, line := range strings.Split(strings.TrimSpace(d.mustRun("statefile", "log", "--json", "state.json")), "\n") {
		var e logEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			d.t.Fatalf("statefile log line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

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

// A create-before-destroy replacement: the new object is created and
// recorded with the old one deposed, the dependent moves to the new
// object, then the deposed object is destroyed and that recorded.
func TestCreateBeforeDestroy(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": cbdDeployment})
	d.mustRun("apply")
	before := len(d.stateLog())
	journalBefore := len(d.journal())

	// A new value updates in place; --replace makes it a replace.
	out := d.mustRun("plan", "--replace", "a", "--var", "a=a2")
	for _, want := range []string{"# a will be replaced (replacement requested with --replace; create before destroy)", "+/- a (journal echo)", "1 to replace"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	out = d.mustRun("apply", "--replace", "a", "--var", "a=a2", "--yes")
	if !strings.Contains(out, "1 created, 1 updated, 1 destroyed") {
		t.Errorf("apply:\n%s", out)
	}
	if got, want := d.valueOps()[journalBefore:], []string{"create a2", "update b-a2", "destroy a"}; !slices.Equal(got, want) {
		t.Errorf("provider operations %v, want %v (create, dependents, then destroy)", got, want)
	}
	events := d.stateLog()[before:]
	var names []string
	for _, e := range events {
		names = append(names, e.Meta.Event)
	}
	// The create event records the new object and deposes the old one
	// at once; the deposed object's destroy is its own event.
	var creates, deposes, destroys int
	for _, e := range events {
		joined := strings.Join(e.Paths, " ")
		switch {
		case e.Meta.Event == "create" && strings.Contains(joined, "/resources/a/deposed/"):
			creates++
			deposes++
		case e.Meta.Event == "destroy" && strings.Contains(joined, "/resources/a/deposed"):
			destroys++
		}
	}
	if creates != 1 || deposes != 1 || destroys != 1 {
		t.Errorf("state events %v (%+v): want a create that deposes a, then a destroy of the deposed object", names, events)
	}
	if e := d.entry("a"); e == nil || e["deposed"] != nil {
		t.Errorf("a after the replace: %v, want a current object and no deposed one", e)
	}
	if out := d.mustRun("plan", "--var", "a=a2"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the replace:\n%s", out)
	}
}

// A deposed object whose destroy failed stays recorded (it exists); the
// plan shows it and the next apply destroys it.
func TestDeposedObjectRetried(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": cbdDeployment})
	d.mustRun("apply")
	d.write(map[string]string{"fail-destroy": ""})
	out, errs, code := d.run("apply", "--replace", "a", "--yes")
	if code != exitError || !strings.Contains(out+errs, "destroy refused") {
		t.Fatalf("apply with a failing destroy: exit %d\n%s\n%s", code, out, errs)
	}
	e := d.entry("a")
	deposed, _ := e["deposed"].(map[string]any)
	if len(deposed) != 1 {
		t.Fatalf("a after the failed destroy: %v, want one deposed object", e)
	}
	var key string
	for k := range deposed {
		key = k
	}
	if err := os.Remove(filepath.Join(d.dir, "fail-destroy")); err != nil {
		t.Fatal(err)
	}
	out = d.mustRun("plan")
	for _, want := range []string{"# a (deposed " + key + ") will be destroyed", "0 to create, 0 to update, 1 to destroy"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	d.mustRun("apply", "--yes")
	if e := d.entry("a"); e == nil || e["deposed"] != nil {
		t.Errorf("a after the retry: %v, want no deposed object", e)
	}
	if n := d.count("destroy", "a"); n != 1 {
		t.Errorf("a's old object destroyed %d times, want 1", n)
	}
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the retry:\n%s", out)
	}
}

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

// A Nix-shaped resource's lifecycle attribute, beside its inputs, works
// as the HCL block does: prevent_destroy refuses a replace, naming the
// member's position in flake.nix.
func TestNixLifecyclePreventDestroy(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	git := testneed.Tool(t, "git")
	src, err := os.ReadFile("../../examples/flake/flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	const at = `              inputs.initialize_with = "the first apply";`
	if !strings.Contains(string(src), at) {
		t.Fatalf("examples/flake/flake.nix no longer has %q", at)
	}
	flake := strings.Replace(string(src), at, at+"\n              lifecycle.prevent_destroy = true;", 1)
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("flake.nix", flake)
	for _, args := range [][]string{{"init", "-q"}, {"add", "flake.nix"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = d.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	d.mustRun("apply", "--flake", ".")
	_, errs, code := d.run("plan", "--flake", ".", "--replace", "first")
	if code != exitError || !strings.Contains(errs, "flake.nix:30:13") || !strings.Contains(errs, "resource first has lifecycle.prevent_destroy set, but this plan would replace it") {
		t.Errorf("plan --replace of a protected member: exit %d\n%s", code, errs)
	}
}
