package main

import (
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// TestHelpSaysWhatPrintsSecrets checks that the commands printing state
// unredacted say so in their --help, usage line and description.
func TestHelpSaysWhatPrintsSecrets(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"statefile", "show", "--help"}, {"state", "dump", "--help"}} {
		d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
		out, errs, code := d.run(args...)
		if code != 0 {
			t.Fatalf("pier %v: exit %d\n%s", args, code, errs)
		}
		usage, _, _ := strings.Cut(out, "\n\n")
		if !strings.Contains(usage, "secrets") || strings.Count(out, "secret") < 2 {
			t.Errorf("pier %v does not say, in its usage line and description, that it prints secrets:\n%s", args, out)
		}
	}
}
