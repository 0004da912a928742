package main

// The scenario harness: every cmd/pier/testdata/scenarios/*.txtar file is
// a testscript (github.com/rogpeppe/go-internal/testscript) run against
// the real pier binary. A scenario is one file: the archive's comment is
// the script, its files the deployment, state logs and golden output.
//
// Commands added to testscript's own (exec, stdout, cmp, env, ...):
//
//	pier ARGS...     run pier; fails unless it exits 0 (or !pier: non-zero)
//	exitcode N       the last pier exited N
//	journal [-sort]  print the journal provider's operations, one a line
//	mode FILE PERM   FILE has permissions PERM (octal, as 0600)
//	need TOOL...     the scenario needs TOOL on PATH (python3, perl, ...),
//	                 or the file TOOL when it holds a slash: skip saying
//	                 so, or fail under make test
//
// and, in scenario_cmds_test.go, state (the replayed state document),
// nixops4 (a state file as NixOps4 reads and writes it), append, mkfifo,
// repeat, sha256 and capture (see there and the README).
//
// $TFPROVIDERS is the directory of the Terraform provider binaries (make
// tfproviders builds them); $TFPLATFORM the platform directory a
// Terraform plugin cache keeps them under (linux_amd64).
//
// Output is normalised before stdout/stderr/cmp see it: the work
// directory reads $WORK, the testdata directory $TESTDATA, clock times
// HH:MM:SS and durations after "after " DURATION; in --json events, times
// read TIME and elapsed_seconds "X". In archive files,
// JOURNAL_PROVIDER stands for testdata/providers/journal.py, absolute, and
// likewise NAME_PROVIDER for each testdata/providers/NAME.py;
// TFPROVIDERS_DIR stands for $TFPROVIDERS
// (golden files may hold $TESTDATA, so that is not expanded in files; the
// script reads it as $TESTDATA).
//
// go test ./cmd/pier -run TestScenarios/NAME -update rewrites the golden
// files that a cmp compares against.

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pierhq/pier/host/tfcache"
	"github.com/pierhq/pier/internal/nixops4state"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

var update = flag.Bool("update", false, "rewrite the golden files of scenarios")

// scenarioToolEnv marks a run of this test binary as a scenario tool
// (see runScenarioTool) rather than as the tests.
const scenarioToolEnv = "PIER_SCENARIO_TOOL"

func TestMain(m *testing.M) {
	if os.Getenv(scenarioToolEnv) == "1" {
		os.Exit(runScenarioTool(os.Args[1:]))
	}
	if os.Getenv(peakRSSEnv) == "1" {
		os.Exit(runPeakRSS(os.Args[1:]))
	}
	// Commands the tests run keep their per-user cache (provider
	// executables' hashes, host/filehash) here, not in the developer's.
	cache, err := os.MkdirTemp("", "pier-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	pier := testbin.Pier(t)
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	providerTokens, err := testProviderTokens(filepath.Join(testdata, "providers"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"pier": func(ts *testscript.TestScript, neg bool, args []string) {
			err := ts.Exec(self, append([]string{"pier"}, args...)...)
			code := 0
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee):
				code = ee.ExitCode()
			case err != nil:
				ts.Fatalf("run pier: %v", err)
			}
			ts.Setenv("PIER_EXIT", strconv.Itoa(code))
			if neg != (code != 0) {
				ts.Fatalf("pier %s: exit %d", strings.Join(args, " "), code)
			}
		},
		"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 || neg {
				ts.Fatalf("usage: exitcode N")
			}
			if got := ts.Getenv("PIER_EXIT"); got != args[0] {
				ts.Fatalf("pier exited %s, want %s", got, args[0])
			}
		},
		"journal": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) > 1 || len(args) == 1 && args[0] != "-sort" || neg {
				ts.Fatalf("usage: journal [-sort]")
			}
			if err := ts.Exec(self, append([]string{"journal"}, args...)...); err != nil {
				ts.Fatalf("journal: %v", err)
			}
		},
		"mode": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 2 || neg {
				ts.Fatalf("usage: mode FILE PERM (octal, e.g. 0600)")
			}
			fi, err := os.Stat(ts.MkAbs(args[0]))
			ts.Check(err)
			if got := fmt.Sprintf("%#o", fi.Mode().Perm()); got != args[1] {
				ts.Fatalf("%s has mode %s, want %s", args[0], got, args[1])
			}
		},
		"need": func(ts *testscript.TestScript, neg bool, args []string) {
			for _, tool := range args {
				if strings.Contains(tool, "/") {
					testneed.File(scriptTB{ts}, tool, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
					continue
				}
				testneed.Tool(scriptTB{ts}, tool)
			}
		},
	}
	maps.Copy(cmds, fileCmds)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/scenarios",
		UpdateScripts:       *update,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Values[scenarioT{}] = env.T()
			env.Setenv(scenarioToolEnv, "1")
			env.Setenv("PIER_SCENARIO_BIN", pier)
			env.Setenv("TESTDATA", testdata)
			env.Setenv("JOURNAL", filepath.Join(env.WorkDir, "journal.jsonl"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv(testneed.StrictEnv, os.Getenv(testneed.StrictEnv))
			tfp := os.Getenv("PIER_TFPROVIDERS")
			if tfp == "" {
				tfp = filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders")
			}
			if abs, err := filepath.Abs(tfp); err == nil {
				tfp = abs
			}
			env.Setenv("TFPROVIDERS", tfp)
			env.Setenv("TFPLATFORM", tfcache.Platform())
			tokens := maps.Clone(providerTokens)
			tokens["TFPROVIDERS_DIR"] = tfp
			return expandTokens(env.WorkDir, tokens)
		},
		Cmds: cmds,
	})
}

