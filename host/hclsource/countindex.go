package hclsource

import (
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// This file lets the instances of a block with count read count.index
// without an object for count. Through HCL, each instance's count.index
// costs a new object type and value for count (cty.ObjectVal builds the
// type each time), two traversal steps that allocate, and, in a string
// template such as "node-${count.index}", the shortest decimal form of a
// big.Float: together about a kilobyte per instance, a tenth of a large
// block's evaluation. An inputs expression whose every reference to
// count is a plain count.index in nodes that evaluate their children
// through Value alone ([descendable]) is evaluated instead with those
// references replaced by nodes that read the index from the instance's
// context, where the instance puts it (see [evalScratch]).
//
// The rewritten expression, evaluated once per instance, also gets
// cheaper forms of three descendable nodes, each giving HCL's value in
// the common case and leaving every other case to HCL: a traversal of
// attributes ([attrTraversalExpr]), a comparison ([compareExpr]) and a
// conditional ([conditionalExpr]).
//
// What keeps it exact:
//   - a replaced count.index has the value HCL gives it, the number
//     cty.NumberIntVal(index), and in a template part the string a
//     template makes of that number (the index in decimal), which the
//     template copies as it is;
//   - any diagnostic makes evalInputs evaluate the instance again, with
//     the expression not rewritten and count an object, so every error
//     and warning is the one HCL reports;
//   - an expression with any other reference to count, or count.index
//     inside a node that is not descendable (a function call, a for
//     expression), is not rewritten at all.

// The names, in an instance's variables, of count.index as a number and
// as a string. Neither is an HCL identifier, so no expression can refer
// to them but the nodes below.
const (
	countIndexNumber = "count.index"
	countIndexString = "count.index:string"
)

// countIndexed is an inputs expression rewritten to read count.index
// from the instance's variables, and which forms of it it reads.
type countIndexed struct {
	expr           hcl.Expression
	number, string bool
}

// indexCount rewrites e, the inputs a block with count evaluates per
// instance, as this file describes. It returns nil when e reads count
// other than as plain count.index in descendable nodes, or reads no
// count.index at all, or is not native syntax.
func indexCount(e hcl.Expression) *countIndexed {
	se, ok := e.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	c := &countIndexed{}
	out, ok := c.rewrite(se, false)
	if !ok || (!c.number && !c.string) {
		return nil
	}
	c.expr = out
	return c
}

// rewrite returns e with its count.index references replaced, and false
// when e reads count in any other way. inTemplate says e is a part of a
// string template, where count.index is read as a string.
func (c *countIndexed) rewrite(e hclsyntax.Expression, inTemplate bool) (hclsyntax.Expression, bool) {
	if t, ok := e.(*hclsyntax.ScopeTraversalExpr); ok && isCountIndex(t.Traversal) {
		if inTemplate {
			c.string = true
			return &countIndexExpr{ScopeTraversalExpr: t, name: countIndexString}, true
		}
		c.number = true
		return &countIndexExpr{ScopeTraversalExpr: t, name: countIndexNumber}, true
	}
	if w, ok := e.(*hclsyntax.TemplateWrapExpr); ok {
		// "${x}" is x itself, not a string made of it.
		out, ok := c.rewrite(w.Wrapped, false)
		if !ok || out == w.Wrapped {
			return e, ok
		}
		cw := *w
		cw.Wrapped = out
		return &cw, true
	}
	children := descendable(e)
	if children == nil {
		for _, t := range e.Variables() {
			if t.RootName() == "count" {
				return nil, false
			}
		}
		return e, true
	}
	_, template := e.(*hclsyntax.TemplateExpr)
	kids := make([]hclsyntax.Expression, len(children))
	same := true
	for i, k := range children {
		out, ok := c.rewrite(k, template)
		if !ok {
			return nil, false
		}
		kids[i] = out
		same = same && out == k
	}
	out := e
	if !same {
		out = rebuild(e, kids)
	}
	switch t := out.(type) {
	case *hclsyntax.RelativeTraversalExpr:
		if a := newAttrTraversal(t); a != nil {
			return a, true
		}
	case *hclsyntax.BinaryOpExpr:
		if cmp := comparisons[t.Op]; cmp != nil {
			return &compareExpr{BinaryOpExpr: t, cmp: cmp}, true
		}
	case *hclsyntax.ConditionalExpr:
		return &conditionalExpr{ConditionalExpr: t}, true
	}
	return out, true
}

// isCountIndex reports whether t is count.index, with nothing after it.
func isCountIndex(t hcl.Traversal) bool {
	if len(t) != 2 {
		return false
	}
	root, ok := t[0].(hcl.TraverseRoot)
	if !ok || root.Name != "count" {
		return false
	}
	attr, ok := t[1].(hcl.TraverseAttr)
	return ok && attr.Name == "index"
}

// countIndexExpr is a count.index that reads the index from the variable
// name of the context it is evaluated in. It is otherwise the reference
// itself, so its ranges and variables are the original's.
type countIndexExpr struct {
	*hclsyntax.ScopeTraversalExpr
	name string
}

func (x *countIndexExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if ctx != nil {
		if v, ok := ctx.Variables[x.name]; ok {
			return v, nil
		}
	}
	// Not evaluated where an instance put its index: a diagnostic makes
	// evalInputs evaluate the expression as written.
	return cty.DynamicVal, hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Missing count.index",
		Detail:   "count.index was evaluated outside an instance: this is a bug in pier.",
		Subject:  x.SrcRange.Ptr(),
	}}
}

