package nixsource

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
)

// pierRun is one run of the real pier binary.
type pierRun struct {
	events []map[string]any
	stderr string
}

// runPier runs `pier ARGS --json` (--json added unless ARGS has it) in dir and decodes its JSON lines.
func runPier(tb testing.TB, dir string, args ...string) pierRun {
	tb.Helper()
	if !slices.Contains(args, "--json") {
		args = append(args, "--json")
	}
	cmd := exec.CommandContext(tb.Context(), testbin.Pier(tb), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("pier %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	run := pierRun{stderr: stderr.String()}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			tb.Fatalf("pier %v: stdout line %q: %v", args, sc.Text(), err)
		}
		run.events = append(run.events, ev)
	}
	return run
}

// ofType returns the events with the given message_type.
func (r pierRun) ofType(t string) []map[string]any {
	var out []map[string]any
	for _, ev := range r.events {
		if ev["message_type"] == t {
			out = append(out, ev)
		}
	}
	return out
}

// summary returns the counts of the run's summary event.
func (r pierRun) summary(tb testing.TB) map[string]float64 {
	tb.Helper()
	s := r.ofType("summary")
	if len(s) != 1 {
		tb.Fatalf("want one summary event, got %v", r.events)
	}
	out := map[string]float64{}
	for _, k := range []string{"created", "updated", "destroyed"} {
		n, _ := s[0][k].(float64)
		out[k] = n
	}
	return out
}

// requests reads the test provider's request log and empties it.
func requests(tb testing.TB, work string) []string {
	tb.Helper()
	path := filepath.Join(work, "requests.log")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		tb.Fatal(err)
	}
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			Op   string `json:"op"`
			Body struct {
				InputProperties map[string]any `json:"inputProperties"`
				Resource        struct {
					InputProperties map[string]any `json:"inputProperties"`
				} `json:"resource"`
			} `json:"body"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			tb.Fatalf("request log line %q: %v", line, err)
		}
		in := r.Body.InputProperties
		if in == nil {
			in = r.Body.Resource.InputProperties
		}
		key, _ := in["name"].(string)
		if key == "" {
			key, _ = in["value"].(string)
		}
		out = append(out, strings.TrimSuffix(r.Op, "ResourceRequest")+" "+key)
	}
	return out
}

// TestApplyFlake drives the real pier binary through a flake deployment's
// life: apply, re-apply without change, an update that flows through an
// output, and a removed member. pier runs in another directory: relative
// paths (the state file, the files the provider writes) are the flake's,
// and the working directory stays empty.
func TestApplyFlake(t *testing.T) {
	t.Parallel()
	needNix(t)
	flake := copyFlake(t, "e2e", nil)
	cwd := t.TempDir()
	ref := "path:" + flake
	// The provider runs in the flake's directory and writes there.
	work := flake
	run := func(args ...string) pierRun { t.Helper(); return runPier(t, cwd, args...) }
	t.Cleanup(func() {
		if left, _ := os.ReadDir(cwd); len(left) != 0 {
			t.Errorf("pier wrote into the working directory, not the flake's: %v", left)
		}
	})

	first := run("apply", "--flake", ref)
	if d := cmp.Diff(map[string]float64{"created": 4, "updated": 0, "destroyed": 0}, first.summary(t)); d != "" {
		t.Errorf("first apply (-want +got):\n%s", d)
	}
	reqs := requests(t, work)
	slices.Sort(reqs)
	if d := cmp.Diff([]string{"create app.conf", "create extra1.txt", "create extra2.txt", "create main-db"}, reqs); d != "" {
		t.Errorf("first apply requests (-want +got):\n%s", d)
	}
	if got, err := os.ReadFile(filepath.Join(work, "app.conf")); err != nil || string(got) != "database = main-db\n" {
		t.Errorf("app.conf = %q, %v", got, err)
	}
	if len(first.ofType("evaluation")) < 2 {
		t.Errorf("first apply: want an evaluation round after db, got %v", first.ofType("evaluation"))
	}

	again := run("apply", "--flake", ref)
	if d := cmp.Diff(map[string]float64{"created": 0, "updated": 0, "destroyed": 0}, again.summary(t)); d != "" {
		t.Errorf("re-apply (-want +got):\n%s", d)
	}
	if reqs := requests(t, work); reqs != nil {
		t.Errorf("re-apply sent requests %q, want none", reqs)
	}
	if n := len(again.ofType("evaluation")); n > 2 {
		t.Errorf("re-apply evaluated %d rounds, want at most 2", n)
	}
	for _, p := range again.ofType("providers") {
		started, _ := p["started"].(map[string]any)
		for name := range started {
			if name != "builtin-local" {
				t.Errorf("re-apply started provider %s; only the state handler should run", name)
			}
		}
	}

	writeFile := func(name, from, to string) {
		t.Helper()
		path := filepath.Join(flake, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte(from), []byte(to)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	writeFile("flake.nix", `"main-db"`, `"new-db"`)
	update := run("apply", "--flake", ref)
	if d := cmp.Diff(map[string]float64{"created": 0, "updated": 2, "destroyed": 0}, update.summary(t)); d != "" {
		t.Errorf("update (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"update new-db", "update app.conf"}, requests(t, work)); d != "" {
		t.Errorf("update requests (-want +got):\n%s", d)
	}
	if got, err := os.ReadFile(filepath.Join(work, "app.conf")); err != nil || string(got) != "database = new-db\n" {
		t.Errorf("app.conf after update = %q, %v", got, err)
	}

	writeFile("extras.json", `"extra1", "extra2"`, `"extra1"`)
	removal := run("apply", "--yes", "--flake", ref)
	if d := cmp.Diff(map[string]float64{"created": 0, "updated": 0, "destroyed": 1}, removal.summary(t)); d != "" {
		t.Errorf("removal (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"destroy extra2.txt"}, requests(t, work)); d != "" {
		t.Errorf("removal requests (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(work, "extra2.txt")); !os.IsNotExist(err) {
		t.Errorf("extra2.txt still exists after its member was removed: %v", err)
	}
}

// TestApplyFlakeShapes applies flakes whose resources appear only through
// nix: a provider built by a derivation, and members that exist only once
// an output is known.
func TestApplyFlakeShapes(t *testing.T) {
	t.Parallel()
	needNix(t)
	cases := map[string]struct {
		flake       string
		wantCreated float64
		wantRounds  int
	}{
		"provider built by a derivation":  {flake: "drvprovider", wantCreated: 1, wantRounds: 1},
		"member set depends on an output": {flake: "structural", wantCreated: 3, wantRounds: 2},
		"15 independent and a chain of 5": {flake: "chain20", wantCreated: 20, wantRounds: 5},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run := runPier(t, t.TempDir(), "apply", "--flake", "path:"+copyFlake(t, tc.flake, nil))
			if got := run.summary(t)["created"]; got != tc.wantCreated {
				t.Errorf("created %v, want %v", got, tc.wantCreated)
			}
			if got := len(run.ofType("evaluation")); got != tc.wantRounds {
				t.Errorf("%d evaluation rounds, want %d: %v", got, tc.wantRounds, run.ofType("evaluation"))
			}
		})
	}
}
