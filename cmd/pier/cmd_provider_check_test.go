package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/schema"
)

// TestProviderCheckPerl runs the check on the provider written from
// docs/providers.md alone (testdata/providers/perl): the guide is enough
// to pass it.
func TestProviderCheckPerl(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "perl")
	exe := filepath.Join(testbin.ModuleRoot(), "testdata", "providers", "perl", "provider.pl")
	tests := map[string]struct {
		opts func(dir string) providerCheckOptions
		want int // checks run
	}{
		"note, stateless, with destroy": {func(dir string) providerCheckOptions {
			return providerCheckOptions{
				Type: "note", providerProcessOptions: providerProcessOptions{Operations: []schema.Operation{schema.OperationDestroy}},
				InputsJSON:       `{"path":"` + filepath.Join(dir, "note.txt") + `","text":"hi\n"}`,
				UpdateInputsJSON: `{"path":"` + filepath.Join(dir, "note.txt") + `","text":"bye\n"}`,
			}
		}, 8},
		"token, requires state": {func(string) providerCheckOptions {
			return providerCheckOptions{
				Type: "token", Stateful: true, RequiresState: true,
				InputsJSON: `{"name":"t"}`, UpdateInputsJSON: `{"name":"u"}`,
			}
		}, 8},
		"ledger, state provider": {func(dir string) providerCheckOptions {
			return providerCheckOptions{
				Type: "ledger", Stateful: true, StateProvider: true,
				InputsJSON: `{"file":"` + filepath.Join(dir, "ledger.json") + `"}`,
			}
		}, 9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := tc.opts(t.TempDir())
			o.Executable = exe
			var stdout, stderr bytes.Buffer
			if err := runProviderCheck(t.Context(), o, &stdout, &stderr); err != nil {
				t.Fatalf("runProviderCheck: %v\n%s", err, stdout.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			for _, l := range lines[:len(lines)-1] {
				if !strings.HasPrefix(l, "✓ ") {
					t.Errorf("check line %q does not pass", l)
				}
			}
			want := fmt.Sprintf("%d passed, 0 failed", tc.want)
			if diff := cmp.Diff(want, lines[len(lines)-1]); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProviderCheckReportsFailures(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "python3")
	exe := filepath.Join(testbin.ModuleRoot(), "host", "conformance", "testdata", "faulty.py")
	tests := map[string]struct {
		json bool
		want string
	}{
		"text": {false, "✗ error on unknown input field: provider accepted an unknown input field"},
		"json": {true, `"message_type":"provider_check"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			err := runProviderCheck(t.Context(), providerCheckOptions{
				providerProcessOptions: providerProcessOptions{Executable: exe, Args: []string{"ignore-unknown-field"}},
				Type:                   "thing",
				InputsJSON:             `{"name":"a"}`, Stateful: true, JSON: tc.json,
			}, &stdout, &stderr)
			var failed checkFailedError
			var ec exitCoder
			if !errors.As(err, &failed) || failed.failed != 1 || !errors.As(err, &ec) || ec.ExitCode() != exitError {
				t.Errorf("runProviderCheck error = %v, want 1 failed check and exit code %d", err, exitError)
			}
			if !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, stdout.String())
			}
			if tc.json {
				var report providerCheckReport
				if err := json.Unmarshal(stdout.Bytes(), &report); err != nil || report.Failed != 1 || report.Passed != 5 {
					t.Errorf("--json output %s: %v, %d passed, %d failed, want 5 and 1", stdout.String(), err, report.Passed, report.Failed)
				}
			}
		})
	}
}

func TestProviderCheckUsage(t *testing.T) {
	t.Parallel()
	trueProvider := providerProcessOptions{Executable: "/bin/true"}
	tests := map[string]providerCheckOptions{
		"inputs not JSON":           {providerProcessOptions: trueProvider, Type: "x", InputsJSON: "{"},
		"inputs not an object":      {providerProcessOptions: trueProvider, Type: "x", InputsJSON: "[1]"},
		"update inputs is null":     {providerProcessOptions: trueProvider, Type: "x", InputsJSON: "{}", UpdateInputsJSON: "null"},
		"requires state, stateless": {providerProcessOptions: trueProvider, Type: "x", InputsJSON: "{}", RequiresState: true},
	}
	for name, o := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := runProviderCheck(t.Context(), o, &bytes.Buffer{}, &bytes.Buffer{})
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("runProviderCheck error = %v, want a usage error", err)
			}
		})
	}
}

// TestProviderCheckLocalAdapter holds pier's own adapter to the same rules
// as third-party providers.
func TestProviderCheckLocalAdapter(t *testing.T) {
	t.Parallel()
	pier := testbin.Pier(t)
	tests := map[string]struct {
		opts providerCheckOptions
		want int
	}{
		"state_file": {providerCheckOptions{Type: "state_file", Stateful: true, StateProvider: true,
			InputsJSON: `{"name":"STATE"}`}, 10},
		"memo": {providerCheckOptions{Type: "memo", Stateful: true, RequiresState: true,
			InputsJSON: `{"initialize_with":"x"}`, UpdateInputsJSON: `{"initialize_with":"y"}`}, 9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := tc.opts
			o.Executable, o.Args = pier, []string{"adapter", "local"}
			o.Operations = []schema.Operation{schema.OperationDestroy}
			o.InputsJSON = strings.ReplaceAll(o.InputsJSON, "STATE", filepath.Join(t.TempDir(), "state.json"))
			var stdout bytes.Buffer
			if err := runProviderCheck(t.Context(), o, &stdout, &bytes.Buffer{}); err != nil {
				t.Fatalf("runProviderCheck: %v\n%s", err, stdout.String())
			}
			if want := fmt.Sprintf("%d passed, 0 failed\n", tc.want); !strings.HasSuffix(stdout.String(), want) {
				t.Errorf("output does not end in %q:\n%s", want, stdout.String())
			}
		})
	}
}
