package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/statedoc"
)

func newStateResolveCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "say what became of an operation an interrupted apply left pending",
		ArgsUsage: "ADDR (--created [ID] | --absent)",
		Description: `Before pier sends a provider a create or a destroy, it records the
operation as pending in the resource's state; the record of the outcome
clears it. A pending operation found later means pier stopped (killed,
crashed, lost power) while the provider was working, so pier does not
know whether the object exists. pier plan and pier apply name each one,
and apply refuses to create such a resource again, so that an interrupted
create never makes a second copy silently.

Check the object yourself, then say what you found:

  pending create, the object exists:   pier state resolve ADDR --created ID
      imports it (as pier import ADDR ID does: the provider must declare
      import, and reports the outputs pier records); without import, remove
      the object yourself and use --absent
  pending create, no object:           pier state resolve ADDR --absent
      clears the pending create; the next apply creates the resource
  pending destroy, the object exists:  pier state resolve ADDR --created
      clears the pending destroy; the record stays
  pending destroy, the object is gone: pier state resolve ADDR --absent
      forgets the record with the pending destroy

No provider is asked to change anything. pier apply also retries a pending
destroy by itself when the plan still destroys the resource, since a
provider's destroy must accept an object that is already gone.

Exit codes: 0 resolved, 1 error, 64 usage.`,
		Flags: append(deployFlags(),
			&cli.BoolFlag{Name: "created", Aliases: []string{"exists"}, Usage: "the object exists (a pending create then takes its ID, to import it)"},
			&cli.BoolFlag{Name: "absent", Usage: "the object does not exist"},
			&cli.StringFlag{Name: "state", Usage: "the state held by `HANDLER`, when several hold a pending operation for ADDR"},
		),
		Action: func(c *cli.Context) error {
			created, absent := c.Bool("created"), c.Bool("absent")
			// The verdict reads naturally after the address (pier state
			// resolve web --absent), where flag parsing has stopped.
			var args []string
			for _, a := range c.Args().Slice() {
				switch a {
				case "--created", "--exists":
					created = true
				case "--absent":
					absent = true
				default:
					args = append(args, a)
				}
			}
			if created == absent {
				return usagef("state resolve takes exactly one of --created and --absent")
			}
			if len(args) == 0 || len(args) > 2 || (len(args) == 2 && !created) {
				return usagef("state resolve takes ADDR (and, with --created for a pending create, the object's ID), got %d arguments", len(args))
			}
			req := engine.ResolveRequest{Address: args[0], State: c.String("state"), Created: created}
			if len(args) == 2 {
				req.ID = args[1]
			}
			return runStateResolve(c.Context, readDeployOptions(c), req, g.stdout, g.stderr)
		},
	}
}

func runStateResolve(ctx context.Context, o deployOptions, req engine.ResolveRequest, stdout, stderr io.Writer) error {
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	eng, err := newEngine(o, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	res, err := eng.Resolve(ctx, req)
	if err != nil {
		return err
	}
	var msg string
	p := res.Pending
	switch {
	case res.Imported != nil:
		msg = fmt.Sprintf("Imported %s (provider %s, id %q) into state %s, resolving its pending create. The real object was not changed.", res.Address, res.Imported.Provider, req.ID, res.Handler)
	case p.Operation == statedoc.PendingCreate:
		msg = fmt.Sprintf("Cleared the pending create of %s in state %s (recorded a resolve event). The next apply creates it.", res.Address, res.Handler)
	case res.Forgot:
		msg = fmt.Sprintf("Forgot %s with its pending destroy in state %s (recorded a resolve event).", res.Address, res.Handler)
	default:
		msg = fmt.Sprintf("Cleared the pending destroy of %s in state %s (recorded a resolve event); the record stays.", res.Address, res.Handler)
	}
	if o.JSON {
		writeJSONLine(stdout, map[string]any{"message_type": "resolve", "address": res.Address, "state": res.Handler,
			"operation": string(p.Operation), "imported": res.Imported != nil, "forgot": res.Forgot})
		return nil
	}
	fmt.Fprintln(stdout, msg)
	return nil
}
