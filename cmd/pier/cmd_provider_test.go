package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// providerCLI runs the real pier binary in dir and returns stdout, stderr
// and the exit code.
func providerCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(testbin.Pier(t), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run pier %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// testProviderPath returns a test provider under the repository's
// testdata/providers, skipping when a tool it needs is missing.
func testProviderPath(t *testing.T, rel string, tools ...string) string {
	t.Helper()
	for _, tool := range tools {
		testneed.Tool(t, tool)
	}
	return filepath.Join(testbin.ModuleRoot(), "testdata", "providers", rel)
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, s)
	}
	return v
}

// TestProviderCommands drives the Python and sh test providers, and the
// misbehaving corpus, through `pier provider …` and checks stdout, the
// exit code and the error on stderr.
func TestProviderCommands(t *testing.T) {
	t.Parallel()
	py := testProviderPath(t, "python/provider.py", "python3")
	sh := testProviderPath(t, "sh/provider.sh", "sh", "jq")
	faulty := func(name string) string { return testProviderPath(t, "faulty/"+name, "sh") }
	cases := map[string]struct {
		args       []string
		wantCode   int
		wantStdout any      // decoded JSON; nil: stdout must be empty
		wantStderr []string // substrings of stderr
	}{
		"python create with input-str": {
			args:       []string{"create", "--provider-exe", py, "--type", "greeting", "--input-str", "name=a,b=c"},
			wantStdout: "message",
		},
		"python create with inputs-json and input-json": {
			args:       []string{"create", "--provider-exe", py, "--type", "greeting", "--inputs-json", `{"name":"x"}`, "--input-json", "delay=0"},
			wantStdout: "message",
		},
		"python unknown input": {
			args:     []string{"create", "--provider-exe", py, "--type", "greeting", "--input-str", "name=x", "--input-str", "colour=red", "--resource", "web.greet"},
			wantCode: 1, wantStderr: []string{`provider "provider.py"`, "createResourceRequest for web.greet", "provider reported an error: greeting: unknown input colour"},
		},
		"python unknown type": {
			args:     []string{"create", "--provider-exe", py, "--type", "teapot"},
			wantCode: 1, wantStderr: []string{"unknown resource type 'teapot'"},
		},
		"python state read": {
			args:       []string{"state-read", "--provider-exe", py, "--type", "state", "--inputs-json", `{"path":"missing.json"}`},
			wantStdout: map[string]any{"_type": "nixopsState", "resources": map[string]any{}, "deployments": map[string]any{}},
		},
		"sh echo": {
			args:       []string{"create", "--provider-exe", sh, "--type", "echo", "--input-str", "text=hi there"},
			wantStdout: map[string]any{"echo": "hi there"},
		},
		"sh unknown input": {
			args:     []string{"create", "--provider-exe", sh, "--type", "echo", "--input-str", "text=x", "--input-json", "loud=true"},
			wantCode: 1, wantStderr: []string{"provider reported an error: echo: unknown input loud"},
		},
		"sh stateless file refused": {
			args:     []string{"create", "--provider-exe", sh, "--type", "file", "--inputs-json", `{"path":"f","content":"x"}`},
			wantCode: 1, wantStderr: []string{"file resources must be stateful"},
		},
		"destroy not declared": {
			args:     []string{"destroy", "--provider-exe", sh, "--type", "file", "--inputs-json", `{"path":"f","content":"x"}`},
			wantCode: 1, wantStderr: []string{"optional operation not declared by the provider", "destroyResourceRequest"},
		},
		"faulty hang with short timeout": {
			args:     []string{"create", "--provider-exe", faulty("hang.sh"), "--type", "thing", "--timeout", "300ms"},
			wantCode: 1, wantStderr: []string{"no response within 300ms", "faulty: thinking very hard", "hint:"},
		},
		"faulty wrong kind": {
			args:     []string{"create", "--provider-exe", faulty("wrong-kind.sh"), "--type", "thing"},
			wantCode: 1, wantStderr: []string{"response is updateResourceResponse, want createResourceResponse or errorResponse"},
		},
		"faulty exits non-zero": {
			args:     []string{"create", "--provider-exe", faulty("exit-nonzero.sh"), "--type", "thing"},
			wantCode: 1, wantStderr: []string{"exited before responding (exit status 3)", "faulty: out of cheese"},
		},
		"usage: no provider":       {args: []string{"create", "--type", "x"}, wantCode: exitUsage, wantStderr: []string{"--provider-exe PATH or --builtin local"}},
		"usage: both providers":    {args: []string{"create", "--type", "x", "--builtin", "local", "--provider-exe", py}, wantCode: exitUsage, wantStderr: []string{"not both"}},
		"usage: unknown builtin":   {args: []string{"create", "--type", "x", "--builtin", "cloud"}, wantCode: exitUsage, wantStderr: []string{`--builtin "cloud"`}},
		"usage: bad input-str":     {args: []string{"create", "--provider-exe", py, "--type", "x", "--input-str", "novalue"}, wantCode: exitUsage, wantStderr: []string{"want KEY=VALUE"}},
		"usage: duplicate input":   {args: []string{"create", "--provider-exe", py, "--type", "x", "--input-str", "a=1", "--input-json", "a=1"}, wantCode: exitUsage, wantStderr: []string{`input "a" is already set`}},
		"usage: bad inputs-json":   {args: []string{"create", "--provider-exe", py, "--type", "x", "--inputs-json", "[1]"}, wantCode: exitUsage, wantStderr: []string{"--inputs-json: want a JSON object"}},
		"usage: unknown operation": {args: []string{"create", "--provider-exe", py, "--type", "x", "--operations", "fly"}, wantCode: exitUsage, wantStderr: []string{"unknown optional operation"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := providerCLI(t, t.TempDir(), append([]string{"provider"}, tc.args...)...)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d\nstderr:\n%s", code, tc.wantCode, stderr)
			}
			switch want := tc.wantStdout.(type) {
			case nil:
				if stdout != "" {
					t.Errorf("stdout = %q, want nothing", stdout)
				}
			case string: // an output key that must be present
				got, _ := decodeJSON(t, stdout).(map[string]any)
				if _, ok := got[want]; !ok {
					t.Errorf("stdout %s lacks output %q", stdout, want)
				}
			default:
				if diff := cmp.Diff(want, decodeJSON(t, stdout)); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			}
			for _, want := range tc.wantStderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// TestProviderCommandsLifecycle runs create, update, destroy and the state
// commands in sequence against files in one directory.
func TestProviderCommandsLifecycle(t *testing.T) {
	t.Parallel()
	py := testProviderPath(t, "python/provider.py", "python3")
	sh := testProviderPath(t, "sh/provider.sh", "sh", "jq")
	dir := t.TempDir()
	must := func(args ...string) any {
		t.Helper()
		stdout, stderr, code := providerCLI(t, dir, append([]string{"provider"}, args...)...)
		if code != 0 {
			t.Fatalf("pier provider %v: exit %d\n%s", args, code, stderr)
		}
		return decodeJSON(t, stdout)
	}

	// sh file: create, update, destroy.
	path := filepath.Join(dir, "f.txt")
	in1 := `{"path":"` + path + `","content":"one"}`
	in2 := `{"path":"` + path + `","content":"three"}`
	out := must("create", "--provider-exe", sh, "--type", "file", "--stateful", "--inputs-json", in1)
	if diff := cmp.Diff(map[string]any{"path": path, "size": float64(3)}, out); diff != "" {
		t.Errorf("create outputs (-want +got):\n%s", diff)
	}
	outJSON, _ := json.Marshal(out)
	out = must("update", "--provider-exe", sh, "--type", "file", "--inputs-json", in2, "--previous-inputs-json", in1, "--previous-outputs-json", string(outJSON))
	if got, _ := os.ReadFile(path); string(got) != "three" || out.(map[string]any)["size"] != float64(5) {
		t.Errorf("after update: file %q, outputs %v", got, out)
	}
	if diff := cmp.Diff(map[string]any{}, must("destroy", "--provider-exe", sh, "--operations", "destroy", "--type", "file", "--inputs-json", in2)); diff != "" {
		t.Errorf("destroy output (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file after destroy: %v", err)
	}

	// python state provider: record an event, read it back.
	stateIn := `{"path":"state.json"}`
	must("state-event", "--provider-exe", py, "--type", "state", "--inputs-json", stateIn, "--event", "create",
		"--patch-json", `[{"op":"add","path":"/resources/web","value":{"type":"greeting","inputProperties":{"name":"x"}}}]`)
	state := must("state-read", "--provider-exe", py, "--type", "state", "--inputs-json", stateIn)
	want := map[string]any{"web": map[string]any{"type": "greeting", "inputProperties": map[string]any{"name": "x"}}}
	if diff := cmp.Diff(want, state.(map[string]any)["resources"]); diff != "" {
		t.Errorf("state resources (-want +got):\n%s", diff)
	}
}

// TestProviderCreateBuiltinLocal runs pier's own local adapter through the
// --builtin shorthand.
func TestProviderCreateBuiltinLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := providerCLI(t, dir, "provider", "create", "--builtin", "local", "--type", "file",
		"--input-str", "name=hello.txt", "--input-str", "contents=hello, world\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if diff := cmp.Diff(map[string]any{}, decodeJSON(t, stdout)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || string(got) != "hello, world\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	// --builtin local declares destroy by itself.
	_, stderr, code = providerCLI(t, dir, "provider", "destroy", "--builtin", "local", "--type", "file",
		"--inputs-json", `{"name":"hello.txt","contents":"hello, world\n"}`)
	if code != 0 {
		t.Fatalf("destroy: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hello.txt after destroy: %v", err)
	}
}
