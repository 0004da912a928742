package hclsource

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// This file evaluates once per block what every instance of a counted
// or for_each block would evaluate alike. The instances of a block see
// one context and differ only in count or each (instance.evalVars), so a
// part of the inputs expression that reads neither, and calls only pure
// functions, has one value for all of them. Evaluating it once, before
// the instances, and giving the instances an expression that has that
// value in its place, gives each instance the value, marks and
// diagnostics that evaluating it whole gives, at a fraction of the cost:
// in a block of 10,000 instances most of an instance's inputs, keys
// included, read neither.
//
// What keeps it exact:
//   - only parts whose evaluation gave no diagnostic at all are replaced,
//     so every error and warning is still reported by each instance,
//     from the node and range that report it now;
//   - a replaced part keeps its node (see [hoisted]): ranges, start
//     ranges and the variables a diagnostic's expression reads, which
//     RedactDiagnostics relies on, are the original's;
//   - the rebuilt tree only descends into nodes whose children are
//     evaluated in the node's own context and through their Value alone
//     (descendable); every other node, such as for expressions, splats
//     and function calls, is replaced whole or kept whole.

// perInstance reports whether a reference to root reads what differs
// between the instances of a block: instance.evalVars sets count and
// each, nothing else.
func perInstance(root string) bool { return root == "count" || root == "each" }

// hoistPlan is, for one inputs expression, what can be evaluated once:
// it depends on the expression alone, so a block plans it once.
type hoistPlan struct {
	expr hclsyntax.Expression
	// once: expr reads nothing per instance, calls only pure functions,
	// and is worth evaluating apart (not a literal or a bare reference).
	once bool
	// kids are the plans of expr's children, for a descendable expr that
	// is not evaluated once; nil otherwise.
	kids []*hoistPlan
}

// planHoist plans e. It returns nil when nothing in e can be evaluated
// once, or e is not native syntax (a JSON file's expressions).
func planHoist(e hcl.Expression) *hoistPlan {
	se, ok := e.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	p, _ := plan(se)
	if p == nil || (!p.once && p.kids == nil) {
		return nil
	}
	return p
}

// plan plans e and reports whether e reads nothing per instance and calls
// only pure functions.
func plan(e hclsyntax.Expression) (*hoistPlan, bool) {
	children := descendable(e)
	if children == nil {
		inv := invariant(e)
		return &hoistPlan{expr: e, once: inv && worthHoisting(e)}, inv
	}
	kids := make([]*hoistPlan, len(children))
	all, some := true, false
	for i, c := range children {
		var inv bool
		kids[i], inv = plan(c)
		all = all && inv
		some = some || kids[i].once || kids[i].kids != nil
	}
	if all {
		return &hoistPlan{expr: e, once: true}, true
	}
	if !some {
		return &hoistPlan{expr: e}, false
	}
	return &hoistPlan{expr: e, kids: kids}, false
}

// invariant reports whether e reads neither count nor each and calls only
// pure functions. Variables leaves out the names a for expression binds.
func invariant(e hclsyntax.Expression) bool {
	for _, t := range e.Variables() {
		if perInstance(t.RootName()) {
			return false
		}
	}
	pure := true
	hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		if f, ok := n.(*hclsyntax.FunctionCallExpr); ok && !pureFunctions[f.Name] {
			pure = false
		}
		return nil
	})
	return pure
}

// worthHoisting is false for what costs no more to evaluate than to
// replace. A bare reference is also kept because a replaced one would no
// longer be seen by hclsyntax.Variables of the nodes above it, which
// looks for *ScopeTraversalExpr itself.
func worthHoisting(e hclsyntax.Expression) bool {
	switch e.(type) {
	case *hclsyntax.LiteralValueExpr, *hclsyntax.ScopeTraversalExpr:
		return false
	}
	return true
}

// descendable returns the children of e when e is a node whose Value
// evaluates them in its own context, calling nothing of them but Value
// and Range, and nil otherwise.
func descendable(e hclsyntax.Expression) []hclsyntax.Expression {
	switch x := e.(type) {
	case *hclsyntax.ObjectConsExpr:
		out := make([]hclsyntax.Expression, 0, 2*len(x.Items))
		for _, it := range x.Items {
			out = append(out, it.KeyExpr, it.ValueExpr)
		}
		return out
	case *hclsyntax.TupleConsExpr:
		if len(x.Exprs) == 0 {
			return nil
		}
		return x.Exprs
	case *hclsyntax.TemplateExpr:
		if len(x.Parts) == 0 {
			return nil
		}
		return x.Parts
	case *hclsyntax.ConditionalExpr:
		return []hclsyntax.Expression{x.Condition, x.TrueResult, x.FalseResult}
	case *hclsyntax.BinaryOpExpr:
		return []hclsyntax.Expression{x.LHS, x.RHS}
	case *hclsyntax.UnaryOpExpr:
		return []hclsyntax.Expression{x.Val}
	case *hclsyntax.ParenthesesExpr:
		return []hclsyntax.Expression{x.Expression}
	case *hclsyntax.IndexExpr:
		return []hclsyntax.Expression{x.Collection, x.Key}
	case *hclsyntax.RelativeTraversalExpr:
		return []hclsyntax.Expression{x.Source}
	}
	return nil
}

