package diag

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/provider"
	"github.com/pierhq/pier/host/tfschema"
	"github.com/pierhq/pier/schema"
)

// FromError splits err into the problems it holds: every HCL diagnostic
// of a configuration or lock file error, every resource that failed,
// every joined error; anything else is one error diagnostic with its
// message. verbose keeps the protocol detail (request names, executables)
// that a user does not need to see. A mistake reached by many evaluations
// (a local read by many instances, say) is one mistake: it is said once.
func FromError(err error, verbose bool) []Diagnostic {
	if err == nil {
		return nil
	}
	var out []Diagnostic
	var walk func(error)
	walk = func(err error) {
		if m, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range m.Unwrap() {
				walk(e)
			}
			return
		}
		out = append(out, fromOne(err, verbose)...)
	}
	walk(err)
	seen := map[string]bool{}
	uniq := out[:0]
	for _, d := range out {
		key := string(d.Severity) + "\x00" + d.Summary + "\x00" + d.Detail + "\x00" + d.Address
		if d.Range != nil {
			key += fmt.Sprintf("\x00%s:%d:%d", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column)
		}
		if !seen[key] {
			seen[key] = true
			uniq = append(uniq, d)
		}
	}
	return uniq
}

// fromOne translates one error that joins no others.
func fromOne(err error, verbose bool) []Diagnostic {
	if err == context.Canceled {
		return []Diagnostic{{Severity: Error, Summary: "interrupted"}}
	}
	var (
		dg Diagnoser
		pe *plan.DiagnosticError
		pd *plan.PreventDestroyError
		me *plan.MoveError
		de *hclsource.DiagnosticsError
		re *apply.ResourceError
		ce *plan.ConditionError
		ie *tfschema.InputError
		le *lockfile.DiagnosticsError
		hd hcl.Diagnostics
	)
	switch {
	case errors.As(err, &dg):
		return []Diagnostic{dg.Diagnostic()}
	case errors.As(err, &me):
		return []Diagnostic{{Severity: Error, Summary: "Cannot move " + me.From.String() + " to " + me.To.String(), Detail: me.Reason + ".", Address: me.From.String(), Range: PointRange(me.Range, 1)}}
	case errors.As(err, &pe):
		return []Diagnostic{providerDiagnostic(pe)}
	case errors.As(err, &pd):
		verb := map[string]string{"destroy": "destroyed", "replace": "replaced"}[pd.Verb]
		return []Diagnostic{{Severity: Error, Summary: "Instance cannot be " + verb, Detail: pd.Detail(), Address: pd.Address, Range: PointRange(pd.Range, 1)}}
	case errors.As(err, &de):
		return FromHCLs(de.Diagnostics)
	case errors.As(err, &re):
		return []Diagnostic{FromResourceError(re, verbose)}
	case errors.As(err, &ce):
		return []Diagnostic{conditionDiagnostic(ce, "")}
	case errors.As(err, &ie):
		return []Diagnostic{inputDiagnostic(ie)}
	case errors.As(err, &le):
		return FromHCLs(le.Diagnostics)
	case errors.As(err, &hd):
		return FromHCLs(hd)
	}
	return []Diagnostic{{Severity: Error, Summary: err.Error()}}
}

// providerDiagnostic is a provider's own diagnostic about a change found
// at plan (a preview's, or the Terraform provider's validation), at the
// input it names, saying which resource and provider it is about.
func providerDiagnostic(e *plan.DiagnosticError) Diagnostic {
	d := Diagnostic{Severity: Error, Summary: e.Diagnostic.Summary, Address: e.Resource, Provider: e.Provider, Range: PointRange(e.Range, 1)}
	if e.Diagnostic.Severity == schema.SeverityWarning {
		d.Severity = Warning
	}
	detail := fmt.Sprintf("resource %s (provider %s)", e.Resource, e.Provider)
	if len(e.Diagnostic.Attribute) > 0 {
		detail += fmt.Sprintf(": input %s", e.Diagnostic.Attribute)
	}
	switch {
	case e.Diagnostic.Detail != "":
		detail += ": " + e.Diagnostic.Detail
	case e.Diagnostic.Summary != "":
		// A Terraform provider's diagnostics often say it all in the
		// summary; the line under the snippet still says it.
		detail += ": " + e.Diagnostic.Summary
	}
	if e.Others > 0 {
		detail += fmt.Sprintf("; %d more instances of this resource have it too", e.Others)
	}
	d.Detail = detail
	return d
}

