package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/planfile"
)

type applyOptions struct {
	deployOptions
	PlanFile string
	Controls plan.Options
	Yes      bool
	// UI serves the run's live web view (--ui).
	UI *uiOptions
}

func newApplyCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "apply",
		Usage:     "carry out the changes, or a saved plan",
		ArgsUsage: "[PLANFILE | MEMBER...]",
		Description: `Plans and applies at once, or, given a PLANFILE from pier plan -out, carries
out exactly that plan's execution graph, without planning again; it
refuses (exit 3) if the deployment's files, a provider's declaration or
executable, or any state has changed since (see docs/plan.md). MEMBER
arguments (anything that is not an existing file) limit the apply to those
resources and what they depend on, as --target does and as nixops4 apply
<paths> does.

When standard input is a terminal, pier apply shows the plan and asks
before changing anything, unless --yes is given (stdout may be a pipe, as
in pier apply | tee apply.log). Otherwise it goes on, except that a plan
that destroys or replaces anything needs --yes: without it pier refuses
(exit 64, usage) and names what would be destroyed. pier apply PLANFILE
never asks: the plan was reviewed when it was made.

pier apply --refresh-only records in state what the reads find changed
outside of pier, and changes no object; it asks as apply does.

Independent resources run in parallel; each stateful change is recorded
before anything that depends on it starts. The first Ctrl-C starts nothing
new and waits for running operations; the second stops them.

Exit codes: 0 applied, 1 error (some resources failed), 64 usage,
3 saved plan is stale, 130 interrupted.`,
		Flags: append(append(append(deployFlags(), planControlFlags()...), liveViewFlags()...),
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation, and allow destroys and replacements off a terminal"},
			upgradeModulesFlag()),
		Action: func(c *cli.Context) error {
			o := applyOptions{deployOptions: readDeployOptions(c), Yes: c.Bool("yes"), UI: readLiveView(c)}
			var members []string
			if c.NArg() == 1 && isPlanFile(c.Args().First()) {
				o.PlanFile = c.Args().First()
			} else {
				members = c.Args().Slice()
			}
			if o.PlanFile != "" {
				// A saved plan is carried out exactly: it names its own
				// deployment and variables, and these would be ignored.
				for _, f := range []string{"dir", "flake", "file", "var", "var-file", "replace", "target", "refresh", "refresh-only"} {
					if c.IsSet(f) {
						return usagef("--%s cannot be combined with a plan file: the plan names its deployment, variables and targets; make a new plan with pier plan -out instead", f)
					}
				}
			}
			controls, err := readPlanControls(c, members)
			if err != nil {
				return err
			}
			o.Controls = controls
			return runApplyWith(c.Context, o, g.gracefulStop(), g.stdin, g.colourOut(g.stdout), g.stderr)
		},
	}
}

func (e *staleError) ExitCode() int { return exitStalePlan }

// runApply applies without asking, as a script would with --yes.
func runApply(ctx context.Context, o applyOptions, stop <-chan struct{}, stdout, stderr io.Writer) error {
	o.Yes = true
	return runApplyWith(ctx, o, stop, nil, stdout, stderr)
}

