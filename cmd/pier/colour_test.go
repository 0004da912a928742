package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// TestPlanColour runs pier plan on a real terminal (a pty from script(1)):
// diff markers and the summary are coloured there, and not with NO_COLOR,
// with --no-color, or off a terminal.
func TestPlanColour(t *testing.T) {
	t.Parallel()
	scriptBin := testneed.Tool(t, "script")
	pier := testbin.Pier(t)
	dir := t.TempDir()
	hcl := `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "x" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		tty    bool
		env    []string
		args   string
		colour bool
	}{
		"terminal":            {tty: true, colour: true},
		"NO_COLOR":            {tty: true, env: []string{"NO_COLOR=1"}},
		"empty NO_COLOR":      {tty: true, env: []string{"NO_COLOR="}},
		"--no-color":          {tty: true, args: " --no-color"},
		"not a terminal":      {},
		"not a terminal --no": {args: " --no-color"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var cmd *exec.Cmd
			if tc.tty {
				cmd = exec.Command(scriptBin, "-qfec", pier+" plan"+tc.args, "/dev/null")
			} else {
				cmd = exec.Command(pier, strings.Fields("plan"+tc.args)...)
			}
			cmd.Dir = dir
			cmd.Env = append(withoutEnv(os.Environ(), "NO_COLOR"), tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("pier plan%s: %v\n%s", tc.args, err, out)
			}
			for _, want := range []string{sgrGreen + "+" + sgrReset + " m (local memo)", sgrBold + "Plan:" + sgrReset} {
				if got := strings.Contains(string(out), want); got != tc.colour {
					t.Errorf("output has %q: %v, want %v\n%q", want, got, tc.colour, out)
				}
			}
			if !tc.colour && strings.Contains(string(out), "\x1b[") {
				t.Errorf("colour codes without colour:\n%q", out)
			}
		})
	}
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
