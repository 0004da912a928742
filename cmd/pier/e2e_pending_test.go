package main

// Not a scenario: each test SIGKILLs pier or its provider while a create is under way, found by polling.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/nixops4state"
)

// Tests of pending operations: what pier records before it sends a create
// or a destroy, and what a later run does with one an interrupted run
// left (host/apply/intents.go, docs/state.md).

// pendingOps returns the pending operations state.json records, by
// address.
func (d *deployment) pendingOps() map[string]map[string]any {
	d.t.Helper()
	return pendingOf(d.state("state.json"))
}

// peekPendingOps is pendingOps for polling while pier writes (peekState).
func (d *deployment) peekPendingOps() map[string]map[string]any {
	d.t.Helper()
	return pendingOf(d.peekState("state.json"))
}

func pendingOf(state map[string]any) map[string]map[string]any {
	raw, _ := state["pierPendingOperations"].(map[string]any)
	out := map[string]map[string]any{}
	for addr, p := range raw {
		out[addr], _ = p.(map[string]any)
	}
	return out
}

// refusesPending runs apply ARGS and checks that it refuses to create
// each address with a pending create, naming it, its provider, the
// operation and when it started, and exits 1.
func (d *deployment) refusesPending(args ...string) (stdout, stderr string) {
	d.t.Helper()
	pending := d.pendingOps()
	out, errs, code := d.run(append([]string{"apply"}, args...)...)
	d.checkRefused(pending, out, errs, code)
	return out, errs
}

