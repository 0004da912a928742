package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/diag"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/testfile"
)

// This file is pier test (the file is not cmd_test.go: that name would
// make it a Go test file).

type testOptions struct {
	deployOptions
	// Filter keeps the test files whose names it lists.
	Filter []string
}

func newTestCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "test",
		Usage: "run the deployment's *.pier.test.hcl tests against a temporary state",
		Description: `Runs the run blocks of every *.pier.test.hcl file in the deployment's
directory and its tests/ directory, as terraform test does. The runs of a
file run in order, each a plan or an apply of the deployment with the
run's variables, then check its assert blocks and expect_failures.

Each file gets a temporary state: providers run in a fresh temporary
directory, so a state_file with a relative name (and every other
relative path a provider writes) starts empty there. A file whose first
plan finds recorded resources is refused, so a test never touches a real
state. Whatever a file's runs applied is destroyed when the file ends,
even after a failure; if that destroy fails, the temporary directory,
with its state, is kept and named.

Prints one line per run and a summary; --json prints one test_run object
per run, one test_cleanup per file and a test_summary.

Exit codes: 0 every run passed, 1 a run failed or a cleanup failed, 64
usage, 130 interrupted.`,
		Flags: append(deployFlags(),
			&cli.StringSliceFlag{Name: "filter", Usage: "run only the test `FILE` (its name, repeatable)"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("pier test takes no arguments (use --filter FILE)")
			}
			return runTest(c.Context, testOptions{deployOptions: readDeployOptions(c), Filter: c.StringSlice("filter")}, g.gracefulStop(), g.stdout, g.stderr)
		},
	}
}

// testFailed is pier test's exit status after a failed run: each failure
// is printed already.
type testFailed struct{}

func (testFailed) Error() string { return "tests failed" }
func (testFailed) ExitCode() int { return exitError }
func (testFailed) quiet()        {}

// runReport is one run's outcome, as --json prints it.
type runReport struct {
	MessageType string        `json:"message_type"` // test_run
	File        string        `json:"file"`
	Run         string        `json:"run"`
	Command     string        `json:"command"`
	Status      string        `json:"status"` // pass, fail or skip
	Failures    []testFailure `json:"failures,omitempty"`
	// Warnings are the deployment's failed check blocks, which do not
	// fail a run unless expect_failures names them.
	Warnings []string `json:"warnings,omitempty"`
	err      error
}

// testFailure is why a run failed.
type testFailure struct {
	Summary string `json:"summary"`
	Detail  string `json:"detail,omitempty"`
	Range   string `json:"range,omitempty"`
}

func runTest(ctx context.Context, o testOptions, stop <-chan struct{}, stdout, stderr io.Writer) error {
	if o.Flake != "" {
		return usagef("pier test runs HCL deployments' *.pier.test.hcl files, not --flake or --file")
	}
	paths, err := testfile.Find(o.Dir)
	if err != nil {
		return err
	}
	if len(o.Filter) > 0 {
		paths = slices.DeleteFunc(paths, func(p string) bool {
			return !slices.Contains(o.Filter, filepath.Base(p)) && !slices.Contains(o.Filter, p)
		})
	}
	if len(paths) == 0 {
		return fmt.Errorf("no %s files in %s or its tests directory", testfile.Suffix, o.Dir)
	}
	files, err := testfile.Load(paths)
	if err != nil {
		return err
	}
	// Every run loads the deployment again; its warnings (no lock file,
	// say) are worth saying once.
	stderr = &onceWriter{w: stderr, seen: map[string]bool{}}
	var passed, failed, skipped int
	cleanFailed := false
	for _, f := range files {
		name := displayPath(f.Path)
		if !o.JSON {
			fmt.Fprintf(stdout, "%s... in progress\n", name)
		}
		reports, cleanErr := runTestFile(ctx, o, stop, f, stderr)
		for _, r := range reports {
			r.File = name
			switch r.Status {
			case "pass":
				passed++
			case "fail":
				failed++
			default:
				skipped++
			}
			writeRunReport(stdout, stderr, o, r)
		}
		if cleanErr != nil {
			cleanFailed = true
		}
		writeCleanup(stdout, stderr, o, name, cleanErr)
	}
	status := "pass"
	if failed > 0 || cleanFailed {
		status = "fail"
	}
	if o.JSON {
		writeJSONLine(stdout, struct {
			MessageType string `json:"message_type"`
			Status      string `json:"status"`
			Passed      int    `json:"passed"`
			Failed      int    `json:"failed"`
			Skipped     int    `json:"skipped"`
		}{"test_summary", status, passed, failed, skipped})
	} else {
		word := "Success!"
		if status == "fail" {
			word = "Failure!"
		}
		line := fmt.Sprintf("\n%s %d passed, %d failed", word, passed, failed)
		if skipped > 0 {
			line += fmt.Sprintf(", %d skipped", skipped)
		}
		fmt.Fprintln(stdout, line+".")
	}
	if status == "fail" {
		return testFailed{}
	}
	return nil
}

