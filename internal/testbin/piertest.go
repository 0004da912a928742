package testbin

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// PierTest runs `pier test` in the current directory (an example's, for
// its Go test) and fails tb unless it passes, its output holds every line
// in want, and it left nothing behind: no temporary directory, and none
// of the files matching leftovers in the example's own directory (its
// state, say, which lived in the temporary directory).
func PierTest(tb testing.TB, want []string, leftovers ...string) {
	tb.Helper()
	tmp := tb.TempDir()
	cmd := exec.CommandContext(tb.Context(), Pier(tb), "test")
	// pier test's temporary directories go under tmp, so that the test
	// sees that they are gone afterwards.
	cmd.Env = append(cmd.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("pier test: %v\n%s", err, out)
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			tb.Errorf("pier test output lacks %q:\n%s", w, out)
		}
	}
	left, err := filepath.Glob(filepath.Join(tmp, "pier-test-*"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(left) > 0 {
		tb.Errorf("pier test left %v behind", left)
	}
	for _, pattern := range leftovers {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			tb.Errorf("pier test wrote %v into the example's directory", m)
		}
	}
}
