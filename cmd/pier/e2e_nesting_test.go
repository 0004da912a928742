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
			if code != exitError || !strings.Contains(errs, "Nesting too deep") || !strings.Contains(errs, "on main.pier.hcl:2:") {
				t.Errorf("plan: exit %d, stderr:\n%.600s", code, errs)
			}
			if strings.Contains(errs, "stack overflow") {
				t.Errorf("pier overflowed its stack")
			}
		})
	}
}

// TestDeepNestingEverywhere feeds 100,000 unclosed brackets to every
// other parser of HCL pier runs: the lock file (plan, providers,
// providers lock), pier fmt, pier eval and pier console. Each answers
// "Nesting too deep" and exit 1; before, each died with "fatal error:
// stack overflow".
func TestDeepNestingEverywhere(t *testing.T) {
	t.Parallel()
	const deployment = "provider \"local\" { builtin = \"local\" }\n"
	// An argument holds at most 128 KiB (MAX_ARG_STRLEN): eval gets
	// unclosed brackets, which the parser recurses into just the same.
	deep := strings.Repeat("[", 100_000)
	deepLock := "provider \"x\" {\n  version = " + deep + "\n}\n"
	tests := map[string]struct {
		files map[string]string
		args  []string
		stdin string
	}{
		"plan with a deep lock file":      {files: map[string]string{"main.pier.hcl": deployment, ".pier.lock.hcl": deepLock}, args: []string{"plan"}},
		"providers with a deep lock file": {files: map[string]string{"main.pier.hcl": deployment, ".pier.lock.hcl": deepLock}, args: []string{"providers"}},
		"providers lock":                  {files: map[string]string{"main.pier.hcl": deployment, ".pier.lock.hcl": deepLock}, args: []string{"providers", "lock"}},
		"fmt":                             {files: map[string]string{"main.pier.hcl": "locals {\n  x = " + deep + "\n}\n"}, args: []string{"fmt", "--check"}},
		"fmt of stdin":                    {files: map[string]string{"main.pier.hcl": deployment}, args: []string{"fmt", "-"}, stdin: "x = " + deep + "\n"},
		"eval":                            {files: map[string]string{"main.pier.hcl": deployment}, args: []string{"eval", deep}},
		"eval of %{if}":                   {files: map[string]string{"main.pier.hcl": deployment}, args: []string{"eval", `"` + strings.Repeat("%{if true}", 12_000)}},
		"console":                         {files: map[string]string{"main.pier.hcl": deployment}, args: []string{"console"}, stdin: deep + "\n1 + 1\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDeployment(t, tc.files)
			cmd := d.command(tc.args...)
			cmd.Stdin = strings.NewReader(tc.stdin)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			all := out.String() + errb.String()
			if strings.Contains(all, "stack overflow") || strings.Contains(all, "goroutine ") {
				t.Fatalf("pier %s crashed:\n%.600s", tc.args[0], all)
			}
			if !strings.Contains(all, "Nesting too deep") {
				t.Errorf("pier %v: no \"Nesting too deep\" (%v):\n%.600s", tc.args, err, all)
			}
			if tc.args[0] == "console" {
				// The console goes on after a bad line.
				if !strings.Contains(out.String(), "2") {
					t.Errorf("console stopped after the deep line:\n%.600s", all)
				}
				return
			}
			if code := cmd.ProcessState.ExitCode(); code != exitError {
				t.Errorf("pier %v: exit %d, want %d", tc.args, code, exitError)
			}
		})
	}
}
