package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dirEntries lists the names in a directory, sorted.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// Planning writes nothing: not the state file a first plan would need,
// not its lock, and not the repair of a torn tail. Only apply writes.
func TestPlanNeverWrites(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "one" }
}
`})
	before := dirEntries(t, d.dir)
	out := d.mustRun("plan")
	if !strings.Contains(out, "a will be created") {
		t.Errorf("plan output lacks the create:\n%s", out)
	}
	if after := dirEntries(t, d.dir); !slices.Equal(before, after) {
		t.Fatalf("pier plan changed the directory: %v, then %v", before, after)
	}

	d.mustRun("apply")
	path := filepath.Join(d.dir, "state.json")
	// A crash mid-append leaves a torn last event.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"index":9,"meta":{"time":"x"},"patch":[{"op":"ad`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	torn, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before = dirEntries(t, d.dir)

	d.write(map[string]string{"main.pier.hcl": header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "two" }
}
`})
	out, errs, code := d.run("plan")
	if code != 0 || !strings.Contains(out, "a will be updated") {
		t.Fatalf("plan over a torn tail: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "torn") {
		t.Errorf("plan does not warn of the torn tail:\n%s", errs)
	}
	if now, _ := os.ReadFile(path); string(now) != string(torn) {
		t.Errorf("pier plan rewrote the state file:\nbefore %q\nafter  %q", torn, now)
	}
	if after := dirEntries(t, d.dir); !slices.Equal(before, after) {
		t.Errorf("pier plan changed the directory: %v, then %v", before, after)
	}
	if n := d.count("update", "two"); n != 0 {
		t.Errorf("plan updated a: %d updates", n)
	}

	// Apply repairs the tail, keeping a copy, and records the update.
	d.mustRun("apply")
	if got := resources(d.state("state.json")); !slices.Equal(got, []string{"a"}) {
		t.Errorf("state after apply records %v, want [a]", got)
	}
	var copies int
	for _, n := range dirEntries(t, d.dir) {
		if strings.HasPrefix(n, "state.json.torn-") {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("apply kept %d copies of the torn tail, want 1: %v", copies, dirEntries(t, d.dir))
	}
}
