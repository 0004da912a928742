package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

func TestPrivateTempDir(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		mode os.FileMode
		file bool
		want string // in the error; "" for none
	}{
		"private":        {mode: 0o700},
		"group-readable": {mode: 0o750, want: "is not private to uid"},
		"world-writable": {mode: 0o777, want: "is not private to uid"},
		"a file":         {mode: 0o600, file: true, want: "is not a directory"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "tmp")
			var err error
			if tc.file {
				err = os.WriteFile(dir, nil, tc.mode)
			} else if err = os.Mkdir(dir, 0o700); err == nil {
				err = os.Chmod(dir, tc.mode)
			}
			if err != nil {
				t.Fatal(err)
			}
			err = privateTempDir(dir)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestHelperRefusesSharedTMPDIR runs the built helper as a person might,
// with TMPDIR a directory others can write. Its success is tested through
// host/webview/internal/layout, which starts it as pier does.
func TestHelperRefusesSharedTMPDIR(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(filepath.Dir(testbin.Pier(t)), "pier-layout")
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TMPDIR="+shared)
	cmd.Stdin = strings.NewReader("digraph { a }")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pier-layout: TMPDIR "+shared) || !strings.Contains(string(out), "is not private") {
		t.Errorf("pier-layout with a shared TMPDIR: %v\n%s", err, out)
	}
}

// TestPierLeavesGraphvizToTheHelper: the point of this helper is that
// pier's own binary, run as the command and as every adapter and bridge,
// does not link go-graphviz, whose package init compiles WebAssembly.
func TestPierLeavesGraphvizToTheHelper(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "github.com/pierhq/pier/cmd/pier")
	cmd.Dir = testbin.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/goccy/go-graphviz") || strings.HasPrefix(dep, "github.com/tetratelabs/wazero") {
			t.Errorf("cmd/pier depends on %s: Graphviz belongs in cmd/pier-layout, or every pier process pays its init", dep)
		}
	}
}
