package hclsource

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// This file holds what the guardrail blocks share: a variable's
// validation, a check's assert, a resource's precondition and
// postcondition (and a pier test run's assert) are each a condition and
// an error_message, as in Terraform:
//
//	validation {
//	  condition     = var.port > 0 && var.port < 65536
//	  error_message = "port must be a TCP port, not ${var.port}."
//	}

var conditionSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "condition", Required: true},
	{Name: "error_message", Required: true},
}}

// condition is one decoded condition block.
type condition struct {
	kind string // the block type: validation, assert, precondition, postcondition
	cond hcl.Expression
	msg  hcl.Expression
	rng  hcl.Range // the block's header
}

func decodeCondition(b *hcl.Block) (*condition, hcl.Diagnostics) {
	content, diags := b.Body.Content(conditionSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	return &condition{kind: b.Type, cond: content.Attributes["condition"].Expr, msg: content.Attributes["error_message"].Expr, rng: b.DefRange}, diags
}

// exprs are the condition's expressions, for reference analysis.
func (c *condition) exprs() []hcl.Expression { return []hcl.Expression{c.cond, c.msg} }

// conditionResult is one evaluation of a condition.
type conditionResult struct {
	// known is false while the condition reads a value not known yet.
	known bool
	// failed is set when the condition is known to be false.
	failed bool
	// message is the error message of a failed condition, with no
	// sensitive value in it.
	message string
	// marks are those of the condition's value: which instances it read
	// and, while it is unknown, what it waits for.
	marks cty.ValueMarks
}

// sensitiveMessage replaces an error message that would show a sensitive
// value, in Terraform's words.
const sensitiveMessage = "The error message included a sensitive value, so it will not be displayed."

// eval evaluates the condition in ctx. A condition that is not a bool,
// or that cannot be evaluated, is a configuration error; so is an error
// message that is not a string. The error message is evaluated only when
// the condition fails.
func (c *condition) eval(ctx *hcl.EvalContext) (conditionResult, hcl.Diagnostics) {
	v, diags := c.cond.Value(ctx)
	if diags.HasErrors() {
		return conditionResult{}, diags
	}
	v, marks := v.UnmarkDeep()
	if !v.IsKnown() {
		return conditionResult{marks: marks}, nil
	}
	if v.IsNull() {
		return conditionResult{}, hcl.Diagnostics{diagErr(c.cond.Range(), "Invalid condition result",
			"the condition of this %s block is null: it must be true or false.", c.kind)}
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return conditionResult{}, hcl.Diagnostics{diagErr(c.cond.Range(), "Invalid condition result",
			"the condition of this %s block must be true or false: %s.", c.kind, err)}
	}
	if b.True() {
		return conditionResult{known: true, marks: marks}, nil
	}
	res := conditionResult{known: true, failed: true, marks: marks}
	m, ds := c.msg.Value(ctx)
	if ds.HasErrors() {
		return res, ds
	}
	m, mmarks := m.UnmarkDeep()
	_, secret := mmarks[sensitiveMark{}]
	switch {
	case secret:
		res.message = sensitiveMessage
	case !m.IsKnown():
		res.message = "(the error message is known only after apply)"
	default:
		s, err := convert.Convert(m, cty.String)
		if err != nil || s.IsNull() {
			return res, hcl.Diagnostics{diagErr(c.msg.Range(), "Invalid error message",
				"the error_message of this %s block must be a string.", c.kind)}
		}
		res.message = s.AsString()
	}
	return res, nil
}

// CheckRuleExtra is the Extra of a diagnostic that reports a failed
// condition: the checkable object it belongs to (var.NAME, check.NAME,
// resource.NAME), as pier test's expect_failures names them.
type CheckRuleExtra struct {
	Checkable string
}

// failureDiag is the error of a failed condition of the object named by
// checkable (var.port, resource.web), in the shape of Terraform's: the
// summary says what failed, the detail is the error message and where
// the rule is.
func (c *condition) failureDiag(severity hcl.DiagnosticSeverity, summary, checkable string, res conditionResult) *hcl.Diagnostic {
	rng := c.cond.Range()
	return &hcl.Diagnostic{
		Severity: severity,
		Summary:  summary,
		Detail:   c.failureDetail(checkable, res),
		Subject:  &rng,
		Extra:    CheckRuleExtra{Checkable: checkable},
	}
}

// failureDetail is what a failed condition of owner says: its error
// message and where the rule is.
func (c *condition) failureDetail(owner string, res conditionResult) string {
	return fmt.Sprintf("%s\n\nThis was checked by the %s block of %s at %s.", res.message, c.kind, owner, rangeString(c.rng))
}

// evalFailure words a condition that could not be evaluated, with no
// sensitive value in the reasons.
func (d *Deployment) evalFailure(ds hcl.Diagnostics) string {
	var msgs []string
	for _, dg := range RedactDiagnostics(ds, d.baseCtx.Functions) {
		msgs = append(msgs, formatDiagnostic(dg))
	}
	return "the condition could not be evaluated: " + strings.Join(msgs, "; ")
}

// FailedCheckables lists the objects whose conditions failed in err's
// diagnostics (see [CheckRuleExtra]), for pier test's expect_failures.
func FailedCheckables(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		if e, ok := d.Extra.(CheckRuleExtra); ok {
			out = append(out, e.Checkable)
		}
	}
	return out
}