// printNixOps4Tree writes one line per resource and nested deployment,
// in key order, indented by depth.
func printNixOps4Tree(w io.Writer, d nixops4state.Deployment, indent string) {
	for _, k := range slices.Sorted(maps.Keys(d.Resources)) {
		fmt.Fprintf(w, "%sresource %s: %s\n", indent, k, d.Resources[k].Type)
	}
	for _, k := range slices.Sorted(maps.Keys(d.Deployments)) {
		fmt.Fprintf(w, "%sdeployment %s\n", indent, k)
		printNixOps4Tree(w, d.Deployments[k], indent+"  ")
	}
}

// scenarioT keys the scenario's testscript.T in Env.Values, so that need
// can skip (TestScript has no Skip of its own).
type scenarioT struct{}

// scriptTB adapts a TestScript to testneed.TB.
type scriptTB struct{ ts *testscript.TestScript }

func (s scriptTB) Helper()          {}
func (s scriptTB) Skip(args ...any) { s.ts.Value(scenarioT{}).(testscript.T).Skip(args...) }
func (s scriptTB) Fatal(args ...any) {
	s.ts.Fatalf("%s", fmt.Sprint(args...))
}

// testProviderTokens maps NAME_PROVIDER to the absolute path of each
// provider NAME.py in dir (JOURNAL_PROVIDER, PREVIEW_PROVIDER, ...).
func testProviderTokens(dir string) (map[string]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	tokens := map[string]string{}
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), ".py"); ok {
			tokens[strings.ToUpper(name)+"_PROVIDER"] = filepath.Join(dir, e.Name())
		}
	}
	return tokens, nil
}

// expandTokens replaces each token with its value in every file of dir.
func expandTokens(dir string, tokens map[string]string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		for k, v := range tokens {
			s = strings.ReplaceAll(s, k, v)
		}
		if s == string(b) {
			return nil
		}
		return os.WriteFile(path, []byte(s), d.Type().Perm()|0o600)
	})
}

// runScenarioTool is this test binary run by a scenario: "pier ARGS" runs
// the real pier and normalises its output; "journal" prints the journal.
func runScenarioTool(args []string) int {
	os.Unsetenv(scenarioToolEnv)
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "scenario tool: no command")
		return 2
	}
	switch args[0] {
	case "pier":
		return runNormalisedPier(args[1:])
	case "journal":
		if err := printJournal(os.Getenv("JOURNAL"), slices.Contains(args[1:], "-sort")); err != nil {
			fmt.Fprintln(os.Stderr, "journal:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "scenario tool: unknown command", args[0])
	return 2
}

func runNormalisedPier(args []string) int {
	cmd := exec.Command(os.Getenv("PIER_SCENARIO_BIN"), args...)
	var out, errb strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, &out, &errb
	err := cmd.Run()
	os.Stdout.WriteString(normalise(out.String()))
	os.Stderr.WriteString(normalise(errb.String()))
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "run pier:", err)
		return 127
	}
	return 0
}

var (
	clockTime = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d `)
	duration  = regexp.MustCompile(`after \d+(\.\d+)?(ns|µs|ms|s|m|h)(\d+(\.\d+)?(ms|s))*`)
	jsonTime  = regexp.MustCompile(`"time":"[0-9T:.+Z-]+"`)
	jsonSecs  = regexp.MustCompile(`"elapsed_seconds":[0-9.e-]+`)
)

// normalise makes pier's output the same from run to run.
func normalise(s string) string {
	for _, p := range []struct{ env, name string }{{"WORK", "$WORK"}, {"TESTDATA", "$TESTDATA"}} {
		v := os.Getenv(p.env)
		if v == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(v); err == nil && real != v {
			s = strings.ReplaceAll(s, real, p.name)
		}
		s = strings.ReplaceAll(s, v, p.name)
	}
	s = clockTime.ReplaceAllString(s, "HH:MM:SS ")
	s = jsonTime.ReplaceAllString(s, `"time":"TIME"`)
	s = jsonSecs.ReplaceAllString(s, `"elapsed_seconds":"X"`)
	return duration.ReplaceAllString(s, "after DURATION")
}

// printJournal prints each operation of the journal provider as
// "OP TYPE INPUTS", with INPUTS as compact JSON: in the order they ran, or
// sorted (where operations run in parallel).
func printJournal(path string, sorted bool) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e journalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("line %q: %w", sc.Text(), err)
		}
		in, _ := json.Marshal(e.Inputs)
		lines = append(lines, fmt.Sprintf("%s %s %s\n", e.Op, e.Type, in))
	}
	if sorted {
		slices.Sort(lines)
	}
	for _, l := range lines {
		fmt.Print(l)
	}
	return sc.Err()
}
