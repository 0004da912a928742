package main

// Not a scenario: the test reads the kernel's peak resident set (rusage) of the pier process.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// peakRSSEnv marks a run of this test binary as the parent that runs one
// command and reports its peak resident set (see runPeakRSS).
const peakRSSEnv = "PIER_PEAK_RSS"

// peakRSSLine prefixes the last stderr line runPeakRSS writes.
const peakRSSLine = "peak resident set (KiB): "

// runPeakRSS runs argv, passing its output on, and reports the peak
// resident set the kernel recorded for it. A command started by the test
// binary itself would be charged the test binary's own peak: Linux starts
// a process's peak at that of the memory it replaces at exec, and Go's
// exec shares the parent's. This small, fresh process stands between.
func runPeakRSS(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	fmt.Fprintf(os.Stderr, "\n%s%d\n", peakRSSLine, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	return cmd.ProcessState.ExitCode()
}

// TestRefusedFrameMemory: a provider that answers with a line past the
// 64 MiB frame bound is refused, and the refusal costs pier about the
// bound, not a multiple of it: the audit measured a 352 MB peak for a 65
// MiB line, from a buffer that doubled as it grew. The provider
// (testdata/providers/flood.py) writes its line in 1 MiB pieces, so the
// peak the kernel reports for pier's process (its children's being
// smaller) is pier's own.
func TestRefusedFrameMemory(t *testing.T) {
	t.Parallel()
	prov, err := filepath.Abs("testdata/providers/flood.py")
	if err != nil {
		t.Fatal(err)
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": `
provider "flood" { executable = "` + prov + `" }
resource "r" {
  provider = provider.flood
  type     = "flood"
  inputs   = { size = 68157440 } # 65 MiB
}
`})
	pier := d.command("apply", "--yes")
	cmd := exec.Command(os.Args[0], pier.Args...)
	cmd.Dir, cmd.Env = pier.Dir, append(pier.Env, peakRSSEnv+"=1")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err == nil || !strings.Contains(errs.String(), "frame too large") {
		t.Fatalf("apply: %v, want the response refused as too large\nstdout:\n%s\nstderr:\n%s", err, &out, &errs)
	}
	_, after, ok := strings.Cut(errs.String(), peakRSSLine)
	kib, err := strconv.ParseInt(strings.TrimSpace(after), 10, 64)
	if !ok || err != nil {
		t.Fatalf("no peak reported:\n%s", &errs)
	}
	// About 107 MB with the refusal at the bound; 366 MB before.
	const bound = 3 * 64 << 20
	peak := kib << 10
	t.Logf("peak resident set of pier: %d MiB", peak>>20)
	if peak > bound {
		t.Errorf("refusing a 65 MiB response took pier to %d MiB resident, want at most %d MiB", peak>>20, bound>>20)
	}
}
