package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/inspect"
)

func newEvalCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "evaluate an expression against the deployment and its recorded state",
		ArgsUsage: "EXPR",
		Description: `Evaluates one HCL expression and prints its value. It sees var (the
deployment's variables), path.root, the functions deployments can call,
resource.NAME.inputs and .outputs (and deployment.C.resource.NAME…, and
module.M["KEY"].resource.NAME… in a module instance) as recorded in
state, output.NAME as recorded by the last apply, and a module
instance's outputs, module.M["KEY"].NAME, evaluated against the state:

    pier eval 'resource.db.outputs.port + 1'

Sensitive values print as (sensitive value). With --json it prints
{"value": …, "type": "…", "sensitive": …}. Starts only the state handlers'
providers; pier console is the interactive form.

Exit codes: 0 evaluated, 1 error (including an invalid expression), 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("eval takes one argument, the expression (quote it)")
			}
			return runEval(c.Context, readDeployOptions(c), c.Args().First(), g.stdout, g.stderr)
		},
	}
}

func runEval(ctx context.Context, o deployOptions, expr string, stdout, stderr io.Writer) error {
	d, err := openSession(o, stderr)
	if err != nil {
		return err
	}
	in, err := d.Inspector(ctx)
	if err != nil {
		return err
	}
	r := in.Eval(expr)
	writeEvalResult(stdout, o.JSON, r)
	if r.Diagnostics.HasErrors() {
		return errors.New(diagnosticsText(r.Diagnostics))
	}
	return nil
}

// evalJSON is the --json form of an evaluated expression.
type evalJSON struct {
	MessageType string   `json:"message_type"`
	Value       any      `json:"value"`
	Type        string   `json:"type,omitempty"`
	Sensitive   bool     `json:"sensitive,omitempty"`
	Unknown     bool     `json:"unknown,omitempty"`
	Diagnostics []string `json:"diagnostics,omitempty"`
}

func writeEvalResult(w io.Writer, asJSON bool, r inspect.Result) {
	if asJSON {
		j := evalJSON{MessageType: "eval", Type: r.Type, Sensitive: r.Sensitive, Unknown: r.Unknown}
		if r.JSON != nil {
			j.Value = r.JSON
		}
		for _, d := range r.Diagnostics {
			j.Diagnostics = append(j.Diagnostics, diagnosticText(d))
		}
		writeJSONLine(w, j)
		return
	}
	if r.Diagnostics.HasErrors() {
		return
	}
	fmt.Fprintln(w, r.Text())
}

func diagnosticsText(ds hcl.Diagnostics) string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, diagnosticText(d))
	}
	return strings.Join(lines, "\n")
}

// diagnosticText renders an expression diagnostic with its column: the
// expression is one line.
func diagnosticText(d *hcl.Diagnostic) string {
	s := d.Summary
	if d.Detail != "" {
		s += ": " + d.Detail
	}
	if d.Subject != nil {
		s = fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, s)
	}
	return s
}
