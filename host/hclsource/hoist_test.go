package hclsource

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// hoistCtx is a block's context as evalResource builds it: variables,
// one of them sensitive, one unknown and waiting on a resource, a
// resource read, and pier's functions plus an impure one, tick, that
// counts its calls.
func hoistCtx(ticks *atomic.Int64) *hcl.EvalContext {
	funcs := functions()
	funcs["tick"] = function.New(&function.Spec{
		Type: function.StaticReturnType(cty.Number),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.NumberIntVal(ticks.Add(1)), nil
		},
	})
	return (&hcl.EvalContext{
		Functions: funcs,
		Variables: map[string]cty.Value{
			"var": cty.ObjectVal(map[string]cty.Value{
				"v":      cty.StringVal("0"),
				"n":      cty.NumberIntVal(3),
				"pw":     cty.StringVal("hunter22").Mark(sensitiveMark{}),
				"list":   cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b"), cty.StringVal("c")}),
				"obj":    cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("x")}),
				"later":  cty.DynamicVal.Mark(waitMark("resource.up")),
				"absent": cty.NullVal(cty.String),
			}),
			"resource": cty.ObjectVal(map[string]cty.Value{
				"up": cty.ObjectVal(map[string]cty.Value{
					"outputs": cty.ObjectVal(map[string]cty.Value{"id": cty.StringVal("u1")}),
				}).Mark(readMark("up")),
			}),
		},
	}).NewChild()
}

// TestHoistSameAsWhole evaluates inputs expressions for the instances of
// a counted and of a for_each block both whole and with their shared
// parts evaluated once, and wants the same values, marks and
// diagnostics (range, text, and the variables the diagnostic's expression
// reads, which redaction looks at) from both, and as many parts
// evaluated once as listed.
func TestHoistSameAsWhole(t *testing.T) {
	tests := []struct {
		name string
		expr string
		// hoisted is how many parts are evaluated once; an object's
		// keys count, one each.
		hoisted int
	}{
		{"bench shape", `{ initialize_with = count.index == 5 ? "changed-${var.v}" : "value-${count.index}" }`, 2},
		{"nothing per instance", `{ a = "x-${var.v}", b = var.n + 1 }`, 1},
		{"literal only", `{ a = 1 }`, 1},
		{"per instance only", `{ (count.index) = count.index }`, 0},
		{"bare reference kept", `{ i = count.index, v = var.v }`, 2},
		{"sensitive shared", `{ pw = "p-${var.pw}", i = count.index }`, 3},
		{"sensitive with index", `{ pw = "${var.pw}-${count.index}" }`, 1},
		{"unknown shared", `{ l = "${var.later}-x", i = count.index }`, 3},
		{"resource read", `{ id = resource.up.outputs.id, s = "${resource.up.outputs.id}-${count.index}" }`, 2},
		{"pure function", `{ u = upper(var.v), f = format("%s-%d", var.v, count.index) }`, 3},
		{"impure function", `{ t = tick(), u = tick() + count.index }`, 2},
		{"index by count", `{ e = var.list[count.index % 3], k = var.obj["k"] }`, 2},
		{"tuple and parens", `{ t = [var.v, (count.index + var.n) * 2, -var.n] }`, 2},
		{"for expression", `{ f = [for x in var.list : "${x}-${count.index}"], g = [for count in var.list : count] }`, 3},
		{"for binds var", `{ g = [for var in [1, 2] : var + count.index] }`, 1},
		{"splat", `{ s = var.list[*], c = [for x in var.list : x][count.index % 3] }`, 4},
		{"error shared", `{ bad = var.obj + 1, i = count.index }`, 2},
		{"error in one instance", `{ bad = count.index == 1 ? var.nope : "ok" }`, 2},
		{"unknown variable shared", `{ bad = var.nope, i = count.index }`, 2},
		{"error names sensitive", `{ bad = "${var.pw}" + count.index }`, 2},
		{"inconsistent conditional", `{ c = count.index == 0 ? var.obj : var.list }`, 1},
		{"null condition", `{ c = var.absent == null ? (count.index == 0 ? null : var.absent == "x") : 1 }`, 3},
		{"function error sensitive", `{ p = parseint("${var.pw}${count.index}", 10) }`, 1},
		{"each", `{ k = each.key, v = "${each.value}-${var.v}", w = each.value == var.v }`, 3},
		{"template with directive", `{ t = "%{ if count.index == 0 }zero%{ else }${var.v}%{ endif }" }`, 3},
		{"heredoc", "{ h = <<EOT\n${var.v} and ${count.index}\nEOT\n}", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, diags := hclsyntax.ParseExpression([]byte(tt.expr), "main.pier.hcl", hcl.Pos{Line: 1, Column: 1, Byte: 0})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var ticks atomic.Int64
			ctx := hoistCtx(&ticks)
			p := planHoist(e)
			var bound hclsyntax.Expression = e
			if p != nil {
				bound = p.bind(ctx)
			}
			if got := countHoisted(bound); got != tt.hoisted {
				t.Errorf("%d parts evaluated once, want %d", got, tt.hoisted)
			}
			perInstance := []map[string]cty.Value{countVars(0), countVars(1), countVars(2)}
			if strings.Contains(tt.expr, "each.") {
				perInstance = []map[string]cty.Value{eachVars(cty.StringVal("a"), cty.StringVal("0")), eachVars(cty.StringVal("b"), cty.StringVal("1"))}
			}
			anyErr := false
			for i, vars := range perInstance {
				whole, wholeDiags := evalIn(e, ctx, vars)
				part, partDiags := evalIn(bound, ctx, vars)
				if strings.Contains(tt.expr, "tick()") {
					// Each call ticks once more: an impure call is not
					// shared, so the instances see different values.
					if whole.RawEquals(part) {
						t.Errorf("instance %d: impure call shared: %#v", i, part)
					}
					continue
				}
				anyErr = anyErr || wholeDiags.HasErrors()
				if !whole.RawEquals(part) {
					t.Errorf("instance %d: value\n%#v\nwant\n%#v", i, part, whole)
				}
				if got, want := diagText(partDiags), diagText(wholeDiags); got != want {
					t.Errorf("instance %d: diagnostics\n%s\nwant\n%s", i, got, want)
				}
			}
			if strings.Contains(tt.name, "error") && !anyErr {
				t.Error("no instance has an error to compare")
			}
		})
	}
}

