package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const refreshOnlyDeployment = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "motd" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "motd.txt", contents = "hello\n" }
}
`

// On a terminal, apply --refresh-only shows the drift and asks, as apply
// does: "no" records nothing, "yes" records the read; neither changes the
// file.
func TestRefreshOnlyAsksOnTerminal(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": refreshOnlyDeployment})
	d.mustRun("apply")
	motd := filepath.Join(d.dir, "motd.txt")
	if err := os.WriteFile(motd, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	onTerminal := func(answer string) string {
		t.Helper()
		script := "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)"
		cmd := exec.Command("python3", "-c", script, d.pier, "apply", "--refresh-only")
		cmd.Dir = d.dir
		cmd.Stdin = strings.NewReader(answer)
		out, _ := cmd.CombinedOutput()
		return ansi.ReplaceAllString(string(out), "")
	}
	recorded := func() string {
		t.Helper()
		return d.mustRun("state", "show", "motd")
	}
	out := onTerminal("no\n")
	if !strings.Contains(out, "# motd has changed outside of pier") || !strings.Contains(out, "Do you want to record these objects in state as they are now?") || !strings.Contains(out, "apply cancelled") {
		t.Fatalf("apply --refresh-only on a terminal answered no:\n%s", out)
	}
	if s := recorded(); !strings.Contains(s, `"contents": "hello\n"`) {
		t.Fatalf("a declined refresh-only apply recorded the read:\n%s", s)
	}
	out = onTerminal("yes\n")
	if !strings.Contains(out, "Refresh complete! 1 object recorded as read") {
		t.Fatalf("apply --refresh-only on a terminal answered yes:\n%s", out)
	}
	if s := recorded(); !strings.Contains(s, `"contents": "edited\n"`) {
		t.Fatalf("the refresh-only apply did not record the read:\n%s", s)
	}
	if b, err := os.ReadFile(motd); err != nil || string(b) != "edited\n" {
		t.Fatalf("the refresh-only apply changed the file: %q, %v", b, err)
	}
}