// setCountIndex puts instance i's count.index, in the forms c reads, in
// vars.
func (c *countIndexed) setCountIndex(vars map[string]cty.Value, i int) {
	if c.number {
		vars[countIndexNumber] = cty.NumberIntVal(int64(i))
	}
	if c.string {
		vars[countIndexString] = cty.StringVal(strconv.Itoa(i))
	}
}

// attrTraversalExpr is a relative traversal of attributes alone, such as
// the .outputs.value of resource.a[count.index].outputs.value, taking
// the marks off its source once. HCL takes them off, and puts them back
// on a new copy of their set, at every step: a reference to another
// instance's output, marked as read from it, cost four sets of marks.
// Without marks, each step is [hcl.GetAttr], as in HCL, and the marks go
// back on the result, where HCL's steps carry them; any diagnostic makes
// evalInputs evaluate the expression as written.
type attrTraversalExpr struct {
	*hclsyntax.RelativeTraversalExpr
	steps []attrStep
}

type attrStep struct {
	name string
	rng  hcl.Range
}

// newAttrTraversal returns t as an attrTraversalExpr, or nil when t has
// a step that is not an attribute.
func newAttrTraversal(t *hclsyntax.RelativeTraversalExpr) *attrTraversalExpr {
	steps := make([]attrStep, len(t.Traversal))
	for i, tr := range t.Traversal {
		a, ok := tr.(hcl.TraverseAttr)
		if !ok {
			return nil
		}
		steps[i] = attrStep{name: a.Name, rng: a.SrcRange}
	}
	return &attrTraversalExpr{RelativeTraversalExpr: t, steps: steps}
}

func (x *attrTraversalExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	src, diags := x.Source.Value(ctx)
	if len(diags) > 0 {
		return cty.DynamicVal, diags
	}
	v, marks := src.Unmark()
	for i := range x.steps {
		st := &x.steps[i]
		next, ds := hcl.GetAttr(v, st.name, &st.rng)
		if len(ds) > 0 {
			return cty.DynamicVal, ds
		}
		var more cty.ValueMarks
		v, more = next.Unmark()
		if len(more) > 0 {
			if marks == nil {
				marks = more
			} else {
				for m := range more {
					marks[m] = struct{}{}
				}
			}
		}
	}
	if len(marks) == 0 {
		return v, nil
	}
	return v.WithMarks(marks), nil
}

