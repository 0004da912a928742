// Package providers holds the example providers, one directory each; this
// test runs every one through `pier provider check`, the same conformance
// check provider authors run.
package providers

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// example describes how to check one example provider.
type example struct {
	needs []string // interpreters that must be on PATH
	exe   func(t *testing.T) string
	args  []string // pier provider check flags after --provider-exe
	want  []string // the checks that must run (and pass), in order
}

func script(path string) func(t *testing.T) string {
	return func(t *testing.T) string {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
}

// buildGoDir builds the Go example into the test's temporary directory;
// the build cache makes this cheap after the first time.
func buildGoDir(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "go-dir")
	cmd := exec.Command("go", "build", "-o", out, "./examples/providers/go-dir")
	cmd.Dir = testbin.ModuleRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build go-dir: %v\n%s", err, b)
	}
	return out
}

var examples = map[string]example{
	"python-kv": {
		needs: []string{"python3"},
		exe:   script("python-kv/provider.py"),
		args: []string{"--type", "kv", "--stateful", "--requires-state", "--operations", "destroy",
			"--inputs-json", `{"dir":"kv","key":"hello","value":"world"}`,
			"--update-inputs-json", `{"dir":"kv","key":"hello","value":"there"}`},
		want: []string{"create", "update", "destroy", "several requests on one process", "error on unknown type",
			"error on unknown input field", "refuses create without state", "stdout carries only JSON lines",
			"clean exit when stdin closes"},
	},
	"sh-file": {
		needs: []string{"jq"},
		exe:   script("sh-file/provider.sh"),
		args: []string{"--type", "file",
			"--inputs-json", `{"path":"hello.txt","content":"hello\n"}`,
			"--update-inputs-json", `{"path":"hello.txt","content":"bye\n"}`},
		want: []string{"create", "update", "several requests on one process", "error on unknown type",
			"error on unknown input field", "stdout carries only JSON lines", "clean exit when stdin closes"},
	},
	"node-counter": {
		needs: []string{"node"},
		exe:   script("node-counter/provider.js"),
		args: []string{"--type", "counter", "--stateful", "--requires-state",
			"--inputs-json", `{"name":"visits"}`, "--update-inputs-json", `{"name":"visits","step":2}`},
		want: []string{"create", "update", "several requests on one process", "error on unknown type",
			"error on unknown input field", "refuses create without state", "stdout carries only JSON lines",
			"clean exit when stdin closes"},
	},
	"go-dir": {
		needs: []string{"go"},
		exe:   buildGoDir,
		args: []string{"--type", "dir", "--operations", "destroy",
			"--inputs-json", `{"path":"out","mode":"0700"}`, "--update-inputs-json", `{"path":"out","mode":"0750"}`},
		want: []string{"create", "update", "destroy", "several requests on one process", "error on unknown type",
			"error on unknown input field", "stdout carries only JSON lines", "clean exit when stdin closes"},
	},
}

// checkOutput is the part of `pier provider check --json` this test reads.
type checkOutput struct {
	MessageType string `json:"message_type"`
	Results     []struct {
		Name   string `json:"name"`
		Passed bool   `json:"passed"`
		Reason string `json:"reason"`
	} `json:"results"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

func TestExamplesPassProviderCheck(t *testing.T) {
	t.Parallel()
	pier := testbin.Pier(t)
	for name, ex := range examples {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, bin := range ex.needs {
				testneed.Tool(t, bin)
			}
			args := append([]string{"provider", "check", "--json", "--provider-exe", ex.exe(t)}, ex.args...)
			cmd := exec.Command(pier, args...)
			cmd.Dir = t.TempDir() // the examples write relative to their working directory
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			runErr := cmd.Run()
			var out checkOutput
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("pier provider check --json printed %q (%v); stderr:\n%s", stdout.String(), err, stderr.String())
			}
			var got []string
			for _, r := range out.Results {
				got = append(got, r.Name)
				if !r.Passed {
					t.Errorf("✗ %s: %s", r.Name, r.Reason)
				}
			}
			if diff := cmp.Diff(ex.want, got); diff != "" {
				t.Errorf("checks run (-want +got):\n%s", diff)
			}
			if runErr != nil || out.Failed != 0 || out.Passed != len(ex.want) {
				t.Errorf("pier provider check: %v, %d passed, %d failed; stderr:\n%s", runErr, out.Passed, out.Failed, stderr.String())
			}
		})
	}
}
