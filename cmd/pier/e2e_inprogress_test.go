package main

// Not a scenario: a plan runs while another pier's apply is held mid-create, two processes at once.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Tests of a plan that runs while another pier applies (issue 19 item 5):
// the pending create it reads is that apply's work in progress, held under
// the state's lock by a live command, not the relic of an interrupted run.

const inProgressDeployment = `
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
`

// TestPlanDuringApplyNamesTheApply: while an apply's create of a is held
// in flight, a plan says the create is in progress and names the apply
// that holds the lock (pid, host, start); once that apply is killed, the
// same pending create reads as interrupted.
func TestPlanDuringApplyNamesTheApply(t *testing.T) {
	t.Parallel()
	d := newObjectsDeployment(t, inProgressDeployment)
	hold := filepath.Join(d.objectsDir(), "hold-a")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(hold)
	apply := d.command("apply", "--yes")
	var applyOut, applyErr syncBuffer
	apply.Stdout, apply.Stderr = &applyOut, &applyErr
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = apply.Process.Kill(); _ = apply.Wait() }()
	waitFor(t, "the apply's create of a to be in flight", func() bool {
		_, err := os.Stat(filepath.Join(d.objectsDir(), "created-a"))
		return err == nil
	})
	handler := childProcess(t, apply.Process.Pid, "adapter", "local")

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := d.run("plan")
	for _, want := range []string{
		`in progress: provider "obj" is creating a (type obj), started `,
		"for pier apply --yes, pid " + strconv.Itoa(apply.Process.Pid) + " on host " + host,
		", holding the state lock since ",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("plan during the apply (exit %d) lacks %q:\n%s%s", code, want, out, errs)
		}
	}
	if strings.Contains(out, "interrupted") {
		t.Errorf("plan during the apply calls its create interrupted:\n%s", out)
	}

	if err := apply.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = apply.Wait()
	if err := syscall.Kill(handler, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		t.Fatal(err)
	}
	waitFor(t, "the apply's state handler to die", func() bool { return processGone(handler) })
	out, errs, code = d.run("plan")
	if want := `pier was interrupted while provider "obj" was creating a (type obj), started `; code != 0 || !strings.Contains(out, want) || strings.Contains(out, "in progress") {
		t.Errorf("plan after the apply was killed (exit %d) does not say its create was interrupted:\n%s%s", code, out, errs)
	}
}
