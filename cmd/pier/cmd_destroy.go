package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/plan"
	"github.com/urfave/cli/v2"
)

type destroyOptions struct {
	deployOptions
	Yes bool
	// UI serves the run's live web view (--ui).
	UI *uiOptions
}

func newDestroyCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "destroy",
		Usage: "destroy everything the deployment's state holds",
		Description: `Destroys every resource recorded in the deployment's states, in reverse
dependency order, through its provider's destroyResourceRequest. It shows
the plan and asks for confirmation when standard input is a terminal,
unless --yes is given; otherwise it requires --yes, and without it names
what would be destroyed and changes nothing.

Exit codes: 0 destroyed (or nothing to do), 1 error or the confirmation was
declined, 64 usage (e.g. no --yes off a terminal), 130 interrupted.`,
		Flags: append(append(deployFlags(), liveViewFlags()...), &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("destroy takes no arguments")
			}
			o := destroyOptions{deployOptions: readDeployOptions(c), Yes: c.Bool("yes"), UI: readLiveView(c)}
			return runDestroy(c.Context, o, g.gracefulStop(), g.stdin, g.colourOut(g.stdout), g.stderr)
		},
	}
}

func runDestroy(ctx context.Context, o destroyOptions, stop <-chan struct{}, stdin *os.File, stdout, stderr io.Writer) error {
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
	p, err := plan.MakeDestroy(ctx, eng)
	if err != nil {
		return err
	}
	if !o.JSON {
		renderPlan(stdout, p)
	}
	if !p.HasChanges() {
		if !o.JSON {
			fmt.Fprintln(stdout, "\nNothing to destroy.")
		}
		return nil
	}
	if !o.Yes && !isTerminal(stdin) {
		// Planned first, so that the refusal names what would go, as
		// apply's does; nothing has been changed yet.
		return usagef("pier destroy would destroy %s, and its standard input is not a terminal, so it cannot ask: review it, then pass --yes", strings.Join(destructive(p), ", "))
	}
	if !o.Yes {
		question := fmt.Sprintf("\nDestroy all %d resources?", p.Summary().Destroy)
		if !askYes(ctx, question, stdin, stop, stdout) {
			return declinedError{"destroy"}
		}
	}
	live, err := startLiveView(ctx, o.UI, o.deployOptions, view, p, stderr)
	if err != nil {
		return err
	}
	res, err := apply.Run(ctx, eng, plan.NewRunTimePlanner(eng), stop, p)
	live.end(res, true, err)
	view.close()
	return finishApply(stdout, o.JSON, res, err, true, eng.ProvidersStarted())
}
