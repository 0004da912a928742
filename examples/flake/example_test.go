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
