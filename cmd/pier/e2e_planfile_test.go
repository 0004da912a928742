package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The files pier plan -out writes: a regular file is replaced by a new
// one, atomically; a FIFO is written through and keeps its mode; a
// symbolic link is refused and what it points to is left alone. (The
// audit's case was -out /dev/null as root, which made /dev/null 0600 for
// everyone. A FIFO stands in for the device: these tests never touch
// /dev/null.)

const onePlanDeployment = header + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "one" }
}
`

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestPlanOutReplacesARegularFile(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": onePlanDeployment})
	path := filepath.Join(d.dir, "plan.json")
	if err := os.WriteFile(path, []byte("an older file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	// A second name for the old file sees it unchanged: the plan is a new
	// file renamed over the name, not the old file truncated and rewritten.
	if err := os.Link(path, filepath.Join(d.dir, "old")); err != nil {
		t.Fatal(err)
	}
	before := inode(t, path)
	d.mustRun("plan", "-out", "plan.json")
	if got := mode(t, path).Perm(); got != 0o600 {
		t.Errorf("plan file mode %v, want 0600", got)
	}
	if inode(t, path) == before {
		t.Errorf("plan file kept its inode: it was rewritten in place, not replaced")
	}
	if old, _ := os.ReadFile(filepath.Join(d.dir, "old")); string(old) != "an older file" || mode(t, filepath.Join(d.dir, "old")).Perm() != 0o644 {
		t.Errorf("the file that was there was changed: %q, %v", old, mode(t, filepath.Join(d.dir, "old")))
	}
	for _, name := range dirEntries(t, d.dir) {
		if strings.Contains(name, ".tmp-") {
			t.Errorf("temporary file %s left behind", name)
		}
	}
	if out := d.mustRun("apply", "plan.json"); !strings.Contains(out, "1 created") {
		t.Errorf("apply of the saved plan:\n%s", out)
	}
}

func TestPlanOutWritesThroughAFIFO(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": onePlanDeployment})
	fifo := filepath.Join(d.dir, "plan.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(fifo, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		// Opening for reading waits for pier to open it for writing.
		f, err := os.Open(fifo)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	d.mustRun("plan", "-out", "plan.fifo")
	plan := <-got
	if m := mode(t, fifo); m&os.ModeNamedPipe == 0 || m.Perm() != 0o644 {
		t.Errorf("the FIFO is now %v, want a named pipe of mode 0644", m)
	}
	// What came through the pipe is the plan, whole.
	if err := os.WriteFile(filepath.Join(d.dir, "plan.json"), plan, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := d.mustRun("apply", "plan.json"); !strings.Contains(out, "1 created") {
		t.Errorf("apply of the plan read from the FIFO:\n%s", out)
	}
}

func TestPlanOutRefusesASymlink(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": onePlanDeployment})
	target := filepath.Join(d.dir, "target")
	if err := os.WriteFile(target, []byte("not pier's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", filepath.Join(d.dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, errs, code := d.run("plan", "-out", "link")
	if code != 1 || !strings.Contains(errs, "symbolic link") {
		t.Errorf("plan -out a symlink: exit %d, want 1 and an error naming the link\n%s", code, errs)
	}
	if b, _ := os.ReadFile(target); string(b) != "not pier's" || mode(t, target).Perm() != 0o644 {
		t.Errorf("the link's target was changed: %q, %v", b, mode(t, target))
	}
	if mode(t, filepath.Join(d.dir, "link"))&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
}

// editPlan rewrites a saved plan's graph element (kind, name) with edit,
// as someone editing the file by hand would.
func editPlan(t *testing.T, path, kind, name string, edit func(value map[string]any)) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var plan map[string]any
	if err := dec.Decode(&plan); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range plan["graph"].(map[string]any)["elements"].([]any) {
		el := e.(map[string]any)
		if el["kind"] == kind && el["name"] == name {
			edit(el["value"].(map[string]any))
			found = true
		}
	}
	if !found {
		t.Fatalf("no %s element %s in the plan:\n%s", kind, name, raw)
	}
	out, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSavedPlanRefusesAnEditedGraph: the audit edited a desired input in
// a saved plan, and apply applied the edited value while pier show printed
// the original; and edited a prior's outputs in a --replace plan, so that
// the destroy went to another resource's object. The plan's content hash
// makes show and apply refuse both, before any provider starts. A plan
// whose content is unchanged (here re-encoded compactly, its members
// reordered) still applies.
func TestSavedPlanRefusesAnEditedGraph(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": onePlanDeployment + `
resource "b" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "other" }
}
`})
	d.mustRun("plan", "-out", "plan.json")
	editPlan(t, filepath.Join(d.dir, "plan.json"), "desired", "a", func(v map[string]any) {
		v["inputs"].(map[string]any)["value"] = "edited"
	})
	for _, cmd := range [][]string{{"show", "plan.json"}, {"apply", "plan.json"}} {
		out, errs, code := d.run(cmd...)
		if code != 1 || !strings.Contains(errs, "content_sha256") {
			t.Errorf("pier %s of an edited plan: exit %d, want 1 and the content hash named\nstdout:\n%s\nstderr:\n%s", cmd[0], code, out, errs)
		}
	}
	if j := d.journal(); len(j) != 0 {
		t.Fatalf("an edited plan ran: %+v", j)
	}

	// Unchanged content, whatever its layout, applies.
	editPlan(t, filepath.Join(d.dir, "plan.json"), "desired", "a", func(v map[string]any) {
		v["inputs"].(map[string]any)["value"] = "one"
	})
	if out := d.mustRun("apply", "plan.json"); !strings.Contains(out, "2 created") {
		t.Fatalf("apply of the re-encoded plan:\n%s", out)
	}

	d.mustRun("plan", "-out", "replace.json", "--replace", "a")
	editPlan(t, filepath.Join(d.dir, "replace.json"), "prior", "a", func(v map[string]any) {
		v["entry"].(map[string]any)["output_properties"] = map[string]any{"value": "other", "serial": 2}
	})
	_, errs, code := d.run("apply", "replace.json")
	if code != 1 || !strings.Contains(errs, "content_sha256") {
		t.Errorf("apply of a replace plan with an edited prior: exit %d, want 1\n%s", code, errs)
	}
	if n := d.count("destroy", "other") + d.count("destroy", "one"); n != 0 {
		t.Errorf("an edited replace plan destroyed %d objects: %+v", n, d.journal())
	}
}

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
