package main

// End-to-end tests that need pier on a whole terminal (a pty for its
// standard input and output, as python3's pty.spawn gives it). Scenarios
// cannot say this: testscript's ttyin attaches a pty to standard input
// only, and the stdout and stderr it checks are pipes.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
