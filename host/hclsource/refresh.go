package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// decodeRefresh reads a resource's refresh attribute: true makes every
// plan read the recorded object, as --refresh=ADDR does. Like the
// lifecycle settings it must be known when the deployment loads, since it
// decides which providers a plan starts.
func (d *Deployment) decodeRefresh(r *resourceDecl, attrs hcl.Attributes, diags *hcl.Diagnostics) bool {
	a, ok := attrs["refresh"]
	if !ok {
		return false
	}
	v, ds := a.Expr.Value(d.baseCtx)
	*diags = append(*diags, ds...)
	if ds.HasErrors() {
		return false
	}
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.Bool {
		*diags = append(*diags, diagErr(a.Expr.Range(), "Invalid refresh setting",
			"refresh of resource %q must be true or false, known when the deployment loads.", r.name))
		return false
	}
	return v.True()
}
