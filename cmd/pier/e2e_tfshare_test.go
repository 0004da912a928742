package main

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

// tfShareDeployment declares n bridged time_static resources on one
// Terraform provider, more than one bridge process serves.
func tfShareDeployment(t *testing.T, plugin string, n int, trigger string) map[string]string {
	return map[string]string{"main.pier.hcl": fmt.Sprintf(`
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
resource "t" {
  count    = %d
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { v = %q } }
}
`, plugin, n, trigger)}
}

// TestTerraformOneProviderProcess: however many bridges a command runs,
// it starts its Terraform provider once, for the plan's schema check, the
// previews and every change; an unchanged deployment starts none.
func TestTerraformOneProviderProcess(t *testing.T) {
	t.Parallel()
	plugin, starts := countingPlugin(t, "terraform-provider-time")
	d := newDeployment(t, tfShareDeployment(t, plugin, 24, "a"))
	steps := []struct {
		name    string
		args    []string
		trigger string
		want    string
		starts  int
	}{
		{"create", []string{"apply"}, "a", "Apply complete! Resources: 24 created", 1},
		{"no-op", []string{"apply"}, "a", "Apply complete! Resources: 0 created", 0},
		{"plan of a replace", []string{"plan"}, "b", "24 to replace", 1},
		{"replace", []string{"apply", "--yes"}, "b", "Apply complete! Resources: 24 created, 0 updated, 24 destroyed", 1},
		{"destroy", []string{"destroy", "--yes"}, "b", "Destroy complete! Resources: 24 destroyed.", 1},
	}
	before := 0
	for _, s := range steps {
		d.write(tfShareDeployment(t, plugin, 24, s.trigger))
		out := d.mustRun(s.args...)
		if !strings.Contains(out, s.want) {
			t.Fatalf("%s: output lacks %q:\n%s", s.name, s.want, out)
		}
		if n := starts() - before; n != s.starts {
			t.Errorf("%s started terraform-provider-time %d times, want %d", s.name, n, s.starts)
		}
		before = starts()
	}
}

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