// compareExpr is a comparison of the count-indexed inputs, such as
// count.index == 0. HCL calls the operator's cty function, whose call
// checks, converts and deeply unmarks both operands: a fifth of what
// evaluating bench/noop.sh's inputs allocated. When both operands are
// known, not null, unmarked and primitive (numbers, for an ordering),
// the result is what the function's implementation returns for them,
// called here directly; otherwise the operator is evaluated as HCL
// does, on the operands' values.
type compareExpr struct {
	*hclsyntax.BinaryOpExpr
	cmp func(a, b cty.Value) cty.Value
}

// comparisons are the operators compareExpr evaluates, each with what
// its function's implementation (cty's stdlib) returns.
var comparisons = map[*hclsyntax.Operation]func(a, b cty.Value) cty.Value{
	hclsyntax.OpEqual:              func(a, b cty.Value) cty.Value { return a.Equals(b) },
	hclsyntax.OpNotEqual:           func(a, b cty.Value) cty.Value { return a.Equals(b).Not() },
	hclsyntax.OpLessThan:           cty.Value.LessThan,
	hclsyntax.OpLessThanOrEqual:    cty.Value.LessThanOrEqualTo,
	hclsyntax.OpGreaterThan:        cty.Value.GreaterThan,
	hclsyntax.OpGreaterThanOrEqual: cty.Value.GreaterThanOrEqualTo,
}

func (x *compareExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	lhs, diags := x.LHS.Value(ctx)
	if len(diags) > 0 {
		return cty.DynamicVal, diags
	}
	rhs, diags := x.RHS.Value(ctx)
	if len(diags) > 0 {
		return cty.DynamicVal, diags
	}
	if plainOperand(lhs, x.Op) && plainOperand(rhs, x.Op) {
		return x.cmp(lhs, rhs), nil
	}
	op := *x.BinaryOpExpr
	op.LHS = &hoisted{Expression: x.LHS, val: lhs}
	op.RHS = &hoisted{Expression: x.RHS, val: rhs}
	return op.Value(ctx)
}

// plainOperand reports whether v is an operand of op that op's function
// takes as it is: known, not null, unmarked, and primitive (a number,
// for an ordering).
func plainOperand(v cty.Value, op *hclsyntax.Operation) bool {
	if !v.IsKnown() || v.IsNull() || v.IsMarked() {
		return false
	}
	if op == hclsyntax.OpEqual || op == hclsyntax.OpNotEqual {
		return v.Type().IsPrimitiveType()
	}
	return v.Type() == cty.Number
}

// conditionalExpr is a conditional of the count-indexed inputs, such as
// count.index == 5 ? "changed" : "value-${count.index}". HCL unifies its
// results' types and gathers the marks of all three values whatever they
// are. When neither result nor the condition is marked, the results have
// the same primitive type and the condition is a known bool, the value
// is the chosen result, as HCL gives it (the same type needs no
// conversion); otherwise the conditional is evaluated as HCL does, on
// the three values, or, when a result has a diagnostic, as HCL does.
type conditionalExpr struct {
	*hclsyntax.ConditionalExpr
}

func (x *conditionalExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	t, tdiags := x.TrueResult.Value(ctx)
	f, fdiags := x.FalseResult.Value(ctx)
	if len(tdiags) > 0 || len(fdiags) > 0 {
		// HCL keeps the chosen result's diagnostics only.
		return x.ConditionalExpr.Value(ctx)
	}
	c, diags := x.Condition.Value(ctx)
	if len(diags) > 0 {
		return cty.DynamicVal, diags
	}
	ty := t.Type()
	if ty.IsPrimitiveType() && f.Type() == ty && !t.IsMarked() && !f.IsMarked() &&
		c.Type() == cty.Bool && c.IsKnown() && !c.IsNull() && !c.IsMarked() {
		if c.True() {
			return t, nil
		}
		return f, nil
	}
	cond := *x.ConditionalExpr
	cond.TrueResult = &hoisted{Expression: x.TrueResult, val: t}
	cond.FalseResult = &hoisted{Expression: x.FalseResult, val: f}
	cond.Condition = &hoisted{Expression: x.Condition, val: c}
	return cond.Value(ctx)
}
