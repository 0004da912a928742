package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/statefile"
)

// nixops4StyleFile copies statefile's NixOps4-style fixture (pretty-printed,
// every index 0) into a temporary directory.
func nixops4StyleFile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../statefile/testdata/nixops4-style.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStatefileCommands(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		run        func(path string, stdout, stderr *bytes.Buffer) error
		wantStdout string
		wantStderr string
	}{
		"show": {
			run: func(path string, stdout, stderr *bytes.Buffer) error {
				return runStatefileShow(t.Context(), statefileOptions{Path: path}, stdout, stderr)
			},
			wantStdout: `{
  "_type": "nixopsState",
  "deployments": {
    "web": {
      "deployments": {},
      "resources": {
        "a/b": {
          "inputProperties": {
            "initialize_with": "x"
          },
          "outputProperties": {
            "value": "x"
          },
          "type": "memo"
        }
      }
    }
  },
  "resources": {
    "hello": {
      "inputProperties": {
        "contents": "hello",
        "name": "hello.txt"
      },
      "outputProperties": {
        "mtime": 1744717687.000000001,
        "size": 5
      },
      "type": "file"
    }
  }
}
`,
			wantStderr: `warning: PATH: event 1 (line 18, byte 259) and 2 later events: index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index
`,
		},
		"log": {
			run: func(path string, stdout, stderr *bytes.Buffer) error {
				return runStatefileLog(t.Context(), statefileOptions{Path: path}, stdout, stderr)
			},
			wantStdout: `INDEX  TIME                                 EVENT   PATHS
0      2025-04-15T11:48:06.434450914+00:00  -       ""
0      2025-04-15T11:48:07.000000001+00:00  create  /resources/hello
0      2025-04-15T11:48:08.000000002+00:00  create  /deployments/web /deployments/web/resources/a~1b
0      2025-04-15T11:48:09.000000003+00:00  update  /resources/hello/inputProperties/contents /resources/hello/outputProperties/size
`,
			wantStderr: `warning: PATH: event 1 (line 18, byte 259) and 2 later events: index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index
`,
		},
		"log --json": {
			run: func(path string, stdout, stderr *bytes.Buffer) error {
				return runStatefileLog(t.Context(), statefileOptions{Path: path, JSON: true}, stdout, stderr)
			},
			wantStdout: `{"message_type":"event","ordinal":0,"line":1,"offset":0,"index":0,"meta":{"time":"2025-04-15T11:48:06.434450914+00:00"},"paths":[""]}
{"message_type":"event","ordinal":1,"line":18,"offset":259,"index":0,"meta":{"event":"create","host":"builder","nixopsVersion":"4.0.0","time":"2025-04-15T11:48:07.000000001+00:00"},"paths":["/resources/hello"]}
{"message_type":"event","ordinal":2,"line":38,"offset":694,"index":0,"meta":{"event":"create","nixopsVersion":"4.0.0","time":"2025-04-15T11:48:08.000000002+00:00"},"paths":["/deployments/web","/deployments/web/resources/a~1b"]}
{"message_type":"event","ordinal":3,"line":58,"offset":1168,"index":0,"meta":{"event":"update","nixopsVersion":"4.0.0","time":"2025-04-15T11:48:09.000000003+00:00"},"paths":["/resources/hello/inputProperties/contents","/resources/hello/outputProperties/size"]}
`,
			wantStderr: `warning: PATH: event 1 (line 18, byte 259) and 2 later events: index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index
`,
		},
		"verify": {
			run: func(path string, stdout, stderr *bytes.Buffer) error {
				return runStatefileVerify(t.Context(), statefileOptions{Path: path}, stdout, stderr)
			},
			wantStdout: `warning: event 1 (line 18, byte 259) and 2 later events: index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index
PATH: ok, 4 events, last index 0, 2 resources, 1 warnings
`,
		},
		"verify --json": {
			run: func(path string, stdout, stderr *bytes.Buffer) error {
				return runStatefileVerify(t.Context(), statefileOptions{Path: path, JSON: true}, stdout, stderr)
			},
			wantStdout: `{"message_type":"verify","ok":true,"path":"PATH","events":4,"lastIndex":0,"resources":2,"warnings":[{"ordinal":1,"offset":259,"line":18,"message":"index 0 does not increase: NixOps4's writer numbers every event 0; the events apply in file order, and pier numbers its own after the highest index","count":3}]}
`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := nixops4StyleFile(t)
			var stdout, stderr bytes.Buffer
			if err := tc.run(path, &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantStdout, strings.ReplaceAll(stdout.String(), path, "PATH")); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantStderr, strings.ReplaceAll(stderr.String(), path, "PATH")); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatefileVerifyInvalid(t *testing.T) {
	t.Parallel()
	path := nixops4StyleFile(t)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"index":9,"meta":{},"patch":[{"op":"remove","path":"/resources/nope"}]}`)
	f.Close()
	var stdout bytes.Buffer
	err = runStatefileVerify(t.Context(), statefileOptions{Path: path}, &stdout, &bytes.Buffer{})
	var ee *statefile.EventError
	if !errors.As(err, &ee) || ee.Ordinal != 4 {
		t.Fatalf("error = %v, want an *EventError for event 4", err)
	}
	want := "error: event 4 (line 70, byte 1505): index 9: patch operation 0 (remove \"/resources/nope\"): path does not exist\nPATH: INVALID after 4 events\n"
	if got := strings.ReplaceAll(stdout.String(), path, "PATH"); !strings.HasSuffix(got, want) {
		t.Errorf("stdout ends %q, want %q", got, want)
	}
}

// TestStatefileBinary runs the real pier binary: exit codes of verify, and
// compact refused (exit 4, naming this process) while the lock is held,
// then done once it is free.
func TestStatefileBinary(t *testing.T) {
	t.Parallel()
	pier := testbin.Pier(t)
	path := nixops4StyleFile(t)

	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(pier, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}

	if out, _, code := run("statefile", "verify", path); code != 0 || !strings.Contains(out, "ok, 4 events") {
		t.Errorf("verify: exit %d, %q; want 0 and ok", code, out)
	}

	l, err := statefile.Open(path, statefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run("statefile", "compact", path)
	wantErr := fmt.Sprintf("is locked by process %d since", os.Getpid())
	if code != exitStateLocked || !strings.Contains(stderr, wantErr) {
		t.Errorf("compact while locked: exit %d, stderr %q; want %d and %q", code, stderr, exitStateLocked, wantErr)
	}
	if _, err := l.Append(statefile.Meta{Event: "create"}, schema.Patch{{Op: "add", Path: schema.Pointer("resources", "new/one"), Value: json.RawMessage(`{"type":"t","input_properties":{}}`)}}); err != nil {
		t.Fatal(err)
	}
	l.Close()

	out, stderr, code := run("statefile", "compact", path)
	if code != 0 || !strings.Contains(out, "compacted 5 events into 2") {
		t.Errorf("compact: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, _, code = run("statefile", "verify", "--json", path)
	var r struct {
		OK        bool  `json:"ok"`
		Events    int   `json:"events"`
		LastIndex int64 `json:"lastIndex"`
		Resources int   `json:"resources"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.OK || r.Events != 2 || r.LastIndex != 1 || r.Resources != 3 {
		t.Errorf("verify --json after compact: exit %d, %s (%v)", code, out, err)
	}

	// A torn tail makes verify exit 1.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":2,"meta":{"ti`)
	f.Close()
	if out, _, code := run("statefile", "verify", path); code != 1 || !strings.Contains(out, "torn tail at line 3") {
		t.Errorf("verify of a torn file: exit %d, %q; want 1 and the torn tail", code, out)
	}
	if _, _, code := run("statefile", "show"); code != exitUsage {
		t.Errorf("show without a file: exit %d, want %d", code, exitUsage)
	}
}
