package diag

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/tfschema"
	"github.com/pierhq/pier/schema"
)

// own is an error that describes itself, as a front end's may.
type own struct{}

func (own) Error() string          { return "own" }
func (own) Diagnostic() Diagnostic { return Diagnostic{Severity: Warning, Summary: "own"} }

func TestFromError(t *testing.T) {
	t.Parallel()
	at := source.Range{Filename: "main.pier.hcl", Line: 3, Column: 5}
	point := &Range{Filename: "main.pier.hcl", Start: Pos{Line: 3, Column: 5}, End: Pos{Line: 3, Column: 6}}
	subject := &hcl.Range{Filename: "main.pier.hcl", Start: hcl.Pos{Line: 3, Column: 5, Byte: 20}, End: hcl.Pos{Line: 3, Column: 9, Byte: 24}}
	spanned := &Range{Filename: "main.pier.hcl", Start: Pos{3, 5, 20}, End: Pos{3, 9, 24}}
	hclDiags := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Unknown provider", Detail: "no provider \"nope\"", Subject: subject},
		{Severity: hcl.DiagWarning, Summary: "Deprecated"},
	}
	fromHCL := []Diagnostic{
		{Severity: Error, Summary: "Unknown provider", Detail: "no provider \"nope\"", Range: spanned},
		{Severity: Warning, Summary: "Deprecated"},
	}
	failed := &apply.ResourceError{Address: "out", Provider: "journal", Action: execgraph.ActionCreate,
		Err: &provider.ResponseError{Provider: "journal", Executable: "/bin/journal", Request: "createResourceRequest", Message: "disk full"}}
	tests := map[string]struct {
		err     error
		verbose bool
		want    []Diagnostic
	}{
		"nil":         {err: nil, want: nil},
		"plain":       {err: errors.New("boom"), want: []Diagnostic{{Severity: Error, Summary: "boom"}}},
		"interrupted": {err: context.Canceled, want: []Diagnostic{{Severity: Error, Summary: "interrupted"}}},
		"own":         {err: fmt.Errorf("wrapped: %w", own{}), want: []Diagnostic{{Severity: Warning, Summary: "own"}}},
		"joined, said once": {
			err:  errors.Join(errors.New("a"), errors.Join(errors.New("b"), errors.New("a"))),
			want: []Diagnostic{{Severity: Error, Summary: "a"}, {Severity: Error, Summary: "b"}},
		},
		"configuration": {err: &hclsource.DiagnosticsError{Diagnostics: hclDiags}, want: fromHCL},
		"lock file":     {err: fmt.Errorf("read: %w", &lockfile.DiagnosticsError{Diagnostics: hclDiags}), want: fromHCL},
		"bare hcl":      {err: hclDiags, want: fromHCL},
		"prevent_destroy": {
			err: &plan.PreventDestroyError{Range: at, Address: "db", Verb: "replace", Reason: "its inputs changed"},
			want: []Diagnostic{{Severity: Error, Summary: "Instance cannot be replaced", Address: "db", Range: point,
				Detail: "resource db has lifecycle.prevent_destroy set, but this plan would replace it (its inputs changed); change the plan, or remove prevent_destroy first"}},
		},
		"a precondition refuses a plan": {
			err: &plan.ConditionError{Address: "web", Result: cond(source.Precondition, "port is 0.")},
			want: []Diagnostic{{Severity: Error, Summary: "Resource precondition failed", Address: "web", Range: point,
				Detail: "port is 0.\n\nThis was checked by the precondition block of resource web at main.pier.hcl:2:3."}},
		},
		"postconditions fail a resource": {
			err: &apply.ResourceError{Address: "web", Provider: "local", Action: execgraph.ActionCreate,
				Err: errors.Join(&plan.ConditionError{Address: "web", Result: cond(source.Postcondition, "no url.")}, &plan.ConditionError{Address: "web", Result: cond(source.Postcondition, "no port.")})},
			want: []Diagnostic{{Severity: Error, Summary: "Resource postcondition failed", Address: "web", Provider: "local", Range: point,
				Detail: "no url.\n\nThis was checked by the postcondition block of resource web at main.pier.hcl:2:3.\n\nno port.\n\nThis was checked by the postcondition block of resource web at main.pier.hcl:2:3."}},
		},
		"move refused": {
			err:  &plan.MoveError{From: source.Address{{Name: "a"}}, To: source.Address{{Name: "b"}}, Range: at, Reason: "b is already in state"},
			want: []Diagnostic{{Severity: Error, Summary: "Cannot move a to b", Detail: "b is already in state.", Address: "a", Range: point}},
		},
		"provider diagnostic": {
			err: &plan.DiagnosticError{Range: at, Resource: "web", Provider: "tf", Others: 2,
				Diagnostic: schema.Diagnostic{Severity: schema.SeverityWarning, Summary: "Odd port", Attribute: schema.AttributePath{"port"}}},
			want: []Diagnostic{{Severity: Warning, Summary: "Odd port", Address: "web", Provider: "tf", Range: point,
				Detail: "resource web (provider tf): input port: Odd port; 2 more instances of this resource have it too"}},
		},
		"unknown input": {
			err: &tfschema.InputError{Range: at, Resource: "t", Provider: "time", Plugin: "tp", Type: "time_static", Attribute: "trigers", Suggestion: "triggers"},
			want: []Diagnostic{{Severity: Error, Summary: "Unknown input", Address: "t", Provider: "time", Range: point,
				Detail: `resource t (provider time, Terraform provider tp): unknown input "trigers" (did you mean "triggers"?): the schema of time_static has no such attribute or block`}},
		},
		"unknown type": {
			err: &tfschema.InputError{Resource: "t", Provider: "time", Plugin: "tp", Type: "time_statik"},
			want: []Diagnostic{{Severity: Error, Summary: "Unknown resource type", Address: "t", Provider: "time",
				Detail: `resource t (provider time, Terraform provider tp): unknown type "time_statik": the provider has no such resource type or data source`}},
		},
		"resource failed": {
			err:  failed,
			want: []Diagnostic{{Severity: Error, Summary: "create of out (provider journal) failed", Detail: "disk full", Address: "out", Provider: "journal"}},
		},
		"resource failed, verbose": {
			err: failed, verbose: true,
			want: []Diagnostic{{Severity: Error, Summary: "create of out (provider journal) failed", Detail: failed.Err.Error(), Address: "out", Provider: "journal"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, FromError(tc.err, tc.verbose)); diff != "" {
				t.Errorf("FromError (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHCLRoundTrip: a diagnostic goes to HCL's shape for the snippet
// renderer and back unchanged.
func TestHCLRoundTrip(t *testing.T) {
	t.Parallel()
	tests := map[string]Diagnostic{
		"zero":          {},
		"error, ranged": {Severity: Error, Summary: "s", Detail: "d", Range: &Range{Filename: "f", Start: Pos{1, 2, 3}, End: Pos{1, 4, 5}}},
		"warning":       {Severity: Warning, Summary: "w"},
	}
	for name, d := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := d
			if want.Severity == "" {
				want.Severity = Error
			}
			if diff := cmp.Diff(want, FromHCL(d.HCL())); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// cond is a failed condition of resource web as the HCL source words it.
func cond(kind source.ConditionKind, msg string) *source.ConditionResult {
	return &source.ConditionResult{Kind: kind, Known: true, Failed: true,
		Summary: "Resource " + kind.String() + " failed", Message: msg,
		Detail: msg + "\n\nThis was checked by the " + kind.String() + " block of resource web at main.pier.hcl:2:3.",
		Range:  source.Range{Filename: "main.pier.hcl", Line: 3, Column: 5}, Block: source.Range{Filename: "main.pier.hcl", Line: 2, Column: 3}}
}
