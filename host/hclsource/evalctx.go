package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
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
