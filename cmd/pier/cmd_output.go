package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/urfave/cli/v2"
)

func init() { register(newOutputCommand) }

type outputOptions struct {
	deployOptions
	Name string
}

func newOutputCommand() *cli.Command {
	return &cli.Command{
		Name:      "output",
		Usage:     "show the deployment's outputs, as recorded by the last apply",
		ArgsUsage: "[NAME]",
		Description: `Reads the outputs from state, starting only the state handlers' providers.
Sensitive outputs show as (sensitive): pier does not keep their values in
state.

Exit codes: 0 shown, 1 error (e.g. no such output), 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("output takes at most one argument, an output name")
			}
			return runOutput(c.Context, outputOptions{deployOptions: readDeployOptions(c), Name: c.Args().First()}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runOutput(ctx context.Context, o outputOptions, stdout, stderr io.Writer) error {
	view := newProgress(stderr, false, o.Verbose)
	defer view.close()
	o.ReadOnlyState = true    // a reader: no lock, so it answers during an apply
	o.UnsetVarsUnknown = true // it reads state: no variable values needed
	eng, err := newEngine(o.deployOptions, view, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	states, err := eng.States(ctx)
	if err != nil {
		return err
	}
	var handlers []string
	for h := range states {
		handlers = append(handlers, h)
	}
	sort.Strings(handlers)
	if len(handlers) == 0 {
		return fmt.Errorf("the deployment has no state handler, so it records no outputs")
	}
	outs := states[handlers[0]].Outputs
	if o.Name != "" {
		out, ok := outs[o.Name]
		if !ok {
			return fmt.Errorf("no output %q is recorded (apply first, or see pier output)", o.Name)
		}
		if o.JSON {
			writeJSONLine(stdout, outputJSON(out.Value, out.Sensitive))
		} else {
			fmt.Fprintln(stdout, outputText(out.Value, out.Sensitive))
		}
		return nil
	}
	if o.JSON {
		m := map[string]any{}
		for name, out := range outs {
			m[name] = outputJSON(out.Value, out.Sensitive)
		}
		writeJSONLine(stdout, m)
		return nil
	}
	var names []string
	for n := range outs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stdout, "%s = %s\n", n, outputText(outs[n].Value, outs[n].Sensitive))
	}
	return nil
}

// outputText renders an output value for people; sensitive values never
// show.
func outputText(v any, sensitive bool) string {
	if sensitive {
		return "(sensitive)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outputJSON renders an output for --json.
func outputJSON(v any, sensitive bool) map[string]any {
	if sensitive {
		return map[string]any{"sensitive": true}
	}
	return map[string]any{"value": v}
}
