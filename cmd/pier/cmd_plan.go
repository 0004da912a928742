package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

func init() { register(newPlanCommand) }

type planOptions struct {
	deployOptions
	Out string
}

func newPlanCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "show what apply would change, or save it with -out",
		Description: `Reads the deployment's state through its state handlers (starting only their
providers) and prints, per resource, what apply would do and how its inputs
change. With -out FILE the plan is saved as an execution graph with the
position of every state it was made against; pier apply FILE carries out
exactly that plan, or refuses if the state has moved.

Exit codes: 0 planned, 1 error, 2 usage, 130 interrupted.`,
		Flags: append(deployFlags(), &cli.StringFlag{Name: "out", Usage: "save the plan to `FILE` (written 0600: it may hold inputs)"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("plan takes no arguments")
			}
			return runPlan(c.Context, planOptions{deployOptions: readDeployOptions(c), Out: c.String("out")}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runPlan(ctx context.Context, o planOptions, stdout, stderr io.Writer) error {
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	// A saved plan is made under the state lock; a shown one reads a
	// snapshot without it, so it answers while an apply runs.
	o.ReadOnlyState = o.Out == ""
	eng, err := newEngine(o.deployOptions, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	plan, err := eng.Plan(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		g, err := plan.RedactedGraph()
		if err != nil {
			return err
		}
		writeJSONLine(stdout, map[string]any{"message_type": "plan", "summary": plan.Summary(), "graph": g})
	} else {
		renderPlan(stdout, plan)
	}
	if o.Out != "" {
		if err := writePlanFile(o.Out, o.deployOptions, plan); err != nil {
			return err
		}
		if !o.JSON {
			fmt.Fprintf(stdout, "\nSaved the plan to %s. Apply exactly it with: pier apply %s\n", o.Out, o.Out)
		}
	}
	return nil
}
