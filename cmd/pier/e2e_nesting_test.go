package main

import (
	"strings"
	"testing"
)

// TestDeepNestingIsADiagnostic checks the whole path: 100,000 nested "("
// in a deployment file is a positioned diagnostic and exit 1, and the
// snippet renderer does not parse the file again into a stack overflow
// (before, pier died with "fatal error: stack overflow", exit 2).
func TestDeepNestingIsADiagnostic(t *testing.T) {
	t.Parallel()
	for name, deep := range map[string]string{
		"parentheses": strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000),
		"brackets":    strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDeployment(t, map[string]string{"main.pier.hcl": "locals {\n  x = " + deep + "\n}\n"})
			_, errs, code := d.run("plan")
			if code != exitError || !strings.Contains(errs, "Nesting too deep") || !strings.Contains(errs, "on main.pier.hcl line 2") {
				t.Errorf("plan: exit %d, stderr:\n%.600s", code, errs)
			}
			if strings.Contains(errs, "stack overflow") {
				t.Errorf("pier overflowed its stack")
			}
		})
	}
}
