package hclsource

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/pierhq/pier/host/source"
)

// This file keeps sensitive values out of diagnostics. HCL puts the
// message of a failing function in its diagnostic, and cty's functions
// quote their arguments ("cannot convert \"hunter2\" to number"); HCL's
// text writer also lists the values an expression read. A diagnostic
// whose expression reads a sensitive value is rewritten before anyone
// sees it:
//
//   - a function that does not take marked arguments never saw the mark,
//     so its message may hold the value or something derived from it
//     (upper(var.pw)): the message is replaced by one that says why;
//   - any text of the sensitive values themselves is replaced by
//     [source.SensitiveText], whatever produced the message;
//   - the expression and its context are dropped, so no renderer lists
//     the values read.
//
// Functions that take marked arguments (the to* conversions, see
// funcs.go) word their own errors without the value, as Terraform's do.

// minSecretLen is the shortest text replaced in a message: shorter
// values ("1", "on") would garble the message without hiding anything
// that the message's context does not already narrow down.
const minSecretLen = 3

// RedactDiagnostics rewrites the diagnostics whose expression reads a
// sensitive value so that they show none (see above). funcs are the
// functions the expressions could call, to tell those that take marked
// arguments. It returns diags itself when nothing needed hiding.
func RedactDiagnostics(diags hcl.Diagnostics, funcs map[string]function.Function) hcl.Diagnostics {
	var out hcl.Diagnostics
	for i, d := range diags {
		secrets, involved := sensitiveReads(d)
		if !involved {
			if out != nil {
				out = append(out, d)
			}
			continue
		}
		if out == nil {
			out = append(make(hcl.Diagnostics, 0, len(diags)), diags[:i]...)
		}
		c := *d
		c.Expression, c.EvalContext = nil, nil
		if extra, ok := d.Extra.(hclsyntax.FunctionCallDiagExtra); ok && extra.FunctionCallError() != nil {
			name := extra.CalledFunctionName()
			if f, ok := funcs[name]; !ok || !takesMarked(f) {
				c.Detail = fmt.Sprintf("Call to function %q failed with a sensitive argument; the error message is hidden because it could show the value.", name)
			}
		}
		c.Summary = replaceSecrets(c.Summary, secrets)
		c.Detail = replaceSecrets(c.Detail, secrets)
		out = append(out, &c)
	}
	if out == nil {
		return diags
	}
	return out
}

// sensitiveReads reports whether d's expression reads a sensitive value,
// and the texts of the sensitive values it reads, longest first.
func sensitiveReads(d *hcl.Diagnostic) ([]string, bool) {
	if d.Expression == nil || d.EvalContext == nil {
		return nil, false
	}
	var secrets []string
	involved := false
	for _, t := range d.Expression.Variables() {
		v, diags := t.TraverseAbs(d.EvalContext)
		if diags.HasErrors() || !v.ContainsMarked() {
			continue
		}
		u, pvms := v.UnmarkDeepWithPaths()
		for _, pvm := range pvms {
			if _, ok := pvm.Marks[sensitiveMark{}]; !ok {
				continue
			}
			involved = true
			if part, err := pvm.Path.Apply(u); err == nil {
				secrets = appendTexts(secrets, part)
			}
		}
	}
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(secrets), involved
}

// appendTexts appends the strings and numbers inside v as a message
// would spell them.
func appendTexts(out []string, v cty.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return out
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		if s := v.AsString(); len(s) >= minSecretLen {
			out = append(out, s)
		}
	case ty == cty.Number:
		if s := formatNumber(v.AsBigFloat()); len(s) >= minSecretLen {
			out = append(out, s)
		}
	case ty.IsCollectionType() || ty.IsObjectType() || ty.IsTupleType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = appendTexts(out, e)
		}
	}
	return out
}

func replaceSecrets(s string, secrets []string) string {
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, source.SensitiveText)
	}
	return s
}

// takesMarked reports whether f receives its arguments' marks, and so
// can word its errors without them.
func takesMarked(f function.Function) bool {
	for _, p := range f.Params() {
		if !p.AllowMarked {
			return false
		}
	}
	if vp := f.VarParam(); vp != nil && !vp.AllowMarked {
		return false
	}
	return true
}
