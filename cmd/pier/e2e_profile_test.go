package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfiledRunWritesEveryProcessProfile is end to end because the
// profiles are written by separate processes as each one exits: the
// command's own, and each `pier adapter local` it started (the state
// handler and the memos' pool) under FILE.local-PID, once its stdin is
// closed.
func TestProfiledRunWritesEveryProcessProfile(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  count    = 3
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "v${count.index}" }
}
`})
	prof := filepath.Join(t.TempDir(), "cpu")
	cmd := d.command("apply", "--yes")
	cmd.Env = append(cmd.Env, "PIER_CPUPROFILE="+prof, "PIER_MEMPROFILE="+prof+".heap")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pier apply: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(filepath.Dir(prof))
	if err != nil {
		t.Fatal(err)
	}
	var cpu, heap []string
	for _, e := range entries {
		name := e.Name()
		data, err := os.ReadFile(filepath.Join(filepath.Dir(prof), name))
		if err != nil {
			t.Fatal(err)
		}
		// A pprof profile is a gzipped protocol buffer.
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a profile (%d bytes)", name, len(data))
		}
		switch {
		case strings.HasPrefix(name, "cpu.heap"):
			heap = append(heap, name)
		default:
			cpu = append(cpu, name)
		}
	}
	for _, kind := range []struct {
		what  string
		names []string
		base  string
	}{{"CPU", cpu, "cpu"}, {"heap", heap, "cpu.heap"}} {
		adapters := 0
		command := false
		for _, n := range kind.names {
			switch {
			case n == kind.base:
				command = true
			case strings.HasPrefix(n, kind.base+".local-"):
				adapters++
			}
		}
		// The state handler's process and at least one of the memos'.
		if !command || adapters < 2 {
			t.Errorf("%s profiles %q: want the command's (%s) and at least two of `pier adapter local` (%s.local-PID)", kind.what, kind.names, kind.base, kind.base)
		}
	}
}
