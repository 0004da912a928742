package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/source"
)

type outputOptions struct {
	deployOptions
	Name string
	// Raw prints NAME's value alone, for scripts: a string without quotes.
	Raw bool
}

func newOutputCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "output",
		Usage:     "show the deployment's outputs, as recorded by the last apply",
		ArgsUsage: "[NAME]",
		Description: `Reads the outputs from state, starting only the state handlers' providers.
Sensitive outputs show as (sensitive value): pier does not keep their values in
state.

With --raw NAME (as terraform output -raw) the value alone is printed, for
scripts: a string as it is, without quotes or escapes, a number or bool as
text, and no newline after it. A list, map or object is refused (use
--json), and so is a sensitive output, whose value pier does not keep.

Exit codes: 0 shown, 1 error (e.g. no such output), 64 usage.`,
		Flags: append(deployFlags(), &cli.BoolFlag{Name: "raw", Usage: "print NAME's value alone: a string without quotes, for scripts"}),
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("output takes at most one argument, an output name")
			}
			o := outputOptions{deployOptions: readDeployOptions(c), Name: c.Args().First(), Raw: c.Bool("raw")}
			if o.Raw && (o.Name == "" || o.JSON) {
				return usagef("--raw prints one output's value: give its name, and no --json")
			}
			return runOutput(c.Context, o, g.stdout, g.stderr)
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
		switch {
		case o.Raw:
			text, err := outputRaw(o.Name, out.Value, out.Sensitive)
			if err != nil {
				return err
			}
			fmt.Fprint(stdout, text)
		case o.JSON:
			writeJSONLine(stdout, outputJSON(out.Value, out.Sensitive))
		default:
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
		return source.SensitiveText
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outputRaw renders a primitive output value as terraform output -raw
// does: strings as they are, numbers and bools as text.
func outputRaw(name string, v any, sensitive bool) (string, error) {
	if sensitive {
		return "", fmt.Errorf("output %q is sensitive, and pier does not keep sensitive values in state, so it has none to print", name)
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case bool, json.Number:
		return fmt.Sprint(v), nil
	case nil:
		return "", fmt.Errorf("output %q is null: --raw prints strings, numbers and bools", name)
	}
	return "", fmt.Errorf("output %q is a list, map or object: --raw prints strings, numbers and bools; use --json", name)
}

// outputJSON renders an output for --json.
func outputJSON(v any, sensitive bool) map[string]any {
	if sensitive {
		return map[string]any{"sensitive": true}
	}
	return map[string]any{"value": v}
}
