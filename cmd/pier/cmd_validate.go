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
	"github.com/pierhq/pier/host/diag"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
	"github.com/pierhq/pier/schema"
)

// validateOptions are the flags of pier validate.
type validateOptions struct {
	deployOptions
}

func newValidateCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check the deployment without reading state or changing anything",
		Description: `Loads the deployment and evaluates it as far as it can without state: every
block, reference, variable, local and function call is checked, as plan
would. It then checks each resource against what its provider accepts,
where pier can know that without changing anything: the types and inputs
of the builtin local provider, and for a Terraform provider its schema and
its own validation, as terraform validate does (required inputs, types,
conflicts, allowed values; the provider starts once, unconfigured, and
checks each resource whose inputs are known). A JSON-lines (v0) provider
declares no schema, so its resources are checked for their references
only. No state handler is started and no state file is opened.

Exit codes: 0 valid, 1 invalid (each problem is shown with its source
line, or with --json as a diagnostic), 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("validate takes no arguments; use --dir to name the deployment")
			}
			o := validateOptions{readDeployOptions(c)}
			o.UnsetVarsUnknown = true // as terraform validate: values are not needed
			return runValidate(c.Context, o, g.colourOut(g.stdout), g.stderr)
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

// Diagnostic implements [diag.Diagnoser].
func (p *validateProblem) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: diag.Error, Summary: p.summary, Detail: p.detail, Address: p.address, Provider: p.prov, Range: diag.PointRange(p.rng, p.width)}
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
	// Ready resources' inputs are all known, so their providers can check
	// them whole; a blocked one waits on outputs, and only its names are
	// checked.
	known := make(map[*source.Resource]bool, len(snap.Ready))
	for _, r := range snap.Ready {
		// A variable without a value is unknown here.
		known[r] = !hasUnknown(r.Inputs)
	}
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
		problems = append(problems, v.check(ctx, r, p, known[r])...)
		// What the plan would refuse: a condition known to fail, or one
		// that cannot be evaluated (not a bool, an unknown function).
		problems = append(problems, plan.FailedConditions(r)...)
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	if o.JSON {
		writeJSONLine(stdout, map[string]any{"message_type": "validate", "valid": true, "resources": len(resources)})
		return nil
	}
	fmt.Fprintf(stdout, "%s The deployment is valid (%d resources).\n", paintW(stdout, sgrGreen+sgrBold, "Success!"), len(resources))
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

// check returns what is wrong with r's inputs. known says they are all
// known, so that a Terraform provider can validate them itself.
func (v *validator) check(ctx context.Context, r *source.Resource, p *source.Provider, known bool) []error {
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
		unknown := t.Check(r.Inputs)
		for _, u := range unknown {
			report(&validateProblem{summary: "Unknown input", rng: v.locator.Locate(r.Range, u.Path), width: lastKeyWidth(u.Path), address: addr, prov: r.Provider,
				detail: fmt.Sprintf("the schema of %s has no attribute or block %q.%s", r.Type, u.Attribute(), didYouMean(u.Suggestion))})
		}
		if len(unknown) > 0 || !known {
			return out
		}
		// What plan's preview would refuse: required inputs, types,
		// conflicts, allowed values. The provider answers unconfigured,
		// as under terraform validate.
		diags, err := v.fetcher.Validate(ctx, p.Terraform, r.Type, r.Inputs)
		if err != nil {
			return append(out, fmt.Errorf("%s: validate resource %s (provider %s): %w", r.Range, addr, r.Provider, err))
		}
		// The provider's order is not stable (SDKv2 walks a map): say them
		// in the order of the file.
		type located struct {
			d   schema.Diagnostic
			rng source.Range
		}
		var found []located
		for _, d := range diags {
			if d.Severity == schema.SeverityError {
				found = append(found, located{d, v.locator.Locate(r.Range, d.Attribute)})
			}
		}
		slices.SortStableFunc(found, func(a, b located) int {
			if a.rng.Line != b.rng.Line {
				return a.rng.Line - b.rng.Line
			}
			if a.rng.Column != b.rng.Column {
				return a.rng.Column - b.rng.Column
			}
			return strings.Compare(a.d.Summary+a.d.Detail, b.d.Summary+b.d.Detail)
		})
		for _, f := range found {
			d := f.d
			summary, detail := d.Summary, d.Detail
			if detail == "" {
				// SDKv2 validators say it all in the summary.
				summary, detail = "Invalid input", d.Summary
			}
			if len(d.Attribute) > 0 {
				detail = fmt.Sprintf("input %s: %s", attributeText(d.Attribute), detail)
			}
			report(&validateProblem{summary: summary, rng: f.rng, width: lastKeyWidth(d.Attribute), address: addr, prov: r.Provider,
				detail: strings.TrimSuffix(detail, ".") + "."})
		}
	}
	return out
}

// hasUnknown reports whether v holds a value known only later.
func hasUnknown(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if hasUnknown(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasUnknown(e) {
				return true
			}
		}
	default:
		return source.IsUnknown(v)
	}
	return false
}

// lastKeyWidth is the width of a path's last step when it is a name, for
// the underline under it; 0 otherwise.
func lastKeyWidth(path []any) int {
	if len(path) == 0 {
		return 0
	}
	if k, ok := path[len(path)-1].(string); ok {
		return len(k)
	}
	return 0
}

// attributeText writes an attribute path as an HCL traversal: a.b[0].
func attributeText(path []any) string {
	var b strings.Builder
	for i, step := range path {
		switch s := step.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		default:
			fmt.Fprintf(&b, "[%v]", s)
		}
	}
	return b.String()
}

func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", s)
}