// runTestFile runs one file's runs in a temporary directory of their own
// and destroys what they applied. It returns the runs' reports and the
// cleanup's error.
func runTestFile(ctx context.Context, o testOptions, stop <-chan struct{}, f *testfile.File, stderr io.Writer) ([]*runReport, error) {
	work, err := os.MkdirTemp("", "pier-test-")
	if err != nil {
		return nil, fmt.Errorf("test %s: make a temporary directory: %w", f.Path, err)
	}
	var reports []*runReport
	var applied map[string]cty.Value // the variables of the last run that applied
	broken := false
	for i, run := range f.Runs {
		r := &runReport{MessageType: "test_run", Run: run.Name, Command: string(run.Command)}
		reports = append(reports, r)
		if broken || ctx.Err() != nil {
			r.Status = "skip"
			continue
		}
		didApply, fatal := runOne(ctx, o, stop, work, run, i == 0, r, stderr)
		if didApply {
			applied = run.Variables
		}
		if fatal {
			// The state may not be what later runs assume.
			broken = true
		}
	}
	// Destroy even after a failure or an interrupt: the temporary state
	// is all that remembers those objects.
	var cleanErr error
	if applied != nil {
		cleanErr = destroyTestState(context.WithoutCancel(ctx), o, work, applied, stderr)
	}
	if cleanErr != nil {
		return reports, fmt.Errorf("%w; the temporary state is kept in %s", cleanErr, work)
	}
	return reports, os.RemoveAll(work)
}

// runOne runs one run block into r. It reports whether the run applied
// anything (so the file's cleanup must destroy) and whether it failed in
// a way that leaves later runs nothing to stand on.
func runOne(ctx context.Context, o testOptions, stop <-chan struct{}, work string, run *testfile.Run, first bool, r *runReport, stderr io.Writer) (applied, fatal bool) {
	opts := o.deployOptions
	opts.WorkDir, opts.VarValues = work, run.Variables
	opts.Asserts = &hclsource.Asserts{Name: "run." + run.Name, Blocks: run.Asserts, Range: run.Range}
	opts.JSON = false
	var failures []testFailure
	failedChecks := map[string]bool{}
	view := newProgress(io.Discard, false, false)
	if o.Verbose {
		view = newProgress(stderr, false, true)
	}
	defer view.close()
	finish := func() {
		for _, want := range run.ExpectFailures {
			if !failedChecks[want] {
				failures = append(failures, testFailure{Summary: "Missing expected failure",
					Detail: fmt.Sprintf("the run expected %s to fail, and it did not.", want), Range: displayPath(fmt.Sprintf("%s:%d:%d", run.Range.Filename, run.Range.Start.Line, run.Range.Start.Column))})
			}
		}
		r.Failures = failures
		r.Status = "pass"
		if len(failures) > 0 {
			r.Status = "fail"
		}
	}
	defer finish()
	// unexpected turns an error into failures, except the failed
	// conditions that expect_failures names.
	unexpected := func(err error) {
		if err = expectedConditions(err, run.ExpectFailures, failedChecks); err == nil {
			return
		}
		var de *hclsource.DiagnosticsError
		if errors.As(err, &de) {
			var rest hclsource.DiagnosticsError
			rest.Files = de.Files
			for _, d := range de.Diagnostics {
				if names := hclsource.FailedCheckables(hcl.Diagnostics{d}); len(names) > 0 {
					failedChecks[names[0]] = true
					if slices.Contains(run.ExpectFailures, names[0]) {
						continue
					}
				}
				rest.Diagnostics = append(rest.Diagnostics, d)
			}
			if len(rest.Diagnostics) == 0 {
				return
			}
			err = &rest
		}
		for _, d := range diag.FromError(err, o.Verbose) {
			tf := testFailure{Summary: d.Summary, Detail: d.Detail}
			if d.Range != nil {
				tf.Range = fmt.Sprintf("%s:%d:%d", displayPath(d.Range.Filename), d.Range.Start.Line, d.Range.Start.Column)
			}
			failures = append(failures, tf)
		}
	}
	eng, err := newEngine(opts, view, stderr)
	if err != nil {
		unexpected(err)
		return false, len(failures) > 0
	}
	defer eng.Close()
	p, err := plan.Make(ctx, eng, plan.Options{})
	if err != nil {
		unexpected(err)
		return false, len(failures) > 0
	}
	if first {
		for _, h := range slices.Sorted(maps.Keys(p.States)) {
			if n := len(p.States[h].Entries); n > 0 {
				failures = append(failures, testFailure{Summary: "State not empty",
					Detail: fmt.Sprintf("state %s already records %d resource(s): pier test runs against a temporary state and refuses one that is not empty, so that its cleanup never destroys real objects. Give the state a relative name (it then lives in pier test's temporary directory), or point it elsewhere with a variable.", h, n)})
				return false, true
			}
		}
	}
	checks := p.Snapshot.Checks
	if run.Command == testfile.CommandApply {
		res, err := apply.Run(ctx, eng, plan.NewRunTimePlanner(eng), stop, p)
		applied = true
		if res != nil && len(res.Checks) > 0 {
			checks = res.Checks
		}
		if err == nil && res != nil {
			err = res.Err()
		}
		if err != nil {
			unexpected(err)
			fatal = len(failures) > 0
		}
	}
	for _, c := range checks {
		switch {
		case c.Check == "run."+run.Name && !c.Known:
			failures = append(failures, testFailure{Summary: "Unknown condition value",
				Detail: "the condition is known only after apply; check it in a run with command = apply.", Range: displayPath(c.Range.String())})
		case c.Check == "run."+run.Name && c.Failed:
			failures = append(failures, testFailure{Summary: "Test assertion failed", Detail: c.Message, Range: displayPath(c.Range.String())})
		case c.Failed:
			failedChecks[c.Check] = true
			if !slices.Contains(run.ExpectFailures, c.Check) {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s (assert at %s): %s", c.Check, displayPath(c.Range.String()), c.Message))
			}
		}
	}
	return applied, fatal
}

