package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// decodeRefresh reads a resource's refresh attribute: true makes every
// plan read the recorded object, as --refresh=ADDR does. Like the
// lifecycle settings it must be known when the deployment loads, since it
// decides which providers a plan starts.
// It also says whether the block sets it at all: a block's own setting
// wins over its provider's.
func (d *Deployment) decodeRefresh(ctx *hcl.EvalContext, what string, attrs hcl.Attributes, diags *hcl.Diagnostics) (refresh, set bool) {
	a, ok := attrs["refresh"]
	if !ok {
		return false, false
	}
	v, ds := a.Expr.Value(ctx)
	*diags = append(*diags, ds...)
	if ds.HasErrors() {
		return false, false
	}
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.Bool {
		*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid refresh setting",
			"refresh of %s must be true or false, known when the deployment loads.", what))
		return false, false
	}
	return v.True(), true
}