// bind evaluates in ctx what p evaluates once, and returns the expression
// the instances evaluate: p's own, with those parts replaced. A part
// whose evaluation gave any diagnostic is left as it is, for every
// instance to report.
func (p *hoistPlan) bind(ctx *hcl.EvalContext) hclsyntax.Expression {
	if p.once {
		v, diags := p.expr.Value(ctx)
		if len(diags) > 0 {
			return p.expr
		}
		return &hoisted{Expression: p.expr, val: v}
	}
	if p.kids == nil {
		return p.expr
	}
	kids := make([]hclsyntax.Expression, len(p.kids))
	same := true
	for i, k := range p.kids {
		kids[i] = k.bind(ctx)
		same = same && kids[i] == k.expr
	}
	if same {
		return p.expr
	}
	return rebuild(p.expr, kids)
}

// rebuild copies e, a descendable node, with kids in place of its
// children, in the order descendable lists them.
func rebuild(e hclsyntax.Expression, kids []hclsyntax.Expression) hclsyntax.Expression {
	switch x := e.(type) {
	case *hclsyntax.ObjectConsExpr:
		c := *x
		c.Items = make([]hclsyntax.ObjectConsItem, len(x.Items))
		for i := range x.Items {
			c.Items[i] = hclsyntax.ObjectConsItem{KeyExpr: kids[2*i], ValueExpr: kids[2*i+1]}
		}
		return &c
	case *hclsyntax.TupleConsExpr:
		c := *x
		c.Exprs = kids
		return &c
	case *hclsyntax.TemplateExpr:
		c := *x
		c.Parts = kids
		return &c
	case *hclsyntax.ConditionalExpr:
		c := *x
		c.Condition, c.TrueResult, c.FalseResult = kids[0], kids[1], kids[2]
		return &c
	case *hclsyntax.BinaryOpExpr:
		c := *x
		c.LHS, c.RHS = kids[0], kids[1]
		return &c
	case *hclsyntax.UnaryOpExpr:
		c := *x
		c.Val = kids[0]
		return &c
	case *hclsyntax.ParenthesesExpr:
		c := *x
		c.Expression = kids[0]
		return &c
	case *hclsyntax.IndexExpr:
		c := *x
		c.Collection, c.Key = kids[0], kids[1]
		return &c
	case *hclsyntax.RelativeTraversalExpr:
		c := *x
		c.Source = kids[0]
		return &c
	}
	panic("rebuild of a node descendable does not list: this is a bug in pier")
}

// hoisted is a part of an expression evaluated once: it has the value
// the part evaluated to, and is otherwise the part itself, so its ranges
// and its children (what hclsyntax.Variables walks) are the original's.
type hoisted struct {
	hclsyntax.Expression
	val cty.Value
}

func (h *hoisted) Value(*hcl.EvalContext) (cty.Value, hcl.Diagnostics) { return h.val, nil }

// pureFunctions are the functions (see [functions]) whose result depends
// on their arguments alone: a call to one of them may be evaluated once
// for every instance. A function missing here is taken as impure, so its
// calls are evaluated per instance; TestPureFunctions makes every
// function added to [functions] be listed here or in impureFunctions.
var pureFunctions = map[string]bool{
	"abs": true, "ceil": true, "chomp": true, "chunklist": true, "coalesce": true,
	"coalescelist": true, "compact": true, "concat": true, "contains": true,
	"csvdecode": true, "distinct": true, "element": true, "flatten": true,
	"floor": true, "format": true, "formatdate": true, "formatlist": true,
	"indent": true, "index": true, "join": true, "jsondecode": true,
	"jsonencode": true, "keys": true, "length": true, "log": true, "lookup": true,
	"lower": true, "max": true, "merge": true, "min": true, "parseint": true,
	"pow": true, "range": true, "regex": true, "regexall": true,
	"regex_replace": true, "replace": true, "reverse": true,
	"setintersection": true, "setproduct": true, "setsubtract": true,
	"setunion": true, "signum": true, "slice": true, "sort": true, "split": true,
	"strlen": true, "strrev": true, "substr": true, "timeadd": true,
	"title": true, "trim": true, "trimprefix": true, "trimspace": true,
	"trimsuffix": true, "upper": true, "values": true, "zipmap": true,
	"tobool": true, "tolist": true, "tomap": true, "tonumber": true,
	"toset": true, "tostring": true,
}

// impureFunctions are the functions whose result may differ between two
// calls with the same arguments (a clock, randomness, a file read).
// pier has none today.
var impureFunctions = map[string]bool{}

// instanceInputs is the expression each of n instances of r evaluates
// for its inputs in a child of ctx: r's inputs with what the instances
// share evaluated once in ctx, when there are several instances to share
// it, and r's inputs themselves otherwise.
func (r *resourceDecl) instanceInputs(ctx *hcl.EvalContext, n int) hcl.Expression {
	if r.inputs == nil || r.expand == expandNone || n < 2 {
		return r.inputs
	}
	if !r.hoisted {
		r.hoist, r.hoisted = planHoist(r.inputs), true
	}
	if r.hoist == nil {
		return r.inputs
	}
	return r.hoist.bind(ctx)
}