// inputDiagnostic is an input or type a Terraform provider's schema
// lacks, at the input.
func inputDiagnostic(ie *tfschema.InputError) Diagnostic {
	d := Diagnostic{Severity: Error, Summary: "Unknown input", Detail: ie.Error(), Address: ie.Resource, Provider: ie.Provider}
	if ie.Attribute == "" {
		d.Summary = "Unknown resource type"
	}
	if ie.Range.Filename != "" {
		d.Detail = strings.TrimPrefix(d.Detail, ie.Range.String()+": ")
		d.Range = PointRange(ie.Range, 1)
	}
	return d
}

// FromResourceError says what failed in the user's words, naming the
// resource and the provider: "create of out (provider journal) failed:
// disk full". The provider's executable and the protocol request
// appear only when verbose. Progress events use it for a resource that
// errored, so that they say it as the closing diagnostic does.
func FromResourceError(re *apply.ResourceError, verbose bool) Diagnostic {
	if ces := conditionErrors(re.Err); len(ces) > 0 {
		// The resource's own rule refused it, before or after its
		// provider ran: said as at plan, once per failed block.
		d := conditionDiagnostic(ces[0], re.Provider)
		for _, ce := range ces[1:] {
			d.Detail += "\n\n" + ce.Result.Detail
		}
		return d
	}
	d := Diagnostic{
		Severity: Error,
		Summary:  fmt.Sprintf("%s of %s failed", re.Action, re.Address),
		Address:  re.Address,
		Provider: re.Provider,
	}
	if re.Provider != "" {
		d.Summary = fmt.Sprintf("%s of %s (provider %s) failed", re.Action, re.Address, re.Provider)
	}
	var resp *provider.ResponseError
	var perr *provider.Error
	switch {
	case verbose:
		d.Detail = re.Err.Error()
	case errors.As(re.Err, &resp):
		d.Detail = resp.Message
	case errors.As(re.Err, &perr):
		// The transport failure itself, with the provider's stderr tail
		// and hint, without the request's protocol name.
		full := perr.Error()
		if i := strings.Index(full, ": "+perr.Err.Error()); i >= 0 {
			full = full[i+2:]
		}
		d.Detail = full
	default:
		d.Detail = re.Err.Error()
	}
	var kept *apply.IntentKeptError
	if !verbose && errors.As(re.Err, &kept) && !strings.Contains(d.Detail, kept.Note()) {
		d.Detail += "\n" + kept.Note()
	}
	var unrecorded *apply.UnrecordedError
	if !verbose && errors.As(re.Err, &unrecorded) && !strings.Contains(d.Detail, unrecorded.Note()) {
		d.Detail += " " + unrecorded.Note()
	}
	return d
}

// conditionDiagnostic is a failed precondition or postcondition, at its
// condition, as Terraform says it.
func conditionDiagnostic(ce *plan.ConditionError, provider string) Diagnostic {
	return Diagnostic{Severity: Error, Summary: ce.Result.Summary, Detail: ce.Result.Detail, Address: ce.Address, Provider: provider, Range: PointRange(ce.Result.Range, 1)}
}

// conditionErrors are the failed conditions err holds, joined or alone.
func conditionErrors(err error) []*plan.ConditionError {
	if m, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*plan.ConditionError
		for _, e := range m.Unwrap() {
			out = append(out, conditionErrors(e)...)
		}
		return out
	}
	var ce *plan.ConditionError
	if errors.As(err, &ce) {
		return []*plan.ConditionError{ce}
	}
	return nil
}
