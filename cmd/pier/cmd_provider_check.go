package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/conformance"
	"github.com/pierhq/pier/schema"
)

// providerCheckOptions are the flags of pier provider check.
type providerCheckOptions struct {
	providerProcessOptions
	ExitTimeout      time.Duration
	Type             string
	InputsJSON       string
	UpdateInputsJSON string
	Stateful         bool
	RequiresState    bool
	StateProvider    bool
	JSON             bool
}

func newProviderCheckCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "conformance-test a provider: run it through a scripted session and report each rule",
		Description: `Runs the provider through a scripted session, as docs/providers.md
describes the protocol: create; update (with --update-inputs-json); read
and destroy (when declared with --operations); state read, event and read
again (with --state-provider); an unknown type and an unknown input field,
both of which must get an errorResponse; a create without state for a type
that requires it (with --requires-state); several requests on one process;
nothing but JSON on stdout; and a clean exit once stdin closes. It prints
one line per check and a summary. The check really performs the
operations: give it scratch inputs.

Exit codes: 0 every check passed, 1 a check failed or the provider could
not be started, 64 usage.`,
		Flags: append(checkProcessFlags(),
			&cli.DurationFlag{Name: "exit-timeout", Value: conformance.DefaultExitTimeout, Usage: "how long the provider may take to exit after stdin closes"},
			&cli.StringFlag{Name: "type", Usage: "the resource `TYPE` to create", Required: true},
			&cli.StringFlag{Name: "inputs-json", Value: "{}", Usage: "the resource's input properties, a JSON object"},
			&cli.StringFlag{Name: "update-inputs-json", Usage: "also update the resource to these inputs, a JSON object"},
			&cli.BoolFlag{Name: "stateful", Usage: "send isStateful=true on create"},
			&cli.BoolFlag{Name: "requires-state", Usage: "the type requires state: check that a create with isStateful=false is refused"},
			&cli.BoolFlag{Name: "state-provider", Usage: "the type is a state provider: check state read, event, read"},
			&cli.BoolFlag{Name: "json", Usage: "print the results as one JSON object"},
		),
		Action: func(c *cli.Context) error {
			po, err := providerProcessOptionsFrom(c)
			if err != nil {
				return err
			}
			return runProviderCheck(c.Context, providerCheckOptions{
				providerProcessOptions: po,
				ExitTimeout:            c.Duration("exit-timeout"),
				Type:                   c.String("type"),
				InputsJSON:             c.String("inputs-json"),
				UpdateInputsJSON:       c.String("update-inputs-json"),
				Stateful:               c.Bool("stateful"),
				RequiresState:          c.Bool("requires-state"),
				StateProvider:          c.Bool("state-provider"),
				JSON:                   c.Bool("json"),
			}, g.stdout, g.stderr)
		},
	}
}

// checkProcessFlags are the shared provider flags with the check's own
// defaults: a deployment's ten-minute timeout is too long to wait on a
// hung provider in a check of a test resource.
func checkProcessFlags() []cli.Flag {
	flags := providerProcessFlags()
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.DurationFlag:
			if f.Name == "timeout" {
				f.Value = conformance.DefaultCheckTimeout
			}
		case *cli.StringFlag:
			if f.Name == "resource" {
				f.Value = conformance.DefaultResource
			}
		}
	}
	return flags
}

// checkFailedError reports failed checks; the results are already printed.
type checkFailedError struct{ failed, total int }

func (e checkFailedError) Error() string {
	return fmt.Sprintf("provider check: %d of %d checks failed", e.failed, e.total)
}

func (e checkFailedError) ExitCode() int { return exitError }

// providerCheckReport is the --json output: the same results as the text.
type providerCheckReport struct {
	MessageType string               `json:"message_type"`
	Results     []conformance.Result `json:"results"`
	Passed      int                  `json:"passed"`
	Failed      int                  `json:"failed"`
}

func runProviderCheck(ctx context.Context, o providerCheckOptions, stdout, stderr io.Writer) error {
	if o.RequiresState && !o.Stateful {
		return usagef("--requires-state needs --stateful: the create of a type that requires state must say isStateful=true")
	}
	inputs, err := parseObjectFlag("inputs-json", o.InputsJSON)
	if err != nil {
		return err
	}
	var update schema.Properties
	if o.UpdateInputsJSON != "" {
		if update, err = parseObjectFlag("update-inputs-json", o.UpdateInputsJSON); err != nil {
			return err
		}
	}
	if o.Timeout == 0 {
		o.Timeout = conformance.DefaultCheckTimeout
	}
	pcfg, err := o.config(stderr)
	if err != nil {
		return err
	}
	results, err := conformance.Check(ctx, conformance.Config{
		Provider:      pcfg,
		Resource:      o.Resource,
		Type:          o.Type,
		Inputs:        inputs,
		UpdateInputs:  update,
		Stateful:      o.Stateful,
		RequiresState: o.RequiresState,
		StateProvider: o.StateProvider,
		ExitTimeout:   o.ExitTimeout,
		NixopsVersion: version,
	})
	if err != nil {
		return err
	}
	report := providerCheckReport{MessageType: "provider_check", Results: results}
	for _, r := range results {
		if r.Passed {
			report.Passed++
		} else {
			report.Failed++
		}
	}
	if o.JSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		renderCheckResults(stdout, report)
	}
	if report.Failed > 0 {
		return checkFailedError{failed: report.Failed, total: len(results)}
	}
	return nil
}

// renderCheckResults prints "✓ name" or "✗ name: reason" per check; a
// reason's further lines (a provider's stderr tail, a hint) are indented
// under it.
func renderCheckResults(w io.Writer, report providerCheckReport) {
	for _, r := range report.Results {
		if r.Passed {
			fmt.Fprintf(w, "✓ %s\n", r.Name)
			continue
		}
		reason := strings.ReplaceAll(strings.TrimRight(r.Reason, "\n"), "\n", "\n    ")
		fmt.Fprintf(w, "✗ %s: %s\n", r.Name, reason)
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", report.Passed, report.Failed)
}
