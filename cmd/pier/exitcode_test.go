package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pierhq/pier/providersdk"
)

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		args    []string
		code    int
		wantErr string
	}{
		"no arguments shows help":  {nil, exitOK, ""},
		"help":                     {[]string{"--help"}, exitOK, ""},
		"unknown command":          {[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		"misspelt command":         {[]string{"stat"}, exitUsage, `did you mean "state"?`},
		"unknown subcommand":       {[]string{"state", "frobnicate"}, exitUsage, `pier state: unknown command "frobnicate"`},
		"help for unknown command": {[]string{"help", "frobnicate"}, exitUsage, `no help for "frobnicate"`},
		"unknown flag":             {[]string{"plan", "--bogus"}, exitUsage, "flag provided but not defined: -bogus; see pier plan --help"},
		"unknown global flag":      {[]string{"--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		"unknown flag of a subcmd": {[]string{"statefile", "show", "--bogus"}, exitUsage, "see pier statefile show --help"},
		"bad flag value":           {[]string{"provider", "create", "--timeout", "soon"}, exitUsage, "invalid value"},
		"extra argument":           {[]string{"statefile", "log", "a", "b"}, exitUsage, "takes one state file"},
		"var without equals":       {[]string{"plan", "--dir", "nonexistent", "--var", "x"}, exitUsage, `--var "x": want NAME=VALUE`},
		"ordinary failure":         {[]string{"statefile", "show", "nonexistent.json"}, exitError, "nonexistent.json"},
		"group without subcommand": {[]string{"state"}, exitOK, ""},
		"subcommand help":          {[]string{"help", "plan"}, exitOK, ""},
		"version":                  {[]string{"--version"}, exitOK, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			err := run(t.Context(), newGlobalOptions(os.Stdin, &out, &errb), append([]string{"pier"}, tc.args...))
			if got := exitCode(err); got != tc.code {
				t.Errorf("pier %v: exit %d (err %v), want %d", tc.args, got, err, tc.code)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("pier %v: error %v, want it to contain %q", tc.args, err, tc.wantErr)
			}
			if tc.code == exitUsage && strings.Contains(out.String(), "USAGE:") {
				t.Errorf("pier %v: a usage error printed the whole help:\n%s", tc.args, out.String())
			}
		})
	}
}

func TestExitCodeOfErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		code int
	}{
		"nil":                   {nil, exitOK},
		"declined confirmation": {declinedError{"destroy"}, exitError},
		"stale plan":            {&staleError{"stale"}, exitStalePlan},
		"usage":                 {usagef("bad"), exitUsage},
		"outcome unknown":       {fmt.Errorf("serve: %w", &providersdk.OutcomeUnknownError{Seq: 1, Op: "create", Type: "t", Err: fmt.Errorf("%w: %w", providersdk.ErrOutcomeUnknown, context.Canceled)}), exitOutcomeUnknown},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := exitCode(tc.err); got != tc.code {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
			}
		})
	}
}

// TestHelpListsExitCodes keeps pier --help and the table in exitcode.go
// the same list.
func TestHelpListsExitCodes(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(t.Context(), newGlobalOptions(os.Stdin, &out, &out), []string{"pier", "--help"}); err != nil {
		t.Fatal(err)
	}
	for _, e := range exitCodes {
		if !strings.Contains(out.String(), e.meaning) {
			t.Errorf("pier --help does not list exit code %d (%s):\n%s", e.code, e.meaning, out.String())
		}
	}
}
