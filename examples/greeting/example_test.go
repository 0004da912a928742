// Package greeting holds an example deployment with its own tests; this
// test runs them with the real pier binary, as `pier test` would be run
// in a project's CI.
package greeting

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

func TestPierTest(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd := exec.CommandContext(t.Context(), testbin.Pier(t), "test")
	// pier test's temporary directories go under tmp, so that the test
	// sees that they are gone afterwards.
	cmd.Env = append(cmd.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pier test: %v\n%s", err, out)
	}
	for _, want := range []string{
		`run "plans_the_memo"... pass`,
		`run "writes_the_note"... pass`,
		`run "keeps_the_first_greeting"... pass`,
		`run "refuses_a_bad_name"... pass`,
		`run "warns_about_a_long_greeting"... pass`,
		"Success! 5 passed, 0 failed.",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pier test output lacks %q:\n%s", want, out)
		}
	}
	left, err := filepath.Glob(filepath.Join(tmp, "pier-test-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("pier test left %v behind", left)
	}
	// The example's own directory gets no state: the runs' state lived
	// in the temporary directory.
	if m, _ := filepath.Glob("*.state.json"); len(m) > 0 {
		t.Errorf("pier test wrote %v into the example's directory", m)
	}
}
