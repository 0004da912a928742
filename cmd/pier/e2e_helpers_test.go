package main

// Not scenarios: these are the helpers of the Go end-to-end tests, each of which says why it is one.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/statefile"
)

// deployment is a deployment directory driven through the real pier
// binary, with the journal provider (testdata/providers/journal.py)
// recording every operation it performs.
type deployment struct {
	t    testing.TB
	dir  string
	pier string
}

// newDeployment writes files into a fresh directory. In file contents,
// JOURNAL_PROVIDER stands for the journal provider's absolute path.
func newDeployment(t testing.TB, files map[string]string) *deployment {
	t.Helper()
	testneed.Tool(t, "python3")
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.write(files)
	return d
}

func (d *deployment) write(files map[string]string) {
	d.t.Helper()
	prov, err := filepath.Abs("testdata/providers/journal.py")
	if err != nil {
		d.t.Fatal(err)
	}
	for name, content := range files {
		content = strings.ReplaceAll(content, "JOURNAL_PROVIDER", prov)
		if err := os.WriteFile(filepath.Join(d.dir, name), []byte(content), 0o644); err != nil {
			d.t.Fatal(err)
		}
	}
}

// command prepares a pier command in the deployment's directory.
func (d *deployment) command(args ...string) *exec.Cmd {
	cmd := exec.Command(d.pier, args...)
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "JOURNAL="+filepath.Join(d.dir, "journal.jsonl"))
	return cmd
}

// run runs pier to completion and returns its output and exit code.
func (d *deployment) run(args ...string) (stdout, stderr string, code int) {
	d.t.Helper()
	cmd := d.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		d.t.Fatalf("run pier %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustRun runs pier and fails the test unless it exits 0.
func (d *deployment) mustRun(args ...string) string {
	d.t.Helper()
	out, errs, code := d.run(args...)
	if code != 0 {
		d.t.Fatalf("pier %v exited %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errs)
	}
	return out
}

type journalEntry struct {
	Op     string         `json:"op"`
	Type   string         `json:"type"`
	Inputs map[string]any `json:"inputs"`
}

// journal returns the operations the journal provider performed.
func (d *deployment) journal() []journalEntry {
	d.t.Helper()
	f, err := os.Open(filepath.Join(d.dir, "journal.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		d.t.Fatal(err)
	}
	defer f.Close()
	var out []journalEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e journalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			d.t.Fatalf("journal line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// count counts journal entries of one op for one input value.
func (d *deployment) count(op, value string) int {
	n := 0
	for _, e := range d.journal() {
		if e.Op == op && e.Inputs["value"] == value {
			n++
		}
	}
	return n
}

// state replays a state file of the deployment. A file not written yet
// (nothing was ever recorded) holds no resources.
func (d *deployment) state(name string) map[string]any {
	d.t.Helper()
	f, err := os.Open(filepath.Join(d.dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{}
	}
	if err != nil {
		d.t.Fatal(err)
	}
	defer f.Close()
	r, err := statefile.Replay(f)
	if err != nil {
		d.t.Fatalf("replay %s: %v", name, err)
	}
	return r.State
}

// peekState reads a state file of the deployment while a pier may be
// writing it, as a second process would: without a lock, through pier's own
// reader, which reads a torn last event (one being appended) as not there
// yet. Use it to poll; use state once the writer has exited, where a torn
// or missing event is an error.
func (d *deployment) peekState(name string) map[string]any {
	d.t.Helper()
	s, err := statefile.Read(filepath.Join(d.dir, name))
	if err != nil {
		d.t.Fatalf("read %s: %v", name, err)
	}
	state, err := s.State()
	if err != nil {
		d.t.Fatalf("read %s: %v", name, err)
	}
	return state
}

// resources returns the resource names at one level of a state document,
// following the path of keys given (e.g. "deployments", "web").
func resources(state map[string]any, path ...string) []string {
	m := state
	for _, p := range path {
		next, _ := m[p].(map[string]any)
		m = next
	}
	res, _ := m["resources"].(map[string]any)
	return slices.Sorted(maps.Keys(res))
}
