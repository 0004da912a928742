package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefusedFrameMemory: a provider that answers with a line past the
// 64 MiB frame bound is refused, and the refusal costs pier about the
// bound, not a multiple of it: the audit measured a 352 MB peak for a 65
// MiB line, from a buffer that doubled as it grew. The provider
// (testdata/providers/flood.py) writes its line in 1 MiB pieces, so the
// peak the kernel reports for pier's process (its children's being
// smaller) is pier's own.
func TestRefusedFrameMemory(t *testing.T) {
	t.Parallel()
	bigStates.Lock() // one memory-hungry pier at a time
	t.Cleanup(bigStates.Unlock)
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
	cmd := d.command("apply", "--yes")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err == nil || !strings.Contains(errs.String(), "frame too large") {
		t.Fatalf("apply: %v, want the response refused as too large\nstdout:\n%s\nstderr:\n%s", err, &out, &errs)
	}
	// About 107 MB with the refusal at the bound; 366 MB before.
	const bound = 3 * 64 << 20
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak resident set of pier: %d MiB", peak>>20)
	if peak > bound {
		t.Errorf("refusing a 65 MiB response took pier to %d MiB resident, want at most %d MiB", peak>>20, bound>>20)
	}
}
