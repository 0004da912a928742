package main

// Not a scenario: the test SIGKILLs pier mid-apply and then watches /proc for the provider to die.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// TestTerraformProviderDiesWithPier: the shared provider process belongs
// to no bridge; when pier is killed outright (SIGKILL, no cleanup) while
// the provider works, the provider must not outlive it.
func TestTerraformProviderDiesWithPier(t *testing.T) {
	t.Parallel()
	real := tfProviderForTest(t, "terraform-provider-time")
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	wrapper := filepath.Join(dir, "terraform-provider-time")
	script := fmt.Sprintf("#!/bin/sh\necho $$ >> '%s'\nexec '%s' \"$@\"\n", pids, real)
	testbin.WriteExecutable(t, wrapper, []byte(script), 0o755)
	d := newDeployment(t, map[string]string{"main.pier.hcl": fmt.Sprintf(`
provider "local" {
  builtin = "local"
}
provider "time" {
  terraform = %q
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "sleep" {
  count    = 2
  provider = provider.time
  type     = "time_sleep"
  state    = resource.state
  inputs   = { create_duration = "10m" }
}
`, wrapper)})
	cmd := d.command("apply", "--json")
	outPath := filepath.Join(dir, "out")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill pier once both sleeps are being applied: the provider is busy.
	waitFor(t, "both sleeps to be applying", func() bool {
		data, _ := os.ReadFile(outPath)
		return bytes.Count(data, []byte(`"APPLYING"`)) >= 2
	})
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	var provs []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		provs = append(provs, pid)
	}
	if len(provs) != 1 {
		t.Errorf("%d provider processes started, want 1", len(provs))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, pid := range provs {
		waitFor(t, fmt.Sprintf("provider process %d to die with pier", pid), func() bool { return !alive(pid) })
	}
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	// pid (comm) STATE ...; comm may hold spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
