package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/engine"
)

func newImportCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "adopt an object that already exists into state, then plan",
		ArgsUsage: "ADDR ID",
		Description: `Asks the provider of resource ADDR for its existing object ID and records
what it reports (the inputs that would reproduce it, and its outputs) in
the resource's state, with an "import" event, as if pier had created it.
The real object is not changed.

The resource block must exist in the deployment and have a state handler,
its provider must declare the import operation (the local and Terraform
providers do), and ADDR must not be recorded yet. ID is the provider's own
identifier: a local file's name, a time_static's RFC 3339 timestamp, the
id terraform import takes for a Terraform resource.

pier then plans as usual, so differences between the imported object and
the configuration show as an update (or a replacement) for pier apply.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usagef("import takes ADDR and ID, got %d arguments", c.NArg())
			}
			return runImport(c.Context, readDeployOptions(c), c.Args().Get(0), c.Args().Get(1), g.colourOut(g.stdout), g.stderr)
		},
	}
}

func runImport(ctx context.Context, o deployOptions, addr, id string, stdout, stderr io.Writer) error {
	res, err := importOne(ctx, o, addr, id, stderr)
	if err != nil {
		return err
	}
	if !o.JSON {
		fmt.Fprintf(stdout, "Imported %s (provider %s, id %q) into state %s. The real object was not changed.\n", res.Address, res.Provider, id, res.Handler)
		if res.ResolvedPending {
			fmt.Fprintf(stdout, "This resolves the pending create an interrupted apply left for %s.\n", res.Address)
		}
		fmt.Fprintln(stdout)
	} else {
		writeJSONLine(stdout, map[string]any{"message_type": "import", "address": res.Address.String(), "provider": res.Provider, "state": res.Handler})
	}
	// The engine that imported has closed, releasing the state's lock.
	return runPlan(ctx, planOptions{deployOptions: o}, stdout, stderr)
}

func importOne(ctx context.Context, o deployOptions, addr, id string, stderr io.Writer) (engine.ImportResult, error) {
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	eng, err := newEngine(o, view, stderr)
	if err != nil {
		return engine.ImportResult{}, err
	}
	defer eng.Close()
	return eng.Import(ctx, addr, id)
}
