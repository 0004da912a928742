package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/engine"
)

func newStateMoveCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "mv",
		Aliases:   []string{"move"},
		Usage:     "move a record to another address or another state handler, leaving the real object alone",
		ArgsUsage: "FROM [TO]",
		Description: `Moves the record of FROM to TO (default: FROM) and, with --to-state, into the
state held by another state handler. No provider is asked anything: only
the state changes, recorded as "move" events.

Within one state it is one event, so it happens entirely or not at all.
Between states the entry is added to the target first and removed from the
source second. If pier stops between the two, both states record it; the
next plan refuses that and says which record to forget, and no record is
ever lost.

Change the deployment to match (rename the block, or set its state), or
the next plan will plan the move back, or a destroy and a create.`,
		Flags: append(deployFlags(),
			&cli.StringFlag{Name: "from-state", Usage: "move it out of the state held by `HANDLER`, when several record FROM"},
			&cli.StringFlag{Name: "to-state", Usage: "move it into the state held by `HANDLER` (default: the one it is in)"}),
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return usagef("state mv takes FROM and, optionally, TO")
			}
			if c.NArg() == 1 && !c.IsSet("to-state") {
				return usagef("state mv FROM needs TO, --to-state, or both")
			}
			o := readDeployOptions(c)
			view := newProgress(g.stderr, false, o.Verbose)
			defer view.close()
			eng, err := newEngine(o, view, g.stderr)
			if err != nil {
				return err
			}
			defer eng.Close()
			res, err := eng.Move(c.Context, engine.MoveRequest{From: c.Args().Get(0), To: c.Args().Get(1), FromState: c.String("from-state"), ToState: c.String("to-state")})
			if err != nil {
				return err
			}
			if res.FromState == res.ToState {
				fmt.Fprintf(g.stdout, "Moved %s to %s in state %s. No provider was asked anything.\n", res.From, res.To, res.ToState)
			} else {
				fmt.Fprintf(g.stdout, "Moved %s (state %s) to %s (state %s). No provider was asked anything.\n", res.From, res.FromState, res.To, res.ToState)
			}
			return nil
		},
	}
}
