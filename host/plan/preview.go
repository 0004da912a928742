package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/internal/workers"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
	"github.com/pierhq/pier/schema"
)

// previewChanges asks each provider that declares the preview operation
// about the creates and updates it will carry out: the plan fails with
// the provider's error diagnostics, shows the outputs the provider plans,
// and turns the updates it says replace the object into [ActionReplace].
// Only resources being created or updated are asked, so an unchanged
// deployment still starts no provider. Pending changes are not: their
// inputs are not known yet; the provider decides when they run.
func previewChanges(ctx context.Context, e *engine.Engine, p *Plan) error {
	var todo []*Change
	for _, c := range p.Changes {
		if !previewable(c) || !e.Providers().Supports(c.Resource.Provider, schema.OperationPreview) {
			continue
		}
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return nil
	}
	loc := &tfschema.Locator{}
	if l := e.Locator(); l != nil {
		loc = l // the input check parsed the files already
	}
	// The pools bound each provider; this bounds the goroutines waiting
	// for them, as apply bounds its workers.
	errs := make([]error, len(todo))
	diags := make([][]*DiagnosticError, len(todo))
	workers.Each(len(todo), e.Parallelism(), func(i int) {
		c := todo[i]
		secrets := c.SecretTexts()
		e.Secrets().Set(c.Addr(), secrets)
		diags[i], errs[i] = preview(ctx, e, c, loc)
		if len(secrets) > 0 {
			errs[i] = redact.Error(errs[i], secrets)
			for j, d := range diags[i] {
				diags[i][j] = d.redacted(secrets)
			}
		}
	})
	// Instances of one declaration (count, for_each) share their
	// mistakes: say each once, in plan order.
	seen := map[string]*DiagnosticError{}
	for _, ds := range diags {
		for _, d := range ds {
			key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", d.Range, d.Diagnostic.Severity, d.Diagnostic.Summary, d.Diagnostic.Detail, d.Diagnostic.Attribute)
			if first, dup := seen[key]; dup && d.Range.Filename != "" {
				first.Others++
				continue
			}
			seen[key] = d
			if d.Diagnostic.Severity == schema.SeverityWarning {
				p.Warnings = append(p.Warnings, d.Error())
				continue
			}
			errs = append(errs, d)
		}
	}
	return errors.Join(errs...)
}

// previewable reports whether a change is a create or update a provider
// carries out, with known inputs: not a pending one, and not an update
// that only moves its record to another state handler. A replace that
// changes the type is asked about the create of the new type.
func previewable(c *Change) bool {
	if c.Pending || c.StateHandler || c.Structural || c.Resource == nil {
		return false
	}
	switch c.Action {
	case execgraph.ActionCreate:
		return true
	case execgraph.ActionReplace:
		return c.Prior != nil && c.Prior.Entry.Type != c.Resource.Type
	case execgraph.ActionUpdate:
		return c.Prior != nil && c.Prior.Entry.Type == c.Resource.Type && !SameInputs(c.Resource.Inputs, c.Prior.Entry.InputProperties)
	}
	return false
}

// preview asks one change's provider what its create or update would do.
// It touches only c, so previews of different changes run side by side;
// it returns the provider's diagnostics, placed.
func preview(ctx context.Context, e *engine.Engine, c *Change, loc *tfschema.Locator) ([]*DiagnosticError, error) {
	r := c.Resource
	r.ProviderPlan = "" // a plan from an earlier preview is for another change
	req := &schema.PreviewResourceRequest{Type: r.Type, InputProperties: r.Inputs}
	what := "create"
	if c.Action == execgraph.ActionUpdate {
		prior := c.Prior.Entry
		req.Resource = &schema.ExtantResource{Type: prior.Type, InputProperties: prior.InputProperties, OutputProperties: prior.OutputProperties}
		what = "update"
	} else {
		req.IsStateful = r.Stateful()
	}
	resp, err := e.Providers().Call(ctx, r.Provider, c.Addr(), &schema.Request{PreviewResourceRequest: req})
	if err != nil {
		return nil, fmt.Errorf("preview the %s of %s (provider %s): %w", what, c.Addr(), r.Provider, err)
	}
	pr := resp.PreviewResourceResponse
	var diags []*DiagnosticError
	failed := false
	for _, d := range pr.Diagnostics {
		diags = append(diags, &DiagnosticError{Range: loc.Locate(r.Range, locatorPath(d.Attribute)), Resource: c.Addr(), Provider: r.Provider, Diagnostic: d})
		failed = failed || d.Severity != schema.SeverityWarning
	}
	if failed {
		return diags, nil
	}
	if pr.Replace && c.Action == execgraph.ActionUpdate {
		c.Action = execgraph.ActionReplace
		c.Note = replaceNote(pr.ReplaceReasons, c.Note)
		return diags, nil
	}
	c.Planned = plannedOutputs(pr)
	r.ProviderPlan = pr.Plan
	return diags, nil
}