// destroyTestState destroys what a file's runs applied, with the
// variables of the last run that applied.
func destroyTestState(ctx context.Context, o testOptions, work string, vars map[string]cty.Value, stderr io.Writer) error {
	opts := o.deployOptions
	opts.WorkDir, opts.VarValues, opts.JSON = work, vars, false
	view := newProgress(io.Discard, false, false)
	if o.Verbose {
		view = newProgress(stderr, false, true)
	}
	defer view.close()
	eng, err := newEngine(opts, view, stderr)
	if err != nil {
		return fmt.Errorf("destroy the test's objects: %w", err)
	}
	defer eng.Close()
	p, err := plan.MakeDestroy(ctx, eng)
	if err != nil {
		return fmt.Errorf("destroy the test's objects: %w", err)
	}
	res, err := apply.Run(ctx, eng, plan.NewRunTimePlanner(eng), nil, p)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return fmt.Errorf("destroy the test's objects: %w", err)
	}
	return nil
}

func writeRunReport(stdout, stderr io.Writer, o testOptions, r *runReport) {
	if o.JSON {
		writeJSONLine(stdout, r)
		return
	}
	fmt.Fprintf(stdout, "  run %q... %s\n", r.Run, r.Status)
	for _, w := range r.Warnings {
		fmt.Fprintf(stdout, "    Warning: Check block assertion failed: %s\n", w)
	}
	for _, f := range r.Failures {
		line := "    "
		if f.Range != "" {
			line += f.Range + ": "
		}
		line += "Error: " + f.Summary
		if f.Detail != "" {
			line += ": " + strings.ReplaceAll(strings.TrimSpace(f.Detail), "\n\n", " ")
		}
		fmt.Fprintln(stdout, line)
	}
}

func writeCleanup(stdout, stderr io.Writer, o testOptions, file string, err error) {
	if o.JSON {
		m := struct {
			MessageType string `json:"message_type"`
			File        string `json:"file"`
			Status      string `json:"status"`
			Error       string `json:"error,omitempty"`
		}{"test_cleanup", file, "ok", ""}
		if err != nil {
			m.Status, m.Error = "fail", err.Error()
		}
		writeJSONLine(stdout, m)
		return
	}
	if err != nil {
		fmt.Fprintf(stdout, "%s... tearing down failed: %v\n", file, err)
		return
	}
	fmt.Fprintf(stdout, "%s... tearing down\n", file)
}

// onceWriter drops the warnings it has written before.
type onceWriter struct {
	w    io.Writer
	seen map[string]bool
}

func (o *onceWriter) Write(p []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" || strings.HasPrefix(line, "pier: warning:") && o.seen[line] {
			continue
		}
		o.seen[line] = true
		if _, err := io.WriteString(o.w, line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// expectedConditions removes from err the resources' failed
// preconditions and postconditions that expect names, and notes every
// failed one in failed; nil when nothing else is left.
func expectedConditions(err error, expect []string, failed map[string]bool) error {
	var keep []error
	var walk func(error)
	walk = func(e error) {
		if m, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range m.Unwrap() {
				walk(x)
			}
			return
		}
		var ce *plan.ConditionError
		if errors.As(e, &ce) {
			failed[ce.Checkable()] = true
			if slices.Contains(expect, ce.Checkable()) {
				return
			}
		}
		keep = append(keep, e)
	}
	walk(err)
	return errors.Join(keep...)
}
