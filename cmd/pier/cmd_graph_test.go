package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/internal/testbin"
)

// graphFixture and graphGolden are shared with host/hclsource's
// TestGraphDOT, which rewrites the golden file with -update.
var (
	graphFixture = filepath.Join(testbin.ModuleRoot(), "host", "hclsource", "testdata", "graph")
	graphGolden  = filepath.Join(testbin.ModuleRoot(), "host", "hclsource", "testdata", "graph.dot")
)

func TestRunGraph(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(graphGolden)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := runGraph(t.Context(), graphOptions{Dir: graphFixture}, &stdout, &stderr); err != nil {
		t.Fatalf("runGraph: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
}

// TestRunGraphErrors runs pier graph as main does, printing the error
// too: each problem is printed once, configuration errors with their
// source line (pier graph printed them twice).
func TestRunGraphErrors(t *testing.T) {
	t.Parallel()
	bad := t.TempDir()
	src := "resource \"a\" {\n  provider = provider.nope\n  type     = \"t\"\n}\n"
	if err := os.WriteFile(filepath.Join(bad, "main.pier.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args       []string
		wantStderr []string
		wantOnce   string
		wantCode   int
	}{
		"configuration error shows the source": {
			args:     []string{"--dir", bad},
			wantCode: exitError,
			wantStderr: []string{
				"Error: Unknown provider",
				"main.pier.hcl:2:",
				"provider = provider.nope",
				`no provider "nope" is declared.`,
			},
			wantOnce: "Error: Unknown provider",
		},
		"bad --var": {
			args:       []string{"--dir", graphFixture, "--var", "novalue"},
			wantStderr: []string{`--var "novalue": want NAME=VALUE`},
			wantCode:   exitUsage,
		},
		"missing directory": {
			args:       []string{"--dir", filepath.Join(bad, "nope")},
			wantStderr: []string{"pier: graph: load deployment: open " + filepath.Join(bad, "nope") + ": no such file or directory"},
			wantOnce:   "no such file",
			wantCode:   exitError,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), newGlobalOptions(os.Stdin, &stdout, &stderr), append([]string{"pier", "graph"}, tc.args...))
			if got := exitCode(err); got != tc.wantCode {
				t.Errorf("exit %d (%v), want %d", got, err, tc.wantCode)
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if n := strings.Count(stderr.String(), tc.wantOnce); tc.wantOnce != "" && n != 1 {
				t.Errorf("stderr has %q %d times, want once:\n%s", tc.wantOnce, n, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
		})
	}
	var de *hclsource.DiagnosticsError
	err := runGraph(t.Context(), graphOptions{Dir: bad}, &bytes.Buffer{}, &bytes.Buffer{})
	if !errors.As(err, &de) {
		t.Errorf("configuration error %v does not unwrap to *hclsource.DiagnosticsError", err)
	}
}

// TestGraphBinary runs the real pier binary, as a user would.
func TestGraphBinary(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(graphGolden)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), testbin.Pier(t), "graph", "--dir", ".")
	cmd.Dir = graphFixture
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pier graph: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff(string(want), string(out)); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
}
