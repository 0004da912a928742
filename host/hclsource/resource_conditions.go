package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// A resource's lifecycle block may hold precondition and postcondition
// blocks, as Terraform's does:
//
//	lifecycle {
//	  precondition {
//	    condition     = resource.db.outputs.port != 0
//	    error_message = "the database has no port yet."
//	  }
//	  postcondition {
//	    condition     = self.year >= 2024
//	    error_message = "the clock says ${self.year}."
//	  }
//	}
//
// Their references are the resource's dependencies, like those of its
// inputs; in a postcondition, self is the instance's own outputs. Both are
// evaluated with the instance, every time it is, into
// [source.Resource.Conditions], and again when its own outputs change
// (a postcondition reads them). The source only says what holds; the
// engine decides what a failure stops.

// decodeResourceCondition reads a precondition or postcondition block of
// resource r.
func (r *resourceDecl) decodeCondition(b *hcl.Block, diags *hcl.Diagnostics) {
	c, ds := decodeCondition(b)
	*diags = append(*diags, ds...)
	if c == nil {
		return
	}
	r.conditions = append(r.conditions, c)
	if c.kind == "postcondition" {
		r.postconditions = true
	}
}

// conditionExprs are the expressions of r's conditions.
func (r *resourceDecl) conditionExprs() []hcl.Expression {
	var out []hcl.Expression
	for _, c := range r.conditions {
		out = append(out, c.exprs()...)
	}
	return out
}

// linkConditions resolves the references of r's conditions. self is the
// resource's own outputs in a postcondition; a precondition, checked
// before the resource changes, has no self, and no condition may name
// its own resource (which would be a cycle).
func (d *Deployment) linkConditions(r *resourceDecl) ([]*ref, hcl.Diagnostics) {
	var refs []*ref
	var diags hcl.Diagnostics
	for _, c := range r.conditions {
		var trs []hcl.Traversal
		for _, e := range c.exprs() {
			for _, tr := range e.Variables() {
				if tr.RootName() != "self" {
					trs = append(trs, tr)
					continue
				}
				if c.kind != "postcondition" {
					diags = append(diags, diagErr(tr.SourceRange(), "Invalid reference",
						"self is available only in a postcondition block, where it is the outputs of resource %q after it is created or updated; a precondition is checked before that.", r.name))
				}
			}
		}
		rs, ds := d.analyzeTraversals(r.scope, trs, r.expand)
		diags = append(diags, ds...)
		for _, x := range rs {
			if x.target == r {
				hint := "a precondition is checked before the resource changes, so it cannot read it."
				if c.kind == "postcondition" {
					hint = "use self.NAME for its outputs."
				}
				diags = append(diags, diagErr(x.rng, "Self-referential block",
					"a %s of resource %q cannot refer to the resource itself: %s", c.kind, r.name, hint))
				continue
			}
			refs = append(refs, x)
		}
	}
	return refs, diags
}

// evalConditions evaluates the conditions of one instance in ctx (the
// block's context with the instance's count or each), after its inputs.
// It returns the results and the instances the conditions read. A
// condition that cannot be evaluated fails, with the reason: the engine
// reports it for the resource, at plan or when the resource runs.
func (d *Deployment) evalConditions(r *resourceDecl, inst *instance, ctx *hcl.EvalContext) ([]*source.ConditionResult, []string) {
	if vars := inst.evalVars(r); vars != nil {
		ctx = ctx.NewChild()
		ctx.Variables = vars
	}
	var pctx *hcl.EvalContext
	out := make([]*source.ConditionResult, 0, len(r.conditions))
	var reads []string
	for _, c := range r.conditions {
		cctx := ctx
		kind := source.Precondition
		if c.kind == "postcondition" {
			kind = source.Postcondition
			if pctx == nil {
				pctx = ctx.NewChild()
				pctx.Variables = map[string]cty.Value{"self": inst.markedValue().GetAttr("outputs")}
			}
			cctx = pctx
		}
		res, ds := c.eval(cctx)
		if ds.HasErrors() {
			res = conditionResult{known: true, failed: true, message: d.evalFailure(ds)}
		}
		reads = append(reads, readsFrom(res.marks)...)
		cr := &source.ConditionResult{
			Kind:  kind,
			Known: res.known,
			Range: toSourceRange(c.cond.Range()),
			Block: toSourceRange(c.rng),
		}
		if res.failed {
			cr.Failed = true
			cr.Summary = "Resource " + c.kind + " failed"
			cr.Message = res.message
			cr.Detail = c.failureDetail("resource "+inst.addrStr, res)
		}
		out = append(out, cr)
	}
	return out, reads
}

// withReads adds the instances a resource's conditions read to those its
// inputs read, once each.
func withReads(reads, more []string) []string {
	if len(more) == 0 {
		return reads
	}
	seen := make(map[string]bool, len(reads)+len(more))
	for _, a := range reads {
		seen[a] = true
	}
	for _, a := range more {
		if !seen[a] {
			seen[a] = true
			reads = append(reads, a)
		}
	}
	return reads
}