func evalIn(e hclsyntax.Expression, ctx *hcl.EvalContext, vars map[string]cty.Value) (cty.Value, hcl.Diagnostics) {
	ictx := ctx.NewChild()
	ictx.Variables = vars
	return e.Value(ictx)
}

// diagText is what a diagnostic says and what redaction reads of it.
func diagText(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%d %s: %s: %s", d.Severity, d.Subject, d.Summary, d.Detail)
		if d.Expression != nil {
			var names []string
			for _, tr := range d.Expression.Variables() {
				names = append(names, fmt.Sprintf("%s@%s", tr.RootName(), tr.SourceRange()))
			}
			slices.Sort(names)
			fmt.Fprintf(&b, " reads %v", names)
		}
		b.WriteString("\n")
	}
	redacted := RedactDiagnostics(diags, functions())
	for _, d := range redacted {
		fmt.Fprintf(&b, "redacted: %s: %s\n", d.Summary, d.Detail)
	}
	return b.String()
}

func countHoisted(e hclsyntax.Expression) int {
	if _, ok := e.(*hoisted); ok {
		return 1
	}
	n := 0
	for _, c := range descendable(e) {
		n += countHoisted(c)
	}
	return n
}

// TestPureFunctions makes every function pier offers be listed as pure
// or impure, so that a function added is never evaluated once for all
// instances without someone deciding that it may be.
func TestPureFunctions(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(functions())) {
		if pureFunctions[name] == impureFunctions[name] {
			t.Errorf("function %q must be listed in exactly one of pureFunctions and impureFunctions (hoist.go)", name)
		}
	}
	for name := range pureFunctions {
		if _, ok := functions()[name]; !ok {
			t.Errorf("pureFunctions lists %q, which pier does not offer", name)
		}
	}
}
