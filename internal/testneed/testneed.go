// Package testneed decides what a test does when a tool it needs (python3,
// perl, node, nix, a Terraform provider binary) is missing.
//
// Under a bare `go test ./...` the test skips and names the missing tool
// and what installs it. Under `make test`, which sets PIER_TEST_STRICT=1,
// it fails instead: make test promises that every test runs, so a missing
// tool there is an error in the machine's setup, never a silent skip.
package testneed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// StrictEnv is the environment variable make test sets.
const StrictEnv = "PIER_TEST_STRICT"

// Strict reports whether a missing tool must fail the test.
func Strict() bool { return os.Getenv(StrictEnv) == "1" }

// TB is the part of testing.TB (and of testscript's TestScript) that
// testneed uses.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// Tool returns the path of the named executable, or stops the test: it
// skips, or under make test fails, saying how to install it.
func Tool(t TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, fmt.Sprintf("%s is not on PATH", name), InstallHint(name))
	}
	return p
}

// File stops the test unless path exists; hint says what makes it.
func File(t TB, path, hint string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, fmt.Sprintf("%s is missing", path), hint)
	}
}

// Missing skips or fails the test for a missing dependency.
func Missing(t TB, what, hint string) {
	t.Helper()
	missing(t, what, hint, Strict())
}

func missing(t TB, what, hint string, strict bool) {
	t.Helper()
	msg := what + ": " + hint
	if strict {
		t.Fatal(msg + " (make test runs every test; " + StrictEnv + "=1)")
		return
	}
	t.Skip(msg)
}

// InstallHint says how to install a tool or module on Debian, from
// .ci/tools.txt, the list make test checks before it runs the tests.
func InstallHint(name string) string {
	tools, err := readTools()
	if err != nil {
		return fmt.Sprintf("install %s (%v)", name, err)
	}
	if in, ok := tools[name]; ok {
		return fmt.Sprintf("apt-get install %s (%s installs it)", in.pkg, in.script)
	}
	return "install " + name + " (and add it to .ci/tools.txt)"
}

type install struct{ kind, pkg, script string }

// kinds are the capabilities .ci/need-tools knows how to check.
var kinds = map[string]bool{"program": true, "python": true, "perl": true, "file": true}

// readTools parses .ci/tools.txt: "kind name package script" lines.
func readTools() (map[string]install, error) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", ".ci", "tools.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tools := map[string]install{}
	for n, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 4 || !kinds[f[0]] {
			return nil, fmt.Errorf("%s:%d: want KIND NAME PACKAGE SCRIPT, KIND one of program, python, perl, file", path, n+1)
		}
		tools[f[1]] = install{f[0], f[2], f[3]}
	}
	return tools, nil
}
