package hclsource

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/pierhq/pier/host/source"
)

// EvalContext returns a child of the context every block is evaluated in:
// var (sensitive variables marked with [SensitiveMark]), path.root and the
// functions. The inspector (pier eval, pier console, the RPC service) adds
// recorded state to it. Changing the child does not change the
// deployment.
func (d *Deployment) EvalContext() *hcl.EvalContext { return d.baseCtx.NewChild() }

// Functions are the functions deployments can call, for evaluating
// expressions outside an HCL deployment (a Nix one).
func Functions() map[string]function.Function { return functions() }

// SensitiveMark is the cty mark on sensitive values: those of sensitive
// variables, and resource inputs and outputs that are sensitive (see
// sensitive.go).
var SensitiveMark any = sensitiveMark{}

// IsSensitive reports whether v or anything inside it is marked
// sensitive.
func IsSensitive(v cty.Value) bool { return hasSensitive(v) }

// OutputNames lists the deployment's output blocks, in declaration order.
func (d *Deployment) OutputNames() []string {
	names := make([]string, 0, len(d.outputs))
	for _, o := range d.outputs {
		names = append(names, o.name)
	}
	return names
}

// ModuleOutput is the value of one output of one module instance.
type ModuleOutput struct {
	// Module is the instance's address, module.site["blog"].
	Module source.Address
	Name   string
	// Value is unknown where the output reads what known does not hold,
	// and marked with [SensitiveMark] where it is sensitive.
	Value cty.Value
}

// ModuleOutputs resolves the deployment against known (the recorded
// outputs, by address) and evaluates the outputs of every module
// instance, nested ones too, for the inspector: pier eval
// 'module.site["blog"].url'. The deployment is resolved in doing so.
//
// A deployment without modules is not resolved, and has none.
func (d *Deployment) ModuleOutputs(ctx context.Context, known source.Outputs) ([]ModuleOutput, error) {
	if len(d.rootUnit.modules) == 0 {
		return nil, nil
	}
	if _, err := d.Resolve(ctx, known); err != nil {
		return nil, err
	}
	var out []ModuleOutput
	var diags hcl.Diagnostics
	for _, u := range d.units {
		if u.call == nil || u.call.unknownKeys {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(u.outputs)) {
			v, ds := d.localValue(u.outputs[name])
			diags = append(diags, ds...)
			out = append(out, ModuleOutput{Module: u.scope.path, Name: name, Value: sensitiveOnly(v)})
		}
	}
	if diags.HasErrors() {
		return nil, &DiagnosticsError{Diagnostics: RedactDiagnostics(diags, d.baseCtx.Functions), Files: d.files}
	}
	return out, nil
}

// sensitiveOnly drops every mark of v but the sensitive one: the read
// marks say what a value read for Resolve's cache, and mean nothing to a
// reader of the value.
func sensitiveOnly(v cty.Value) cty.Value {
	if !v.ContainsMarked() {
		return v
	}
	u, pvms := v.UnmarkDeepWithPaths()
	var keep []cty.PathValueMarks
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[sensitiveMark{}]; ok {
			keep = append(keep, cty.PathValueMarks{Path: pvm.Path, Marks: cty.NewValueMarks(sensitiveMark{})})
		}
	}
	return u.MarkWithPaths(keep)
}
