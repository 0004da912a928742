package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/hclsource"
)

type graphOptions struct {
	Dir      string
	Vars     []string
	VarFiles []string
}

func newGraphCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "graph",
		Usage: "print the deployment's dependency graph as Graphviz DOT",
		Description: `Prints one node per resource block (instances of count and for_each share
it), a cluster per deployment block, and an edge from each dependency to its
dependent: solid for references, dashed for the state handler, dotted for
depends_on. Nothing is evaluated and no provider is started.

  pier graph --dir . | dot -Tsvg > graph.svg

Exit codes: 0 printed, 1 error (configuration errors are shown with their
source), 64 usage.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory holding the deployment's *.pier.hcl / *.pier.json files"},
			&cli.StringSliceFlag{Name: "var", Usage: "set a variable, `NAME=VALUE` (repeatable)"},
			&cli.StringSliceFlag{Name: "var-file", Usage: "read variables from an HCL or JSON `FILE` (repeatable)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("graph takes no arguments; use --dir to name the deployment")
			}
			o := graphOptions{Dir: c.String("dir"), Vars: c.StringSlice("var"), VarFiles: c.StringSlice("var-file")}
			return runGraph(c.Context, o, g.stdout, g.stderr)
		},
	}
}

func runGraph(ctx context.Context, o graphOptions, stdout, stderr io.Writer) error {
	// The graph starts no provider: the lock file is not consulted for
	// providers. Git module sources are drawn at their pinned commits;
	// the graph pins nothing (pier plan does), so it is not a one-load
	// command.
	d, err := openDeployment(deployOptions{Dir: o.Dir, Vars: o.Vars, VarFiles: o.VarFiles, EnvVars: hclsource.EnvVars(os.Environ()), Lock: "off"},
		stderr, slog.New(slog.DiscardHandler), false)
	var g *hclsource.Graph
	if err == nil {
		g, err = d.Graph(ctx)
	}
	var de *hclsource.DiagnosticsError
	var ue usageError
	if errors.As(err, &de) || errors.As(err, &ue) {
		// main prints it once, with the source lines, as for pier plan.
		return err
	}
	if err != nil {
		return fmt.Errorf("graph: %w", err)
	}
	if err := g.WriteDOT(stdout); err != nil {
		return fmt.Errorf("graph %s: write: %w", o.Dir, err)
	}
	return nil
}
