package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// These tests check the plan controls: lifecycle's prevent_destroy and
// ignore_changes, --target and member arguments, --detailed-exitcode and
// apply's confirmation rules.

func TestPreventDestroy(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "keep" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "keep" }
  lifecycle {
    prevent_destroy = true
  }
}
`})
	d.mustRun("apply")
	src, err := os.ReadFile(filepath.Join(d.dir, "main.pier.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(src[:strings.Index(string(src), "prevent_destroy")]), "\n") + 1
	at := "on main.pier.hcl:" + strconv.Itoa(line) + ":5, in resource \"keep\""
	want := "resource keep has lifecycle.prevent_destroy set, but this plan would "
	for _, args := range [][]string{{"plan", "--replace", "keep"}, {"apply", "--replace", "keep", "--yes"}, {"destroy", "--yes"}} {
		out, errs, code := d.run(args...)
		if code != exitError || !strings.Contains(errs, want) || !strings.Contains(errs, at) || !strings.Contains(errs, "Error: Instance cannot be") {
			t.Errorf("pier %v: exit %d, want %d and %q\n%s\n%s", args, code, exitError, want, out, errs)
		}
	}
	if n := d.count("destroy", "keep"); n != 0 {
		t.Errorf("keep was destroyed %d times", n)
	}
	if d.entry("keep") == nil {
		t.Error("keep is no longer recorded")
	}
}

func TestIgnoreChanges(t *testing.T) {
	t.Parallel()
	conf := func(value, note string) string {
		return header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "` + value + `", sleep = ` + note + ` }
  lifecycle {
    ignore_changes = [inputs.value]
  }
}
`
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": conf("one", "0")})
	d.mustRun("apply")
	d.write(map[string]string{"main.pier.hcl": conf("two", "0")})
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("a change of an ignored input is planned:\n%s", out)
	}
	d.mustRun("apply")
	// A change elsewhere updates, keeping the ignored input's recorded value.
	d.write(map[string]string{"main.pier.hcl": conf("two", "0.01")})
	out := d.mustRun("plan")
	if !strings.Contains(out, "~ sleep = 0 -> 0.01") || strings.Contains(out, `"two"`) {
		t.Errorf("plan:\n%s", out)
	}
	d.mustRun("apply")
	if n := d.count("update", "one"); n != 1 {
		t.Errorf("journal %v: want one update that keeps value one", d.journal())
	}
	if n := d.count("update", "two") + d.count("create", "two"); n != 0 {
		t.Errorf("the ignored value reached the provider: %v", d.journal())
	}
}

const targetDeployment = header + `
variable "v" { default = "1" }
resource "base" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "base-${var.v}" }
}
resource "top" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "top-${resource.base.outputs.value}" }
}
resource "other" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "other-${var.v}" }
}
`

func TestTargetAndMembers(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": targetDeployment})
	d.mustRun("apply")
	out := d.mustRun("plan", "--target", "top", "--var", "v=2")
	for _, want := range []string{"Warning: Resource targeting is in effect", "# base will be updated", "# top will be updated"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan --target lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "other") {
		t.Errorf("plan --target top plans other:\n%s", out)
	}
	// A member argument targets as --target does.
	out = d.mustRun("apply", "--var", "v=2", "top")
	if !strings.Contains(out, "0 created, 2 updated, 0 destroyed") {
		t.Errorf("apply top:\n%s", out)
	}
	if d.count("update", "other-2") != 0 || d.count("update", "top-base-2") != 1 {
		t.Errorf("journal %v", d.journal())
	}
	if out := d.mustRun("plan", "--var", "v=2"); !strings.Contains(out, "# other will be updated") || !strings.Contains(out, "1 to update") {
		t.Errorf("plan after the targeted apply:\n%s", out)
	}
	if _, errs, code := d.run("plan", "--target", "nosuch"); code != exitError || !strings.Contains(errs, "--target nosuch: no resource") {
		t.Errorf("unknown target: exit %d\n%s", code, errs)
	}
}

func TestDetailedExitcode(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": targetDeployment})
	if _, errs, code := d.run("plan", "--detailed-exitcode"); code != exitPlanChanges || strings.Contains(errs, "pier: \n") {
		t.Errorf("plan with changes: exit %d, want %d, nothing printed as an error\n%s", code, exitPlanChanges, errs)
	}
	d.mustRun("apply")
	if _, errs, code := d.run("plan", "--detailed-exitcode"); code != exitOK {
		t.Errorf("plan without changes: exit %d\n%s", code, errs)
	}
	d.write(map[string]string{"broken.pier.hcl": `resource "x" {`})
	if _, _, code := d.run("plan", "--detailed-exitcode"); code != exitError {
		t.Errorf("plan of a broken deployment: exit %d, want %d", code, exitError)
	}
}

// Off a terminal, apply goes on unless it would destroy or replace.
func TestApplyConfirmationOffTerminal(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": targetDeployment})
	d.mustRun("apply") // creates only: no --yes needed
	d.write(map[string]string{"main.pier.hcl": strings.Replace(targetDeployment, `resource "other"`, `resource "renamed"`, 1)})
	out, errs, code := d.run("apply")
	if code != exitUsage || !strings.Contains(errs, "the plan destroys or replaces other (destroy)") || !strings.Contains(errs, "--yes") {
		t.Fatalf("apply with a destroy off a terminal: exit %d, want %d\n%s\n%s", code, exitUsage, out, errs)
	}
	if d.count("destroy", "other-1") != 0 || d.count("create", "other-1") != 1 {
		t.Fatalf("apply refused but changed something: %v", d.journal())
	}
	// A saved plan was reviewed: it does not ask.
	d.mustRun("plan", "-out", "tfplan")
	d.mustRun("apply", "tfplan")
	if d.count("destroy", "other-1") != 1 {
		t.Errorf("the saved plan did not destroy other: %v", d.journal())
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// On a terminal, apply shows the plan and asks; only "yes" goes on.
func TestApplyConfirmationOnTerminal(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": targetDeployment})
	onTerminal := func(answer string, args ...string) string {
		t.Helper()
		// python3's pty runs pier on a pseudo-terminal and types answer.
		script := "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)"
		cmd := exec.Command("python3", append([]string{"-c", script, d.pier}, args...)...)
		cmd.Dir = d.dir
		cmd.Env = append(os.Environ(), "JOURNAL="+filepath.Join(d.dir, "journal.jsonl"))
		cmd.Stdin = strings.NewReader(answer)
		out, _ := cmd.CombinedOutput()
		// On a terminal pier colours its output; the words are what count.
		return ansi.ReplaceAllString(string(out), "")
	}
	out := onTerminal("no\n", "apply")
	if !strings.Contains(out, "Do you want to perform these actions?") || !strings.Contains(out, "apply cancelled") {
		t.Fatalf("apply on a terminal answered no:\n%s", out)
	}
	if n := len(d.journal()); n != 0 {
		t.Fatalf("a declined apply changed things: %v", d.journal())
	}
	out = onTerminal("yes\n", "apply")
	if !strings.Contains(out, "Apply complete! Resources: 3 created") {
		t.Fatalf("apply on a terminal answered yes:\n%s", out)
	}
	out = onTerminal("", "apply", "--yes", "--var", "v=2")
	if strings.Contains(out, "Do you want") || !strings.Contains(out, "3 updated") {
		t.Errorf("apply --yes on a terminal:\n%s", out)
	}
}
