package hclsource

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestCountIndexSameAsWhole evaluates inputs expressions of a counted
// block's instances as written, with count an object, and rewritten to
// read count.index from the instance's variables, after hoisting as
// evalResource does. It wants the rewrite only where listed, the same
// value and marks from both when the expression as written gives no
// diagnostic, and a diagnostic from the rewrite whenever the expression
// gives one, which makes evalInputs evaluate it as written.
func TestCountIndexSameAsWhole(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr      string
		rewritten bool
		// traversals is how many attribute traversals are rewritten.
		traversals int
	}{
		"bench shape":                  {`{ initialize_with = count.index == 5 ? "changed-${var.v}" : "value-${count.index}" }`, true, 0},
		"bare":                         {`{ i = count.index }`, true, 0},
		"template only":                {`{ s = "${count.index}" }`, true, 0},
		"template parts":               {`{ s = "n-${count.index}-${var.v}-${count.index + 1}" }`, true, 0},
		"index by count":               {`{ e = var.list[count.index % 3], k = var.obj["k"] }`, true, 0},
		"resource by count":            {`{ id = resource.up.outputs.id, x = [resource.up][count.index % 1].outputs.id }`, true, 1},
		"arithmetic":                   {`{ t = [var.v, (count.index + var.n) * 2, -count.index] }`, true, 0},
		"sensitive with index":         {`{ pw = "${var.pw}-${count.index}" }`, true, 0},
		"unknown with index":           {`{ l = "${var.later}-${count.index}" }`, true, 0},
		"directive":                    {`{ t = "%{ if count.index == 0 }zero%{ else }${count.index}%{ endif }" }`, true, 0},
		"heredoc":                      {"{ h = <<EOT\n${var.v} and ${count.index}\nEOT\n}", true, 0},
		"error in one instance":        {`{ bad = count.index == 1 ? var.nope : "ok" }`, true, 0},
		"error with index":             {`{ bad = "${var.pw}" + count.index }`, true, 0},
		"traversal of unknown":         {`{ u = [var.later][count.index % 1].outputs.id }`, true, 1},
		"traversal of sensitive":       {`{ p = [{ s = { t = var.pw } }][count.index % 1].s.t }`, true, 1},
		"traversal of read resource":   {`{ p = "${[resource.up][count.index % 1].outputs.id}-${count.index}" }`, true, 1},
		"traversal of a map":           {`{ m = [tomap({ a = "b" })][count.index % 1].a }`, true, 1},
		"traversal with an index":      {`{ l = [var.obj][count.index % 1]["k"], m = [var.list][count.index % 1][0] }`, true, 0},
		"traversal error":              {`{ e = [var.obj][count.index % 1].nope }`, true, 1},
		"traversal of null error":      {`{ e = [var.absent][count.index % 1].x }`, true, 1},
		"traversal of string error":    {`{ e = [var.v][count.index % 1].x.y }`, true, 1},
		"comparisons":                  {`{ e = count.index == 1, n = count.index != 2, l = count.index < 2, le = count.index <= var.n, g = count.index > 1, ge = count.index >= 10 }`, true, 0},
		"comparisons of mixed types":   {`{ e = count.index == "1", n = count.index != true, s = "${count.index}" == "1", g = count.index > "1", t = [count.index] == [1] }`, true, 0},
		"comparisons of marked":        {`{ e = var.pw == "x${count.index}", l = length(var.pw) < count.index }`, true, 0},
		"comparisons of unknown":       {`{ e = var.later == count.index, l = count.index < var.later }`, true, 0},
		"comparisons of null":          {`{ e = var.absent == count.index, n = count.index != null }`, true, 0},
		"comparison of null error":     {`{ l = count.index < var.absent }`, true, 0},
		"comparison of string error":   {`{ l = count.index < "x" }`, true, 0},
		"conditionals":                 {`{ a = count.index == 1 ? "one" : "${count.index}", b = count.index > 1 ? count.index : 0, c = count.index == 0 ? true : false }`, true, 0},
		"conditionals of mixed types":  {`{ a = count.index == 1 ? 1 : "x${count.index}", b = count.index > 1 ? null : count.index, c = count.index == 0 ? [1] : [count.index] }`, true, 0},
		"conditionals of marked":       {`{ a = count.index == 1 ? var.pw : "x", b = var.pw == "" ? 1 : count.index }`, true, 0},
		"conditionals of unknown":      {`{ a = count.index == 1 ? var.later : "x", b = var.later ? 1 : count.index, c = count.index == 0 ? var.later : count.index }`, true, 0},
		"conditional condition string": {`{ a = "${count.index == 1}" ? 1 : 2 }`, true, 0},
		"conditional null error":       {`{ a = var.absent == null ? (count.index == 0 ? null : var.absent == "x") : 1, b = (count.index > 0 ? null : true) ? 1 : 2 }`, true, 0},
		"conditional type error":       {`{ a = count.index == 1 ? var.obj : var.list }`, true, 0},
		"no count":                     {`{ a = var.v }`, false, 0},
		"in a function":                {`{ f = format("%s-%d", var.v, count.index) }`, false, 0},
		"function and bare":            {`{ i = count.index, f = upper("${count.index}") }`, false, 0},
		"in a for expression":          {`{ f = [for x in var.list : "${x}-${count.index}"] }`, false, 0},
		"in a key":                     {`{ (count.index) = 1 }`, false, 0},
		"count whole":                  {`{ c = count }`, false, 0},
		"count other attribute":        {`{ c = count.other }`, false, 0},
		"count indexed":                {`{ c = count["index"] }`, false, 0},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, diags := hclsyntax.ParseExpression([]byte(tt.expr), "main.pier.hcl", hcl.Pos{Line: 1, Column: 1, Byte: 0})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var ticks atomic.Int64
			ctx := hoistCtx(&ticks)
			var bound hcl.Expression = e
			if p := planHoist(e); p != nil {
				bound = p.bind(ctx)
			}
			indexed := indexCount(bound)
			if got := indexed != nil; got != tt.rewritten {
				t.Fatalf("rewritten %v, want %v", got, tt.rewritten)
			}
			if indexed == nil {
				return
			}
			traversals := 0
			hclsyntax.VisitAll(indexed.expr.(hclsyntax.Node), func(n hclsyntax.Node) hcl.Diagnostics {
				if _, ok := n.(*attrTraversalExpr); ok {
					traversals++
				}
				return nil
			})
			if traversals != tt.traversals {
				t.Errorf("%d attribute traversals rewritten, want %d", traversals, tt.traversals)
			}
			anyErr := false
			for _, i := range []int{0, 1, 2, 10, 12345} {
				whole, wholeDiags := evalIn(e, ctx, countVars(i))
				vars := map[string]cty.Value{}
				indexed.setCountIndex(vars, i)
				ictx := ctx.NewChild()
				ictx.Variables = vars
				got, gotDiags := indexed.expr.Value(ictx)
				if len(wholeDiags) > 0 {
					anyErr = true
					if len(gotDiags) == 0 {
						t.Errorf("instance %d: no diagnostic, want one as %s", i, diagText(wholeDiags))
					}
					continue
				}
				if len(gotDiags) > 0 {
					t.Errorf("instance %d: diagnostics %s, want none", i, diagText(gotDiags))
				}
				if !whole.RawEquals(got) {
					t.Errorf("instance %d: value\n%#v\nwant\n%#v", i, got, whole)
				}
			}
			if strings.Contains(name, "error") && !anyErr {
				t.Error("no instance has an error to compare")
			}
		})
	}
}

