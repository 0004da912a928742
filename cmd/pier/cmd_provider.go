package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/schema"
)

const providerExitCodes = `
Exit codes: 0 the provider answered, 1 it failed (an errorResponse, or it
misbehaved: the message names the fault and its last stderr lines),
64 usage, 130 interrupted.`

// providerCallOptions are the options of one `pier provider …` request.
type providerCallOptions struct {
	Process providerProcessOptions
	Request *schema.Request
}

// runProviderCall starts the provider, runs one request and stops it. The
// response is printed by pick; the provider is always stopped, and a
// failure to stop cleanly is reported after the request's own error.
func runProviderCall(ctx context.Context, opts providerCallOptions, stdout, stderr io.Writer, pick func(*schema.Response) any) (err error) {
	cfg, err := opts.Process.config(stderr)
	if err != nil {
		return err
	}
	p, err := provider.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, p.Close()) }()
	resp, err := p.Call(ctx, opts.Process.Resource, opts.Request)
	if err != nil {
		return err
	}
	return printJSON(stdout, pick(resp))
}

func newProviderCreateCommand(g *globalOptions) *cli.Command {
	flags := append(providerProcessFlags(),
		&cli.StringFlag{Name: "type", Usage: "the resource `TYPE`", Required: true},
		&cli.GenericFlag{Name: "input-str", Value: &repeatedFlag{}, Usage: "set input `KEY=VALUE` to the string VALUE (repeatable)"},
		&cli.GenericFlag{Name: "input-json", Value: &repeatedFlag{}, Usage: "set input `KEY=JSON` to a JSON value (repeatable)"},
		&cli.StringFlag{Name: "inputs-json", Usage: "all inputs as one JSON `OBJECT`; --input-str and --input-json add to it"},
		&cli.BoolFlag{Name: "stateful", Usage: "send isStateful=true: the outputs would be recorded in state"},
	)
	return &cli.Command{
		Name:  "create",
		Usage: "send one createResourceRequest and print the outputs as JSON",
		Description: `Starts the provider, sends createResourceRequest, prints the response's
outputProperties as JSON on stdout, and stops the provider by closing its
stdin. Inputs come from --inputs-json and from --input-str name=value and
--input-json count=3 (one flag per input, repeatable; a flag takes one
value, so key and value are joined by the first "=").

  pier provider create --provider-exe ./provider.py --type greeting --input-str name=world
  pier provider create --builtin local --type file --input-str name=hello.txt --input-str contents=hi
` + providerExitCodes,
		Flags: flags,
		Action: func(c *cli.Context) error {
			proc, err := providerProcessOptionsFrom(c)
			if err != nil {
				return err
			}
			inputs, err := createInputs(c.String("inputs-json"), repeated(c, "input-str"), repeated(c, "input-json"))
			if err != nil {
				return err
			}
			return runProviderCreate(c.Context, providerCallOptions{Process: proc, Request: &schema.Request{
				CreateResourceRequest: &schema.CreateResourceRequest{Type: c.String("type"), InputProperties: inputs, IsStateful: c.Bool("stateful")},
			}}, g.stdout, g.stderr)
		},
	}
}