// checkRefused checks an apply's output against the pending operations
// recorded before it.
func (d *deployment) checkRefused(pending map[string]map[string]any, out, errs string, code int) {
	d.t.Helper()
	if len(pending) == 0 {
		d.t.Fatalf("no pending operation was recorded; apply exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if code != 1 {
		d.t.Fatalf("apply with pending operations %v exited %d, want 1\nstdout:\n%s\nstderr:\n%s", slices.Sorted(maps.Keys(pending)), code, out, errs)
	}
	for addr, p := range pending {
		if p["operation"] != "create" {
			continue
		}
		want := `pier: create of ` + addr + ` (provider ` + asString(p["provider"]) + `) failed: pier was interrupted while provider "` + asString(p["provider"]) + `" was creating ` + addr + ` (type ` + asString(p["type"]) + `), started ` + asString(p["started"])
		if !strings.Contains(errs, want) {
			d.t.Errorf("apply's error does not name the pending create of %s; want %q in\n%s", addr, want, errs)
		}
		if !strings.Contains(errs, "pier state resolve "+addr+" --absent") {
			d.t.Errorf("apply's error does not say how to resolve %s:\n%s", addr, errs)
		}
	}
}

// resolveAbsent resolves the pending operation of each address as
// absent: the caller has checked that no object exists.
func (d *deployment) resolveAbsent(addrs ...string) {
	d.t.Helper()
	for _, a := range addrs {
		out := d.mustRun("state", "resolve", a, "--absent")
		if !strings.Contains(out, "Cleared the pending create of "+a) {
			d.t.Errorf("state resolve %s --absent:\n%s", a, out)
		}
	}
	if p := d.pendingOps(); len(p) != 0 {
		d.t.Fatalf("still pending after resolving: %v", p)
	}
}

// absentPending returns the addresses with a pending create whose value
// the journal provider never created: their objects do not exist.
func (d *deployment) absentPending() []string {
	d.t.Helper()
	var out []string
	for _, addr := range slices.Sorted(maps.Keys(d.pendingOps())) {
		p := d.pendingOps()[addr]
		in, _ := p["input_properties"].(map[string]any)
		made := slices.ContainsFunc(d.journal(), func(e journalEntry) bool { return e.Op == "create" && reflect.DeepEqual(e.Inputs, in) })
		if p["operation"] != "create" || made {
			d.t.Fatalf("pending %v of %s: the journal says %v", p, addr, d.valueOps())
		}
		out = append(out, addr)
	}
	return out
}

// objectsDeployment uses the objects provider (testdata/providers/
// objects.py), whose objects are files in $OBJECTS that pier's state does
// not hold: copies of an object can be counted whatever pier recorded.
const objectsDeployment = `
provider "local" { builtin = "local" }
provider "obj" {
  executable = "OBJECTS_PROVIDER"
  operations = ["destroy", "import"]
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "a" }
}
resource "b" {
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "b" }
}
resource "after_a" {
  provider = provider.obj
  type     = "obj"
  state    = resource.state
  inputs   = { name = "after-${resource.a.outputs.id}" }
}
`

func newObjectsDeployment(t *testing.T, hcl string) *deployment {
	t.Helper()
	prov, err := filepath.Abs("testdata/providers/objects.py")
	if err != nil {
		t.Fatal(err)
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": strings.ReplaceAll(hcl, "OBJECTS_PROVIDER", prov)})
	if err := os.Mkdir(d.objectsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *deployment) objectsDir() string { return filepath.Join(d.dir, "objects") }

// objects lists the objects the provider made, by name: NAME.N files.
func (d *deployment) objects() map[string][]string {
	d.t.Helper()
	ents, err := os.ReadDir(d.objectsDir())
	if err != nil {
		d.t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range ents {
		if m := objectFile.FindStringSubmatch(e.Name()); m != nil {
			out[m[1]] = append(out[m[1]], e.Name())
		}
	}
	return out
}

var objectFile = regexp.MustCompile(`^(.+)\.([0-9]+)$`)

// killWhileCreating starts pier ARGS with the create of name blocking in
// the provider after it made the object, waits for that and for ready,
// and kills pier's whole process group with SIGKILL: pier dies with the
// object made and not recorded.
func (d *deployment) killWhileCreating(name string, ready func() bool, args ...string) {
	d.t.Helper()
	block := filepath.Join(d.objectsDir(), "block-"+name)
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		d.t.Fatal(err)
	}
	cmd := d.command(args...)
	cmd.Env = append(cmd.Env, "OBJECTS="+d.objectsDir())
	wait := startGroup(d.t, cmd)
	waitFor(d.t.(*testing.T), "the provider to make "+name, func() bool {
		_, err := os.Stat(filepath.Join(d.objectsDir(), "created-"+name))
		return err == nil && (ready == nil || ready())
	})
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		d.t.Fatal(err)
	}
	wait()
	d.waitStateUnlocked()
	if err := os.Remove(block); err != nil {
		d.t.Fatal(err)
	}
}

// TestKilledCreateIsNeverSilent kills pier while the provider is creating
// a (it has made the object and not answered): the next apply must not
// make a second a. It names the pending create, applies what does not
// depend on a, and refuses a and what depends on it until the pending
// create is resolved; adopting the object with state resolve --created ID
// lets it finish without a second copy.
func TestKilledCreateIsNeverSilent(t *testing.T) {
	t.Parallel()
	d := newObjectsDeployment(t, objectsDeployment)
	// b is independent of a: once it is recorded, only a is in flight.
	d.killWhileCreating("a", func() bool { return slices.Contains(resources(d.peekState("state.json")), "b") }, "apply", "--yes")
	if got := d.objects()["a"]; len(got) != 1 {
		t.Fatalf("objects of a after the kill: %v, want one", got)
	}
	pending := d.pendingOps()
	if p := pending["a"]; p["operation"] != "create" || p["provider"] != "obj" || p["type"] != "obj" {
		t.Errorf("pending operations after the kill: %v, want a pending create of a", pending)
	} else if _, err := time.Parse(time.RFC3339Nano, asString(p["started"])); err != nil {
		t.Errorf("started: %v", err)
	}
	// The kill left a state NixOps4 reads: it ignores pending operations.
	data, err := os.ReadFile(filepath.Join(d.dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nixops4state.ReadFile(data); err != nil {
		t.Errorf("NixOps4 would refuse the state with a pending operation: %v", err)
	}

	// plan names it too, and says what to do.
	out, _, code := d.run("plan")
	if code != 0 || !strings.Contains(out, `Warning: pier was interrupted while provider "obj" was creating a (type obj), started `) ||
		!strings.Contains(out, "pier import a ID") || !strings.Contains(out, "pier state resolve a --absent") {
		t.Errorf("plan (exit %d) does not name the pending create of a:\n%s", code, out)
	}

	stdout, errs, code := d.run("apply", "--yes")
	if got := d.objects(); len(got["a"]) != 1 || len(got["b"]) != 1 || len(got) != 2 {
		t.Fatalf("objects after the re-apply: %v, want one a and one b: the re-apply (exit %d) silently repeated the interrupted create\n%s", got, code, stdout)
	}
	d.checkRefused(pending, stdout, errs, code)
	if !strings.Contains(stdout, "1 failed, 1 skipped") {
		t.Errorf("apply did not fail a and skip after_a only:\n%s", stdout)
	}

	// The object exists: adopt it.
	id := d.objects()["a"][0]
	out = d.mustRun("state", "resolve", "a", "--created", id)
	if !strings.Contains(out, "Imported a (provider obj, id \""+id+"\")") {
		t.Errorf("state resolve --created:\n%s", out)
	}
	if len(d.pendingOps()) != 0 {
		t.Errorf("pending after resolve: %v", d.pendingOps())
	}
	out = d.mustRun("apply", "--yes")
	if !strings.Contains(out, "1 created, 0 updated, 0 destroyed") {
		t.Errorf("apply after resolving:\n%s", out)
	}
	for name, files := range d.objects() {
		if len(files) != 1 {
			t.Errorf("%s has %d objects: %v", name, len(files), files)
		}
	}
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after converging:\n%s", out)
	}
}

// TestPendingCreateResolvedAbsent: the user removes the object an
// interrupted create made and says so; the next apply creates it once.
func TestPendingCreateResolvedAbsent(t *testing.T) {
	t.Parallel()
	d := newObjectsDeployment(t, objectsDeployment)
	d.killWhileCreating("a", func() bool { return slices.Contains(resources(d.peekState("state.json")), "b") }, "apply", "--yes")
	for _, f := range d.objects()["a"] {
		if err := os.Remove(filepath.Join(d.objectsDir(), f)); err != nil {
			t.Fatal(err)
		}
	}
	// --created without an id cannot record the object: its outputs are
	// unknown.
	if _, errs, code := d.run("state", "resolve", "a", "--created"); code != 1 || !strings.Contains(errs, "--created needs the object's id") {
		t.Errorf("state resolve --created without an id: exit %d\n%s", code, errs)
	}
	d.resolveAbsent("a")
	out := d.mustRun("apply", "--yes")
	if !strings.Contains(out, "Apply complete!") {
		t.Errorf("apply after resolving:\n%s", out)
	}
	if got := d.objects()["a"]; len(got) != 1 {
		t.Errorf("objects of a: %v, want one", got)
	}
}

// TestProviderKilledMidCreateKeepsIntent: the provider dies while pier
// waits for its create. pier survives and reports the failure, and says
// the pending create stays, since the object may exist (it does).
func TestProviderKilledMidCreateKeepsIntent(t *testing.T) {
	t.Parallel()
	d := newObjectsDeployment(t, objectsDeployment)
	block := filepath.Join(d.objectsDir(), "block-a")
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := d.command("apply", "--yes")
	cmd.Env = append(cmd.Env, "OBJECTS="+d.objectsDir())
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	wait := startGroup(t, cmd)
	// The provider renames created-a into place once it is whole.
	created := filepath.Join(d.objectsDir(), "created-a")
	waitFor(t, "the provider to make a", func() bool { _, err := os.Stat(created); return err == nil })
	data, err := os.ReadFile(created)
	if err != nil {
		t.Fatal(err)
	}
	var file string
	var pid int
	if _, err := fmt.Sscan(string(data), &file, &pid); err != nil {
		t.Fatalf("created-a %q: %v", data, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := wait(); code != 1 {
		t.Fatalf("apply exited %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	if want := "pier keeps a pending create of a in state state"; !strings.Contains(errb.String(), want) {
		t.Errorf("apply's error does not say the intent stays (%q):\n%s", want, errb.String())
	}
	if p := d.pendingOps()["a"]; p["operation"] != "create" {
		t.Errorf("pending after the provider died: %v", d.pendingOps())
	}
	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	d.refusesPending("--yes")
	if got := d.objects()["a"]; len(got) != 1 || got[0] != file {
		t.Errorf("objects of a: %v, want only %s", got, file)
	}
}
