package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/modsource"
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

func runGraph(_ context.Context, o graphOptions, stdout, stderr io.Writer) error {
	vars := map[string]string{}
	for _, kv := range o.Vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--var %q: want NAME=VALUE", kv)
		}
		vars[k] = v
	}
	// Git module sources are drawn at their pinned commits; the graph
	// pins nothing (pier plan does).
	var pins map[string]string
	if lock, _, err := lockfile.Read(filepath.Join(o.Dir, lockfile.Name)); err == nil {
		pins = lock.Modules
	}
	fetch := &modsource.Fetcher{Pins: pins}
	d, err := hclsource.Load(o.Dir, hclsource.Options{Vars: vars, VarFiles: o.VarFiles, EnvVars: hclsource.EnvVars(os.Environ()), Builtins: builtin.Capabilities, FetchModule: fetch.Fetch})
	var de *hclsource.DiagnosticsError
	if errors.As(err, &de) {
		// main prints it once, with the source lines, as for pier plan.
		return err
	}
	if err != nil {
		return fmt.Errorf("graph: %w", err)
	}
	if err := d.Graph().WriteDOT(stdout); err != nil {
		return fmt.Errorf("graph %s: write: %w", o.Dir, err)
	}
	return nil
}
