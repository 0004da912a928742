package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
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

// checkDecl is one check block, or pier test's asserts of one run.
type checkDecl struct {
	addr     string // check.NAME, or run.NAME
	asserts  []*condition
	refs     []*ref
	tree     *ctxNode
	outputs  []*outputDecl // the outputs read, by pier test's asserts
	defRange hcl.Range
	dirty    bool
	results  []*source.CheckResult
}

func (d *Deployment) decodeCheck(addr string, rng hcl.Range, body hcl.Body) hcl.Diagnostics {
	for _, c := range d.checks {
		if c.addr == addr {
			return hcl.Diagnostics{diagErr(rng, "Duplicate check",
				"%s is already declared at %s.", addr, rangeString(c.defRange))}
		}
	}
	content, diags := body.Content(checkSchema)
	if len(content.Blocks) == 0 && !diags.HasErrors() {
		return hcl.Diagnostics{diagErr(rng, "Missing assert block", "%s needs at least one assert block.", addr)}
	}
	return append(diags, d.addCheck(addr, rng, content.Blocks, false)...)
}

// decodeAsserts adds pier test's asserts of one run as a check whose
// asserts may read output.NAME.
func (d *Deployment) decodeAsserts(a *Asserts) hcl.Diagnostics {
	return d.addCheck(a.Name, a.Range, a.Blocks, true)
}

func (d *Deployment) addCheck(addr string, rng hcl.Range, blocks hcl.Blocks, outputs bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	c := &checkDecl{addr: addr, defRange: rng}
	var exprs []hcl.Expression
	for _, ab := range blocks {
		if ab.Type != "assert" {
			continue
		}
		a, ds := decodeCondition(ab)
		diags = append(diags, ds...)
		if a == nil {
			continue
		}
		c.asserts = append(c.asserts, a)
		exprs = append(exprs, a.exprs()...)
	}
	seen := map[*outputDecl]bool{}
	for _, e := range exprs {
		var trs []hcl.Traversal
		for _, tr := range e.Variables() {
			if !outputs || tr.RootName() != "output" {
				trs = append(trs, tr)
				continue
			}
			o, ds := d.outputRef(tr)
			diags = append(diags, ds...)
			if o != nil && !seen[o] {
				// The check reads what the output reads.
				seen[o] = true
				c.outputs = append(c.outputs, o)
				c.refs = append(c.refs, o.refs...)
			}
		}
		refs, ds := d.analyzeTraversals(d.scope, trs, expandNone)
		diags = append(diags, ds...)
		c.refs = append(c.refs, refs...)
	}
	c.tree = d.exprTree(d.rootUnit, c.refs, exprs...)
	d.checks = append(d.checks, c)
	return diags
}

// outputRef finds the output an output.NAME reference reads.
func (d *Deployment) outputRef(tr hcl.Traversal) (*outputDecl, hcl.Diagnostics) {
	name, nr, ok := stepName(tr, 1)
	if !ok {
		return nil, hcl.Diagnostics{diagErr(tr.SourceRange(), "Invalid reference", "output must be followed by an output name, as in output.NAME.")}
	}
	var names []string
	for _, o := range d.outputs {
		if o.name == name {
			return o, nil
		}
		names = append(names, o.name)
	}
	return nil, hcl.Diagnostics{diagErr(nr, "Undeclared output", "no output %q is declared.%s", name, suggest(name, names))}
}

// evalCheck evaluates every assert of c. An assert that cannot be
// evaluated fails with the reason, as a warning like the rest: a check
// must not stop a deployment.
func (d *Deployment) evalCheck(c *checkDecl) {
	c.dirty = false
	c.results = nil // a new slice: earlier snapshots keep theirs
	addr := c.addr
	ctx := d.baseCtx.NewChild()
	vars, diags := d.refVariables(c.tree)
	if len(c.outputs) > 0 {
		outs := make(map[string]cty.Value, len(c.outputs))
		for _, o := range c.outputs {
			outs[o.name] = cty.DynamicVal
			if o.val != cty.NilVal {
				outs[o.name] = o.val
			}
		}
		vars["output"] = cty.ObjectVal(outs)
	}
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
			r.Message = d.evalFailure(ds)
			// Evaluated again next time: what it read may be known then.
			c.dirty = true
			continue
		}
		r.Known, r.Failed, r.Message = res.known, res.failed, res.message
	}
}