// createInputs merges --inputs-json with the one-input flags.
func createInputs(all string, strs, jsons []string) (schema.Properties, error) {
	inputs, err := parseObjectFlag("inputs-json", all)
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	// Errors name the flag and the key, never the value: it may be a
	// secret, and stderr often ends up in CI logs.
	set := func(flag, kv string, parse func(string) (any, error)) error {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return usagef("--%s: want KEY=VALUE, got an argument without \"=\"", flag)
		case k == "":
			return usagef("--%s: want KEY=VALUE, got an empty KEY", flag)
		}
		if prev, dup := seen[k]; dup {
			return usagef("--%s: input %q is already set by --%s", flag, k, prev)
		}
		seen[k] = flag
		val, err := parse(v)
		if err != nil {
			return usagef("--%s %s: %w", flag, k, err)
		}
		inputs[k] = val
		return nil
	}
	for _, kv := range strs {
		if err := set("input-str", kv, func(v string) (any, error) { return v, nil }); err != nil {
			return nil, err
		}
	}
	for _, kv := range jsons {
		err := set("input-json", kv, func(v string) (any, error) {
			var val any
			if err := json.Unmarshal([]byte(v), &val); err != nil {
				return nil, fmt.Errorf("want a JSON value: %w", err)
			}
			return val, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

func runProviderCreate(ctx context.Context, opts providerCallOptions, stdout, stderr io.Writer) error {
	return runProviderCall(ctx, opts, stdout, stderr, func(r *schema.Response) any { return r.CreateResourceResponse.OutputProperties })
}

func newProviderUpdateCommand(g *globalOptions) *cli.Command {
	flags := append(providerProcessFlags(),
		&cli.StringFlag{Name: "type", Usage: "the resource `TYPE`", Required: true},
		&cli.StringFlag{Name: "inputs-json", Usage: "the new inputs, a JSON `OBJECT`", Required: true},
		&cli.StringFlag{Name: "previous-inputs-json", Usage: "the inputs the resource was created with, a JSON `OBJECT`", Required: true},
		&cli.StringFlag{Name: "previous-outputs-json", Usage: "the outputs it has now, a JSON `OBJECT`"},
	)
	return &cli.Command{
		Name:        "update",
		Usage:       "send one updateResourceRequest and print the new outputs as JSON",
		Description: "Starts the provider, sends updateResourceRequest for an existing resource\n(its previous inputs and outputs) with new inputs, prints the response's\noutputProperties as JSON, and stops the provider.\n" + providerExitCodes,
		Flags:       flags,
		Action: func(c *cli.Context) error {
			proc, err := providerProcessOptionsFrom(c)
			if err != nil {
				return err
			}
			res, err := extantFromFlags(c, "previous-inputs-json", "previous-outputs-json")
			if err != nil {
				return err
			}
			inputs, err := parseObjectFlag("inputs-json", c.String("inputs-json"))
			if err != nil {
				return err
			}
			return runProviderUpdate(c.Context, providerCallOptions{Process: proc, Request: &schema.Request{
				UpdateResourceRequest: &schema.UpdateResourceRequest{Resource: res, InputProperties: inputs},
			}}, g.stdout, g.stderr)
		},
	}
}

func runProviderUpdate(ctx context.Context, opts providerCallOptions, stdout, stderr io.Writer) error {
	return runProviderCall(ctx, opts, stdout, stderr, func(r *schema.Response) any { return r.UpdateResourceResponse.OutputProperties })
}

// extantFromFlags builds the existing resource from --type and two JSON
// object flags; an absent outputs flag means no recorded outputs.
func extantFromFlags(c *cli.Context, inputsFlag, outputsFlag string) (schema.ExtantResource, error) {
	res := schema.ExtantResource{Type: c.String("type")}
	var err error
	if res.InputProperties, err = parseObjectFlag(inputsFlag, c.String(inputsFlag)); err != nil {
		return res, err
	}
	if c.IsSet(outputsFlag) {
		if res.OutputProperties, err = parseObjectFlag(outputsFlag, c.String(outputsFlag)); err != nil {
			return res, err
		}
	}
	return res, nil
}

// extantFlags are the flags that describe an existing resource.
func extantFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "type", Usage: "the resource `TYPE`", Required: true},
		&cli.StringFlag{Name: "inputs-json", Usage: "the resource's inputs, a JSON `OBJECT`", Required: true},
		&cli.StringFlag{Name: "outputs-json", Usage: "the resource's recorded outputs, a JSON `OBJECT`"},
	}
}

func newProviderDestroyCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:        "destroy",
		Usage:       "send one destroyResourceRequest (optional operation destroy)",
		Description: "Starts the provider, sends destroyResourceRequest for an existing resource,\nprints {} when the provider confirms, and stops it. The provider must\ndeclare destroy (--operations destroy; --builtin local does).\n" + providerExitCodes,
		Flags:       append(providerProcessFlags(), extantFlags()...),
		Action: func(c *cli.Context) error {
			proc, err := providerProcessOptionsFrom(c)
			if err != nil {
				return err
			}
			res, err := extantFromFlags(c, "inputs-json", "outputs-json")
			if err != nil {
				return err
			}
			return runProviderDestroy(c.Context, providerCallOptions{Process: proc, Request: &schema.Request{
				DestroyResourceRequest: &schema.DestroyResourceRequest{Resource: res},
			}}, g.stdout, g.stderr)
		},
	}
}

func runProviderDestroy(ctx context.Context, opts providerCallOptions, stdout, stderr io.Writer) error {
	return runProviderCall(ctx, opts, stdout, stderr, func(r *schema.Response) any { return r.DestroyResourceResponse })
}

func newProviderStateReadCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:        "state-read",
		Usage:       "send one stateResourceReadRequest to a state provider and print the state",
		Description: "Starts the state provider, asks for the whole state it stores, prints it\nas JSON, and stops the provider.\n" + providerExitCodes,
		Flags:       append(providerProcessFlags(), extantFlags()...),
		Action: func(c *cli.Context) error {
			proc, err := providerProcessOptionsFrom(c)
			if err != nil {
				return err
			}
			res, err := extantFromFlags(c, "inputs-json", "outputs-json")
			if err != nil {
				return err
			}
			return runProviderStateRead(c.Context, providerCallOptions{Process: proc, Request: &schema.Request{
				StateResourceReadRequest: &schema.StateResourceReadRequest{Resource: res},
			}}, g.stdout, g.stderr)
		},
	}
}

func runProviderStateRead(ctx context.Context, opts providerCallOptions, stdout, stderr io.Writer) error {
	return runProviderCall(ctx, opts, stdout, stderr, func(r *schema.Response) any { return r.StateResourceReadResponse.State })
}

func newProviderStateEventCommand(g *globalOptions) *cli.Command {
	flags := append(providerProcessFlags(), extantFlags()...)
	flags = append(flags,
		&cli.StringFlag{Name: "event", Usage: "the `OPERATION` that produced the change, e.g. create", Required: true},
		&cli.StringFlag{Name: "patch-json", Usage: "the change, an RFC 6902 JSON `PATCH` (an array)", Required: true},
		&cli.StringFlag{Name: "nixops-version", Value: version, Usage: "the `VERSION` recorded as nixopsVersion"},
	)
	return &cli.Command{
		Name:        "state-event",
		Usage:       "send one stateResourceEvent (a JSON Patch) to a state provider",
		Description: "Starts the state provider, sends one stateResourceEvent carrying the\npatch, prints {} when the provider confirms, and stops it.\n" + providerExitCodes,
		Flags:       flags,
		Action: func(c *cli.Context) error {
			proc, err := providerProcessOptionsFrom(c)
			if err != nil {
				return err
			}
			res, err := extantFromFlags(c, "inputs-json", "outputs-json")
			if err != nil {
				return err
			}
			var patch schema.Patch
			if err := json.Unmarshal([]byte(c.String("patch-json")), &patch); err != nil || patch == nil {
				if err == nil {
					err = errors.New("got null")
				}
				return usagef("--patch-json: want a JSON array of patch operations: %w", err)
			}
			return runProviderStateEvent(c.Context, providerCallOptions{Process: proc, Request: &schema.Request{
				StateResourceEvent: &schema.StateResourceEvent{Resource: res, Event: c.String("event"), NixopsVersion: c.String("nixops-version"), Patch: patch},
			}}, g.stdout, g.stderr)
		},
	}
}

func runProviderStateEvent(ctx context.Context, opts providerCallOptions, stdout, stderr io.Writer) error {
	return runProviderCall(ctx, opts, stdout, stderr, func(r *schema.Response) any { return r.StateResourceEventResponse })
}
