package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/plan"
)

type planOptions struct {
	deployOptions
	Out              string
	Controls         plan.Options
	DetailedExitcode bool
}

func newPlanCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show what apply would change, or save it with -out",
		ArgsUsage: "[MEMBER...]",
		Description: `Reads the deployment's state through its state handlers (starting only their
providers) and prints, per resource, what apply would do and how its inputs
change. With -out FILE the plan is saved as an execution graph with the
position of every state it was made against; pier apply FILE carries out
exactly that plan, or refuses if the state has moved.

MEMBER arguments limit the plan to those resources (and the members below
them) and what they depend on, as --target does. --replace ADDR replaces a
resource although it is unchanged.

--refresh reads the recorded objects first and plans against what is
real; --refresh-only shows only what changed outside of pier (see
docs/refresh.md).

Exit codes: 0 planned, 1 error, 64 usage, 130 interrupted. With
--detailed-exitcode: 0 no changes, 1 error, 2 the plan has changes.`,
		Flags: append(append(deployFlags(), planControlFlags()...),
			&cli.StringFlag{Name: "out", Usage: "save the plan to `FILE` (written 0600: it may hold inputs)"},
			&cli.BoolFlag{Name: "detailed-exitcode", Usage: "exit 0 for no changes, 1 for an error, 2 for changes"},
			upgradeModulesFlag()),
		Action: func(c *cli.Context) error {
			controls, err := readPlanControls(c, c.Args().Slice())
			if err != nil {
				return err
			}
			return runPlan(c.Context, planOptions{deployOptions: readDeployOptions(c), Out: c.String("out"), Controls: controls, DetailedExitcode: c.Bool("detailed-exitcode")}, g.colourOut(g.stdout), g.stderr)
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
	p, err := plan.Make(ctx, eng, o.Controls)
	if err != nil {
		return err
	}
	// Planned: the Terraform providers and their bridges stop while the
	// plan is shown (a saved plan needs none of them either).
	eng.ReleaseTerraform()
	if o.JSON {
		for _, w := range p.Warnings {
			writeWarning(stdout, w)
		}
		m, err := planMessage(p)
		if err != nil {
			return err
		}
		writeJSONLine(stdout, m)
	} else {
		renderPlan(stdout, p)
	}
	if o.Out != "" {
		if err := writePlanFile(o.Out, o.deployOptions, o.Controls, eng, p); err != nil {
			return err
		}
		if !o.JSON {
			fmt.Fprintf(stdout, "\nSaved the plan to %s. Apply exactly it with: pier apply %s\n", o.Out, o.Out)
		}
	}
	if o.DetailedExitcode && p.HasChanges() {
		return changesFound{}
	}
	return nil
}

// planMessage is a plan as pier plan --json prints it (and pier ui sends
// it), with sensitive inputs redacted.
func planMessage(p *plan.Plan) (map[string]any, error) {
	g, err := p.RedactedGraph()
	if err != nil {
		return nil, err
	}
	return map[string]any{"message_type": "plan", "summary": p.Summary(), "graph": g, "drift": jsonDrift(p)}, nil
}
