package postgres

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/pierhq/pier/adapters/postgres/pgtest"
	"github.com/pierhq/pier/internal/testbin"
)

// TestProviderCheck runs pier's conformance checks against pg_state as a
// state provider, through `pier provider check --builtin postgres`, the
// way a third-party state provider is checked.
func TestProviderCheck(t *testing.T) {
	t.Parallel()
	srv := pgtest.Current(t)
	cmd := exec.Command(testbin.Pier(t), "provider", "check", "--builtin", "postgres", "--type", "pg_state",
		"--inputs-json", `{"key":"`+t.Name()+`"}`, "--state-provider")
	cmd.Env = append(baseEnv(), srv.Env(pgtest.Superuser)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pier provider check: %v\n%s", err, out)
	}
	for _, check := range []string{"state read", "state event", "state read reflects event"} {
		if !strings.Contains(string(out), check) {
			t.Errorf("the check %q did not run:\n%s", check, out)
		}
	}
	t.Logf("%s", out)
}
