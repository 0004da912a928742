package main

// Not a scenario: pier console runs in a tmux pane; the test types keys and polls the screen.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pierhq/pier/internal/testneed"
)

const evalDeployment = `
variable "greeting" {
  type    = string
  default = "hello"
}
variable "password" {
  type      = string
  default   = "hunter2"
  sensitive = true
}
provider "local" {
  builtin = "local"
}
provider "j" {
  executable = "JOURNAL_PROVIDER"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  provider = provider.j
  type     = "echo"
  state    = resource.state
  inputs   = { value = var.greeting }
}
resource "secret" {
  provider = provider.j
  type     = "echo"
  state    = resource.state
  inputs   = { value = var.password }
}
output "shout" {
  value = upper(resource.a.outputs.value)
}
`

// TestConsoleThroughTmux drives pier console on a real terminal: tmux
// gives it a pty, send-keys types, capture-pane reads the screen.
func TestConsoleThroughTmux(t *testing.T) {
	t.Parallel()
	tmux := testneed.Tool(t, "tmux")
	d := newDeployment(t, map[string]string{"main.pier.hcl": evalDeployment})
	d.mustRun("apply")
	stateHome := filepath.Join(d.dir, "xdg-state")
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	shell := fmt.Sprintf("cd %q && JOURNAL=%q XDG_STATE_HOME=%q %q console; echo console-exited-$?; sleep 600",
		d.dir, filepath.Join(d.dir, "journal.jsonl"), stateHome, d.pier)
	run("new-session", "-d", "-x", "120", "-y", "40", "-s", "pier", shell)
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", sock, "kill-server").Run() })
	screen := func() string { return run("capture-pane", "-p", "-t", "pier") }
	// waitFor polls the screen: the console is a separate process, and
	// a generous deadline keeps a loaded machine from failing the test.
	waitFor := func(want string, n int) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			s := screen()
			if strings.Count(s, want) >= n {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q %d times:\n%s", want, n, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("Type an expression", 1)
	run("send-keys", "-t", "pier", "resource.a.outputs.value", "Enter")
	waitFor(`"hello"`, 1)
	// Line editing: type, go to the start (Ctrl-A), insert, go to the
	// end (Ctrl-E), append.
	run("send-keys", "-t", "pier", `"x"`, "C-a", "upper(", "C-e", ")", "Enter")
	waitFor(`"X"`, 1)
	run("send-keys", "-t", "pier", "var.password", "Enter")
	waitFor("(sensitive value)", 1)
	// History: Up three times recalls the first expression.
	run("send-keys", "-t", "pier", "Up", "Up", "Up", "Enter")
	waitFor(`"hello"`, 2)
	run("send-keys", "-t", "pier", "nope", "Enter")
	waitFor("error:", 1)
	run("send-keys", "-t", "pier", "exit", "Enter")
	s := waitFor("console-exited-0", 1)
	if strings.Contains(s, "hunter2") {
		t.Errorf("the secret was shown:\n%s", s)
	}
	hist, err := os.ReadFile(filepath.Join(stateHome, "pier", "console_history"))
	if err != nil {
		t.Fatal(err)
	}
	want := "resource.a.outputs.value\nupper(\"x\")\nvar.password\nresource.a.outputs.value\nnope\nexit\n"
	if string(hist) != want {
		t.Errorf("history file = %q, want %q", hist, want)
	}
	if info, err := os.Stat(filepath.Join(stateHome, "pier", "console_history")); err == nil && info.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", info.Mode().Perm())
	}
}
