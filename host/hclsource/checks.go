package hclsource

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
)

// A check block states what should hold of the deployment, as
// Terraform's does, and warns when it does not; it never fails a plan or
// an apply:
//
//	check "site" {
//	  assert {
//	    condition     = resource.web.outputs.status == 200
//	    error_message = "the site answers ${resource.web.outputs.status}."
//	  }
//	}
//
// Its asserts read what outputs read. Like outputs, a check is evaluated
// again only when something it reads changed, so checks cost nothing in
// the rounds of an apply that do not touch them.

var checkSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "assert"}}}

// checkDecl is one check block.
type checkDecl struct {
	name     string
	asserts  []*condition
	refs     []*ref
	tree     *ctxNode
	defRange hcl.Range
	dirty    bool
	results  []*source.CheckResult
}

func (d *Deployment) decodeCheck(b *hcl.Block) hcl.Diagnostics {
	name := b.Labels[0]
	for _, c := range d.checks {
		if c.name == name {
			return hcl.Diagnostics{diagErr(b.DefRange, "Duplicate check",
				"check %q is already declared at %s.", name, rangeString(c.defRange))}
		}
	}
	content, diags := b.Body.Content(checkSchema)
	c := &checkDecl{name: name, defRange: b.DefRange}
	var exprs []hcl.Expression
	for _, ab := range content.Blocks {
		a, ds := decodeCondition(ab)
		diags = append(diags, ds...)
		if a == nil {
			continue
		}
		c.asserts = append(c.asserts, a)
		exprs = append(exprs, a.exprs()...)
	}
	if len(c.asserts) == 0 && !diags.HasErrors() {
		diags = append(diags, diagErr(b.DefRange, "Missing assert block", "check %q needs at least one assert block.", name))
	}
	for _, e := range exprs {
		refs, ds := d.analyze(d.scope, e, expandNone)
		diags = append(diags, ds...)
		c.refs = append(c.refs, refs...)
	}
	c.tree = d.exprTree(d.rootUnit, c.refs, exprs...)
	d.checks = append(d.checks, c)
	return diags
}

// evalCheck evaluates every assert of c. An assert that cannot be
// evaluated fails with the reason, as a warning like the rest: a check
// must not stop a deployment.
func (d *Deployment) evalCheck(c *checkDecl) {
	c.dirty = false
	c.results = nil // a new slice: earlier snapshots keep theirs
	addr := "check." + c.name
	ctx := d.baseCtx.NewChild()
	vars, diags := d.refVariables(c.tree)
	ctx.Variables = vars
	for _, a := range c.asserts {
		r := &source.CheckResult{Check: addr, Range: toSourceRange(a.rng)}
		c.results = append(c.results, r)
		ds := diags
		var res conditionResult
		if !ds.HasErrors() {
			ds = append(ds, d.checkOutputs(c.refs)...)
		}
		if !ds.HasErrors() {
			res, ds = a.eval(ctx)
		}
		if ds.HasErrors() {
			r.Known, r.Failed = true, true
			var msgs []string
			for _, dg := range RedactDiagnostics(ds, d.baseCtx.Functions) {
				msgs = append(msgs, formatDiagnostic(dg))
			}
			r.Message = "the condition could not be evaluated: " + strings.Join(msgs, "; ")
			// Evaluated again next time: what it read may be known then.
			c.dirty = true
			continue
		}
		r.Known, r.Failed, r.Message = res.known, res.failed, res.message
	}
}
