package testneed

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedToolsChecksCapabilities runs .ci/need-tools --dry-run, the check
// make test starts with, against lists like .ci/tools.txt. A program that
// is on PATH must not stand in for a module the tests import: with tmux
// there and grpc not importable, the check must name python3-grpcio and the
// script that installs it.
func TestNeedToolsChecksCapabilities(t *testing.T) {
	t.Parallel()
	bash := Tool(t, "bash")
	tests := map[string]struct {
		grpc, server bool // importable, present
		wantMissing  []string
		wantNot      []string
	}{
		"tmux present, grpc absent": {
			grpc: false, server: true,
			wantMissing: []string{"grpc (python)", "python3-grpcio", ".ci/setup.d/70-rpcapi.sh"},
			wantNot:     []string{"tmux (program)", "a-server"},
		},
		"server binary absent": {
			grpc: true, server: false,
			wantMissing: []string{"(file)", "a-server", ".ci/setup.d/60-postgres.sh"},
			wantNot:     []string{"python3-grpcio", "tmux (program)"},
		},
		"everything there": {grpc: true, server: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// tmux is a stub first on PATH: the check must only look for it.
			bin := filepath.Join(dir, "bin")
			writeFile(t, filepath.Join(bin, "tmux"), "#!/bin/sh\nexit 0\n", 0o755)
			// A grpc package first on PYTHONPATH decides whether
			// "import grpc" works, whatever Debian has installed.
			py := filepath.Join(dir, "py")
			body := "raise ImportError('grpc hidden by the test')\n"
			if tc.grpc {
				body = ""
			}
			writeFile(t, filepath.Join(py, "grpc", "__init__.py"), body, 0o644)
			if tc.server {
				writeFile(t, filepath.Join(dir, "lib", "15", "server"), "", 0o755)
			}
			listPath := filepath.Join(dir, "tools.txt")
			writeFile(t, listPath, strings.Join([]string{
				"# kind name package script",
				"program tmux tmux .ci/setup.d/70-rpcapi.sh",
				"python grpc python3-grpcio .ci/setup.d/70-rpcapi.sh",
				"file " + filepath.Join(dir, "lib", "*", "server") + " a-server .ci/setup.d/60-postgres.sh",
			}, "\n")+"\n", 0o644)

			cmd := exec.Command(bash, filepath.Join(moduleRoot(), ".ci", "need-tools"), "--dry-run")
			cmd.Env = append(os.Environ(),
				"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"PYTHONPATH="+py,
				"PIER_TOOLS_LIST="+listPath)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if got, want := err != nil, len(tc.wantMissing) > 0; got != want {
				t.Fatalf("need-tools failed: %v, want failure %v\n%s", err, want, out.String())
			}
			for _, s := range tc.wantMissing {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output does not name %q:\n%s", s, out.String())
				}
			}
			for _, s := range tc.wantNot {
				if strings.Contains(out.String(), s) {
					t.Errorf("output names %q, which is there:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestToolsListKinds keeps every line of .ci/tools.txt one need-tools
// can check, and the gRPC client the rpcapi tests import in it.
func TestToolsListKinds(t *testing.T) {
	t.Parallel()
	tools, err := readTools()
	if err != nil {
		t.Fatal(err)
	}
	for name, kind := range map[string]string{"grpc": "python", "grpc_tools.protoc": "python", "tmux": "program", "JSON::PP": "perl"} {
		if got := tools[name].kind; got != kind {
			t.Errorf(".ci/tools.txt: %s is %q, want %q", name, got, kind)
		}
	}
}

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}