// DiagnosticError is a provider's error diagnostic about a change, found
// while planning, with the position of the input it names (or of the
// resource).
type DiagnosticError struct {
	Range      source.Range
	Resource   string
	Provider   string
	Diagnostic schema.Diagnostic
	// Others counts further instances of the same declaration (count,
	// for_each) with the same diagnostic.
	Others int
}

func (e *DiagnosticError) Error() string {
	var b strings.Builder
	if pos := e.Range.String(); pos != "" {
		b.WriteString(pos + ": ")
	}
	fmt.Fprintf(&b, "resource %s (provider %s): ", e.Resource, e.Provider)
	if len(e.Diagnostic.Attribute) > 0 {
		fmt.Fprintf(&b, "input %s: ", e.Diagnostic.Attribute)
	}
	b.WriteString(e.Diagnostic.Summary)
	if e.Diagnostic.Detail != "" {
		b.WriteString(": " + e.Diagnostic.Detail)
	}
	if e.Others > 0 {
		fmt.Fprintf(&b, "; %d more instances of this resource have it too", e.Others)
	}
	return b.String()
}

var _ redact.Redactable = (*DiagnosticError)(nil)

// Redacted returns a copy of e with secrets replaced in its text.
func (e *DiagnosticError) Redacted(secrets []string) error { return e.redacted(secrets) }

func (e *DiagnosticError) redacted(secrets []string) *DiagnosticError {
	c := *e
	c.Diagnostic.Summary = redact.Text(c.Diagnostic.Summary, secrets)
	c.Diagnostic.Detail = redact.Text(c.Diagnostic.Detail, secrets)
	return &c
}

// locatorPath gives a diagnostic's attribute path the step types the
// locator reads: names as strings, list indexes as ints.
func locatorPath(p schema.AttributePath) []any {
	out := make([]any, 0, len(p))
	for _, step := range p {
		if i, ok := schema.StepIndex(step); ok {
			out = append(out, i)
		} else {
			out = append(out, fmt.Sprint(step))
		}
	}
	return out
}

// plannedOutputs are a preview's planned outputs, with [source.Unknown]
// at the paths known only after apply; nil when the provider told none.
// It takes pr's planned outputs over and marks them in place, as it
// always did their nested values: the response was decoded for this
// preview alone, and nothing reads it after (a copy was 0.65 MB of the
// command's allocations planning 1000 bridged resources).
func plannedOutputs(pr *schema.PreviewResourceResponse) map[string]any {
	if pr.PlannedOutputProperties == nil && len(pr.UnknownOutputs) == 0 {
		return nil
	}
	out := map[string]any(pr.PlannedOutputProperties)
	if out == nil {
		out = make(map[string]any)
	}
	for _, p := range pr.UnknownOutputs {
		setUnknown(out, p)
	}
	return out
}

// setUnknown puts [source.Unknown] at path p of v, as far as the path
// leads through objects and lists.
func setUnknown(v any, p schema.AttributePath) {
	for i, step := range p {
		last := i == len(p)-1
		switch x := v.(type) {
		case map[string]any:
			key, isString := step.(string)
			if !isString {
				key = fmt.Sprint(step)
			}
			if last {
				x[key] = source.Unknown
				return
			}
			v = x[key]
		case []any:
			idx, ok := schema.StepIndex(step)
			if !ok || idx < 0 || idx >= len(x) {
				return
			}
			if last {
				x[idx] = source.Unknown
				return
			}
			v = x[idx]
		default:
			return
		}
	}
}

// replaceNote says which attributes force the replacement, keeping a note
// the change already had (e.g. that it moves to another state).
func replaceNote(reasons []string, prior string) string {
	var why string
	switch len(reasons) {
	case 0:
		why = "the provider cannot update it in place"
	case 1:
		why = reasons[0] + " forces a new object"
	default:
		why = strings.Join(reasons, ", ") + " force a new object"
	}
	if prior != "" {
		return why + "; " + prior
	}
	return why
}
