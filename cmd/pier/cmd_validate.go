package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
)

func init() { register(newValidateCommand) }

// validateOptions are the flags of pier validate.
type validateOptions struct {
	deployOptions
}

func newValidateCommand() *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check the deployment without reading state or changing anything",
		Description: `Loads the deployment and evaluates it as far as it can without state: every
block, reference, variable, local and function call is checked, as plan
would. It then checks each resource against what its provider accepts,
where pier can know that without changing anything: the types and inputs
of the builtin local provider, and the schema of a Terraform provider
(which starts the provider once to ask). A JSON-lines (v0) provider
declares no schema, so its resources are checked for their references
only. No state handler is started and no state file is opened.

Exit codes: 0 valid, 1 invalid (each problem is shown with its source
line, or with --json as a diagnostic), 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("validate takes no arguments; use --dir to name the deployment")
			}
			return runValidate(c.Context, validateOptions{readDeployOptions(c)}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// validateProblem is one thing validate found wrong with a resource.
type validateProblem struct {
	summary, detail string
	rng             source.Range
	address, prov   string
	width           int // of the range, in columns; 0 means 1
}

func (p *validateProblem) Error() string {
	return fmt.Sprintf("%s: %s: %s", p.rng, p.summary, p.detail)
}

func (p *validateProblem) diagnostic() diagnostic {
	d := diagnostic{Severity: "error", Summary: p.summary, Detail: p.detail, Address: p.address, Provider: p.prov}
	if p.rng.Filename != "" {
		d.Range = &diagRange{Filename: p.rng.Filename,
			Start: diagPos{Line: p.rng.Line, Column: p.rng.Column},
			End:   diagPos{Line: p.rng.Line, Column: p.rng.Column + max(p.width, 1)}}
	}
	return d
}

func runValidate(ctx context.Context, o validateOptions, stdout, stderr io.Writer) error {
	src, dir, err := loadSource(o.deployOptions, slog.New(slog.DiscardHandler), stderr)
	if err != nil {
		return err
	}
	snap, err := src.Resolve(ctx, nil)
	if err != nil {
		return err
	}
	resources := slices.Clone(snap.Ready)
	for _, b := range snap.Blocked {
		if b.Resource != nil && !b.Structural {
			resources = append(resources, b.Resource)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find pier's own executable for provider schemas: %w", err)
	}
	v := validator{
		locator: &tfschema.Locator{},
		fetcher: &tfschema.Fetcher{Pier: self, Dir: dir},
		local:   local.Inputs(),
		seen:    map[string]bool{},
	}
	defer v.fetcher.Close()
	var problems []error
	for _, r := range resources {
		p := snap.Providers[r.Provider]
		if p == nil {
			continue
		}
		problems = append(problems, v.check(ctx, r, p)...)
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	if o.JSON {
		writeJSONLine(stdout, map[string]any{"message_type": "validate", "valid": true, "resources": len(resources)})
		return nil
	}
	fmt.Fprintf(stdout, "%s The deployment is valid (%d resources).\n", paint(colourFor(stdout), sgrGreen+sgrBold, "Success!"), len(resources))
	return nil
}

// validator checks resources against what their providers accept.
type validator struct {
	locator *tfschema.Locator
	fetcher *tfschema.Fetcher
	local   map[string][]string
	// seen says each mistake once per declaration, not per instance.
	seen map[string]bool
}

func (v *validator) check(ctx context.Context, r *source.Resource, p *source.Provider) []error {
	var out []error
	report := func(e *validateProblem) {
		key := e.rng.String() + "\x00" + e.summary + "\x00" + e.detail
		if !v.seen[key] {
			v.seen[key] = true
			out = append(out, e)
		}
	}
	addr := r.Address.String()
	switch {
	case p.Builtin == "local":
		names, ok := v.local[r.Type]
		if !ok {
			types := slices.Sorted(maps.Keys(v.local))
			report(&validateProblem{summary: "Unknown resource type", rng: r.Range, address: addr, prov: r.Provider,
				detail: fmt.Sprintf("the local provider has no type %q; it has %s.%s", r.Type, strings.Join(types, ", "), didYouMean(tfschema.Suggest(r.Type, types)))})
			return out
		}
		for _, k := range slices.Sorted(maps.Keys(r.Inputs)) {
			if !slices.Contains(names, k) {
				report(&validateProblem{summary: "Unknown input", rng: v.locator.Locate(r.Range, []any{k}), width: len(k), address: addr, prov: r.Provider,
					detail: fmt.Sprintf("the local type %s has no input %q; it takes %s.%s", r.Type, k, strings.Join(names, ", "), didYouMean(tfschema.Suggest(k, names)))})
			}
		}
	case p.Terraform != "":
		s, err := v.fetcher.Schema(ctx, p.Terraform, nil) // validating configures nothing
		if err != nil {
			return []error{fmt.Errorf("read the schema of provider %s for resource %s: %w", r.Provider, addr, err)}
		}
		t := s.Types[r.Type]
		if t == nil {
			report(&validateProblem{summary: "Unknown resource type", rng: r.Range, address: addr, prov: r.Provider,
				detail: fmt.Sprintf("the Terraform provider %s has no resource type or data source %q.%s", r.Provider, r.Type, didYouMean(tfschema.Suggest(r.Type, s.TypeNames())))})
			return out
		}
		for _, u := range t.Check(r.Inputs) {
			width := 0
			if k, ok := u.Path[len(u.Path)-1].(string); ok {
				width = len(k)
			}
			report(&validateProblem{summary: "Unknown input", rng: v.locator.Locate(r.Range, u.Path), width: width, address: addr, prov: r.Provider,
				detail: fmt.Sprintf("the schema of %s has no attribute or block %q.%s", r.Type, u.Attribute(), didYouMean(u.Suggestion))})
		}
	}
	return out
}

func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", s)
}