func runApplyWith(ctx context.Context, o applyOptions, stop <-chan struct{}, stdin *os.File, stdout, stderr io.Writer) error {
	if o.PlanFile != "" {
		return runApplySaved(ctx, o, stop, stdout, stderr)
	}
	out := stderr
	if o.JSON {
		out = stdout
	}
	view := newProgress(out, o.JSON, o.Verbose)
	defer view.close()
	eng, err := newEngine(o.deployOptions, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	p, err := plan.Make(ctx, eng, o.Controls)
	if err != nil {
		return err
	}
	if !o.JSON {
		renderPlan(stdout, p)
		fmt.Fprintln(stdout)
	} else {
		for _, w := range p.Warnings {
			writeWarning(stdout, w)
		}
	}
	// The question follows stdin, as tofu's does: pier apply | tee log on
	// a terminal still asks (the question goes down the pipe, the answer
	// comes from the terminal). --json output is for programs, which
	// cannot answer.
	interactive := stdin != nil && isTerminal(stdin) && !o.JSON
	if err := confirmApply(ctx, p, o.Yes, interactive, stdin, stop, stdout); err != nil {
		return err
	}
	live, err := startLiveView(ctx, o.UI, o.deployOptions, view, p, stderr)
	if err != nil {
		return err
	}
	res, err := apply.Run(ctx, eng, plan.NewRunTimePlanner(eng), stop, p)
	live.end(res, p.Destroy, err)
	view.close()
	return finishApply(stdout, o.JSON, res, err, p.Destroy, eng.ProvidersStarted())
}

// runApplySaved carries out a saved plan: it runs the plan's execution
// graph and never plans again. It refuses (exit 3), before anything
// changes, a plan whose source files, providers or states moved since it
// was made. It does not ask: the plan was reviewed when it was made.
func runApplySaved(ctx context.Context, o applyOptions, stop <-chan struct{}, stdout, stderr io.Writer) error {
	sp, err := planfile.Read(o.PlanFile)
	if err != nil {
		return err
	}
	if err := checkSavedSource(o.PlanFile, sp); err != nil {
		return err
	}
	g, err := sp.ExecGraph()
	if err != nil {
		return fmt.Errorf("read plan file %s: %w", o.PlanFile, err)
	}
	o.Dir, o.Flake, o.Vars, o.VarFiles, o.EnvVars = sp.Deployment.Dir, sp.Deployment.Flake, sp.Deployment.Vars, sp.Deployment.VarFiles, sp.Deployment.EnvVars
	out := stderr
	if o.JSON {
		out = stdout
	}
	view := newProgress(out, o.JSON, o.Verbose)
	defer view.close()
	// The source is loaded for what the graph leaves to run time (resolve
	// and expand) and for the deployment's outputs; nothing is planned.
	eng, err := newEngine(o.deployOptions, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := checkSavedProviders(o.PlanFile, eng, sp, g); err != nil {
		return err
	}
	if !o.JSON {
		renderPlan(stdout, plan.Showable(sp.Changes, sp.Warnings, sp.Destroy))
		fmt.Fprintln(stdout)
	}
	live, err := startLiveView(ctx, o.UI, o.deployOptions, view, plan.Showable(sp.Changes, sp.Warnings, sp.Destroy), stderr)
	if err != nil {
		return err
	}
	res, err := apply.RunGraph(ctx, eng, plan.NewRunTimePlanner(eng), stop, g)
	live.end(res, sp.Destroy, err)
	view.close()
	if res == nil {
		return staleStates(o.PlanFile, err)
	}
	return finishApply(stdout, o.JSON, res, err, sp.Destroy, eng.ProvidersStarted())
}

// finishApply reports what an apply did and returns its error. An apply
// that fails after making changes (recording the outputs, say) still says
// what it changed.
func finishApply(w io.Writer, jsonOut bool, res *apply.Result, err error, destroy bool, started map[string]int) error {
	if res == nil {
		return err
	}
	reportResult(w, jsonOut, res, destroy, err)
	reportProviders(w, jsonOut, started)
	// The errors themselves are printed once, by main (reportError).
	return errors.Join(res.Err(), err)
}

// reportProviders says which provider processes ran: an unchanged
// deployment starts only its state handlers' providers.
func reportProviders(w io.Writer, jsonOut bool, started map[string]int) {
	if jsonOut {
		writeJSONLine(w, map[string]any{"message_type": "providers", "started": started})
		return
	}
	names := slices.Sorted(maps.Keys(started))
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s×%d", n, started[n]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(w, "\nProvider processes started: %s.\n", strings.Join(parts, ", "))
}

// reportResult prints the closing summary and the outputs; main prints
// the errors, after it.
// late is an error after the resources were applied, or nil.
func reportResult(w io.Writer, jsonOut bool, res *apply.Result, destroy bool, late error) {
	failed := res.Interrupted || len(res.Errors) > 0 || late != nil
	if jsonOut {
		for _, msg := range res.CheckWarnings {
			writeWarning(w, msg)
		}
		writeJSONLine(w, summaryMessage(res, late))
		outs := map[string]any{}
		for _, o := range res.Outputs {
			outs[o.Name] = outputJSON(o.Value, o.Sensitive)
		}
		if !failed {
			writeJSONLine(w, map[string]any{"message_type": "outputs", "outputs": outs})
		}
		return
	}
	// Failed checks warn after apply as at plan, before the summary, as
	// Terraform's do.
	for _, msg := range res.CheckWarnings {
		fmt.Fprintf(w, "Warning: %s\n\n", msg)
	}
	verb := "Apply"
	if destroy {
		verb = "Destroy"
	}
	ok := func(s string) string { return paintW(w, sgrGreen+sgrBold, s) }
	bad := func(s string) string { return paintW(w, sgrRed+sgrBold, s) }
	switch {
	case res.Interrupted:
		fmt.Fprintf(w, "%s Resources: %d created, %d updated, %d destroyed; %d not started.\n", bad(verb+" interrupted."), res.Created, res.Updated, res.Destroyed, len(res.Skipped))
	case len(res.Lost) > 0:
		fmt.Fprintf(w, "%s Resources: %d created, %d updated, %d destroyed; %d failed, %d not started.\n", bad(verb+" stopped: a state handler's process exited, and the state's lock with it."), res.Created, res.Updated, res.Destroyed, len(res.Errors), len(res.Skipped))
	case len(res.Errors) > 0 || late != nil:
		fmt.Fprintf(w, "%s Resources: %d created, %d updated, %d destroyed; %d failed, %d skipped.\n", bad(verb+" failed."), res.Created, res.Updated, res.Destroyed, len(res.Errors), len(res.Skipped))
	case res.Recorded > 0 && res.Created+res.Updated+res.Destroyed == 0:
		fmt.Fprintf(w, "%s %d %s recorded as read; no object was changed.\n", ok("Refresh complete!"), res.Recorded, pluralObjects(res.Recorded))
	case destroy && res.Created+res.Updated == 0:
		fmt.Fprintf(w, "%s Resources: %d destroyed.\n", ok("Destroy complete!"), res.Destroyed)
	case res.Imported > 0:
		fmt.Fprintf(w, "%s Resources: %d imported, %d created, %d updated, %d destroyed.\n", ok(verb+" complete!"), res.Imported, res.Created, res.Updated, res.Destroyed)
	case res.Moved > 0:
		fmt.Fprintf(w, "%s Resources: %d moved, %d created, %d updated, %d destroyed.\n", ok(verb+" complete!"), res.Moved, res.Created, res.Updated, res.Destroyed)
	case res.Forgotten > 0:
		fmt.Fprintf(w, "%s Resources: %d created, %d updated, %d destroyed, %d forgotten.\n", ok(verb+" complete!"), res.Created, res.Updated, res.Destroyed, res.Forgotten)
	default:
		fmt.Fprintf(w, "%s Resources: %d created, %d updated, %d destroyed.\n", ok(verb+" complete!"), res.Created, res.Updated, res.Destroyed)
	}
	// After a failure the outputs may be partly stale, and the errors are
	// what to read: no Outputs:, as in tofu. pier output still shows them.
	if len(res.Outputs) > 0 && !failed {
		fmt.Fprintln(w, "\nOutputs:")
		fmt.Fprintln(w)
		for _, o := range res.Outputs {
			fmt.Fprintf(w, "%s = %s\n", o.Name, outputText(o.Value, o.Sensitive))
		}
	}
}

// summaryMessage is an apply's closing summary as pier apply --json prints
// it (and pier ui sends it); late is an error after the resources were
// applied, or nil.
func summaryMessage(res *apply.Result, late error) map[string]any {
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, e.Error())
	}
	for _, e := range res.Lost {
		errs = append(errs, e.Error())
	}
	if late != nil {
		errs = append(errs, late.Error())
	}
	return map[string]any{
		"message_type": "summary", "created": res.Created, "updated": res.Updated, "destroyed": res.Destroyed, "recorded": res.Recorded, "forgotten": res.Forgotten, "imported": res.Imported, "moved": res.Moved,
		"errors": errs, "skipped": res.Skipped, "interrupted": res.Interrupted,
	}
}
