// Package flake holds the example flake deployment; its test applies it
// with the real pier binary, as a user would.
package flake

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

func TestExampleFlake(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	// A copy outside the repository, as the README says: nix then reads it
	// as a path: flake rather than as part of pier's git tree.
	dir := t.TempDir()
	for _, f := range []string{"flake.nix"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pier := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), testbin.Pier(t), args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pier %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--flake", "."}, "2 created"},
		{[]string{"apply", "--flake", "."}, "0 created, 0 updated, 0 destroyed"},
		{[]string{"destroy", "--flake", ".", "--yes"}, "destroyed"},
	}
	for i, s := range steps {
		out := pier(s.args...)
		if !strings.Contains(out, s.want) {
			t.Errorf("step %d: pier %v output lacks %q:\n%s", i+1, s.args, s.want, out)
		}
		if i == 0 {
			got, err := os.ReadFile(filepath.Join(dir, "motd.txt"))
			if err != nil || string(got) != "Deployed by pier from a flake, since the first apply.\n" {
				t.Errorf("motd.txt = %q, %v", got, err)
			}
		}
	}
}

// TestExampleFlakeFromRepoRoot runs the example as the README's reader
// might, from the root of the git repository holding it: `pier plan --flake
// ./examples/flake` writes nothing anywhere, and apply keeps the state file
// (and the files it makes) beside flake.nix, not in the working directory.
func TestExampleFlakeFromRepoRoot(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	git := testneed.Tool(t, "git")
	root := t.TempDir()
	flakeDir := filepath.Join(root, "examples", "flake")
	if err := os.MkdirAll(flakeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flakeDir, "flake.nix"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run(git, "init", "-q")
	run(git, "add", "examples/flake/flake.nix")
	untracked := func() string { return run(git, "status", "--porcelain", "--untracked-files=all", "--ignored") }
	before := untracked()

	if out := run(testbin.Pier(t), "plan", "--flake", "./examples/flake"); !strings.Contains(out, "2 to create") {
		t.Errorf("plan:\n%s", out)
	}
	if after := untracked(); after != before {
		t.Errorf("plan wrote files:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	run(testbin.Pier(t), "apply", "--flake", "./examples/flake")
	for _, f := range []string{"flake.state.json", "motd.txt"} {
		if _, err := os.Stat(filepath.Join(flakeDir, f)); err != nil {
			t.Errorf("apply did not write %s beside flake.nix: %v", f, err)
		}
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("apply wrote %s into the working directory", f)
		}
	}
	if out := run(testbin.Pier(t), "plan", "--flake", "./examples/flake"); !strings.Contains(out, "No changes") {
		t.Errorf("plan after apply, from the repository root:\n%s", out)
	}
}
