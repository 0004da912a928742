package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

func newStateListCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the resources recorded in the deployment's states",
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			return withStates(c, g.stderr, func(states map[string]*statedoc.View) error {
				type row struct{ addr, typ, provider, handler string }
				var rows []row
				for h, v := range states {
					for addr, rec := range v.Entries {
						rows = append(rows, row{addr, rec.Entry.Type, rec.Entry.Provider, h})
					}
				}
				sort.Slice(rows, func(i, j int) bool { return source.CompareAddresses(rows[i].addr, rows[j].addr) < 0 })
				for _, r := range rows {
					if c.Bool("json") {
						writeJSONLine(g.stdout, map[string]string{"message_type": "resource", "address": r.addr, "type": r.typ, "provider": r.provider, "state": r.handler})
					} else {
						fmt.Fprintf(g.stdout, "%s\t%s\t%s\t(in %s)\n", r.addr, r.typ, r.provider, r.handler)
					}
				}
				return nil
			})
		},
	}
}

func newStateShowCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one recorded resource, with sensitive values redacted",
		ArgsUsage: "ADDR",
		Flags:     append(deployFlags(), stateShowAtFlags()...),
		Action: func(c *cli.Context) error {
			if c.IsSet("at") {
				return runStateShowAt(c.Context, readDeployOptions(c), c.Int64("at"), c.String("state"), c.Args().First(), g.stdout, g.stderr)
			}
			if c.NArg() != 1 {
				return usagef("state show takes one address")
			}
			addr := c.Args().First()
			return withStates(c, g.stderr, func(states map[string]*statedoc.View) error {
				for _, v := range states {
					if rec := v.Entries[addr]; rec != nil {
						e := rec.Entry
						e.InputProperties = redact.EntryInputs(e)
						e.OutputProperties = redact.EntryOutputs(e)
						b, err := json.MarshalIndent(e, "", "  ")
						if err != nil {
							return err
						}
						fmt.Fprintf(g.stdout, "%s\n", b)
						return nil
					}
				}
				return fmt.Errorf("%s is not recorded in any state of this deployment (see pier state list)", addr)
			})
		},
	}
}

func newStateDumpCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "dump",
		Usage:     "print the whole resolved state of every state handler, or of the one at PATH (may contain secrets)",
		ArgsUsage: "[PATH]",
		Description: `Without PATH, prints an object of every state handler's document, keyed by
the handler's address. With PATH, the address of a state handler resource
(e.g. state, or infra.state), prints that handler's document alone, as
nixops4 state dump PATH does. The output is unredacted: it may hold
secrets.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("state dump takes at most one state handler address, got %d arguments", c.NArg())
			}
			path := c.Args().First()
			fmt.Fprintln(g.stderr, "pier: warning: the state dump is unredacted and may contain secrets")
			return withStates(c, g.stderr, func(states map[string]*statedoc.View) error {
				var out any
				if path != "" {
					v := states[path]
					if v == nil {
						handlers := slices.Sorted(maps.Keys(states))
						return fmt.Errorf("%s is not a state handler of this deployment (its state handlers: %s)", path, strings.Join(handlers, ", "))
					}
					out = v.Document
				} else {
					all := map[string]any{}
					for h, v := range states {
						all[h] = v.Document
					}
					out = all
				}
				b, err := json.MarshalIndent(out, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "%s\n", b)
				return nil
			})
		},
	}
}

func newStateForgetCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Aliases:   []string{"rm"},
		Usage:     "remove a resource from state, leaving the real object alone",
		ArgsUsage: "ADDR",
		Flags:     append(deployFlags(), &cli.StringFlag{Name: "state", Usage: "forget it from the state held by `HANDLER` only, when several record it"}),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("state forget takes one address")
			}
			o := readDeployOptions(c)
			return runStateForget(c.Context, o, c.Args().First(), c.String("state"), g.stdout, g.stderr)
		},
	}
}

func runStateForget(ctx context.Context, o deployOptions, addr, state string, stdout, stderr io.Writer) error {
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	eng, err := newEngine(o, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	h, err := eng.Forget(ctx, addr, state)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Forgot %s (recorded a forget event in %s). The real object was left alone.\n", addr, h)
	return nil
}

// withStates reads the deployment's states and hands them to f.
func withStates(c *cli.Context, stderr io.Writer, f func(map[string]*statedoc.View) error) error {
	o := readDeployOptions(c)
	o.ReadOnlyState = true    // readers take no lock, so they answer during an apply
	o.UnsetVarsUnknown = true // and need no variable values
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	eng, err := newEngine(o, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	states, err := eng.States(c.Context)
	if err != nil {
		return err
	}
	return f(states)
}