// TestCountIndexDiagnostics resolves counted blocks whose inputs fail in
// some instances and wants HCL's diagnostics, with count.index's value
// and the ranges as written.
func TestCountIndexDiagnostics(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		inputs string
		want   []string
	}{
		"one instance": {
			inputs: `{ bad = count.index == 1 ? var.v.nope : "ok-${count.index}" }`,
			want:   []string{`main.pier.hcl:15:46: Unsupported attribute: This object does not have an attribute named "nope".`},
		},
		"traversal": {
			inputs: `{ bad = count.index == 2 ? [var.v][count.index % 1].nope.x : "ok" }`,
			want:   []string{`main.pier.hcl:15:65: Unsupported attribute: This object does not have an attribute named "nope".`},
		},
		"comparison": {
			inputs: `{ bad = count.index == 1 ? count.index < "x${count.index}" : true }`,
			want:   []string{"main.pier.hcl:15:55: Invalid operand: Unsuitable value for right operand: a number is required."},
		},
		"some instances": {
			inputs: `{ bad = ["a", "b"][count.index], s = "${count.index}" + 1 }`,
			want:   []string{"main.pier.hcl:15:32: Invalid index: The given key does not identify an element in this collection value: the given index is greater than or equal to the length of the collection."},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": header + fmt.Sprintf(`variable "v" {
  default = {}
}
resource "m" {
  provider = provider.local
  type     = "memo"
  count    = 3
  inputs   = %s
}
`, tt.inputs)})
			d := mustLoad(t, dir, Options{})
			_, err := d.Resolve(t.Context(), nil)
			if err == nil {
				t.Fatal("resolve succeeded, want diagnostics")
			}
			if diff := cmp.Diff(tt.want, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
