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
	msg := what + ": " + hint
	if Strict() {
		t.Fatal(msg + " (make test runs every test; " + StrictEnv + "=1)")
	}
	t.Skip(msg)
}

// installs maps a tool to the Debian package and the .ci/setup.d script
// that install it.
var installs = map[string][2]string{
	"python3": {"python3", ".ci/setup.d/10-base.sh"},
	"jq":      {"jq", ".ci/setup.d/10-base.sh"},
	"perl":    {"perl", ".ci/setup.d/50-provider-examples.sh"},
	"node":    {"nodejs", ".ci/setup.d/50-provider-examples.sh"},
	"nix":     {"nix-bin", ".ci/setup.d/40-nix.sh"},
	"script":  {"bsdutils", "Debian's essential set"},
}

// InstallHint says how to install a tool on Debian.
func InstallHint(name string) string {
	if in, ok := installs[name]; ok {
		return fmt.Sprintf("apt-get install %s (%s installs it)", in[0], in[1])
	}
	return "install " + name
}
