package main

import (
	"fmt"
	"io"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/redact"
)

// renderDrift prints what a refresh found, before the plan: as Terraform's
// "Objects have changed outside of Terraform", one block per object.
func renderDrift(w io.Writer, p *plan.Plan) {
	if len(p.Drift) == 0 {
		return
	}
	fmt.Fprintln(w, "Objects have changed outside of pier:")
	fmt.Fprintln(w)
	for _, d := range p.Drift {
		what := fmt.Sprintf(" (%s %s)", d.Recorded.Provider, d.Recorded.Type)
		if d.Gone {
			fmt.Fprintf(w, "  %s\n  %s %s%s\n\n", paintW(w, sgrBold, "# "+d.Address.String()+" no longer exists (its provider's read found no object)"), paintW(w, markerColour("-"), "-"), d.Address, what)
			continue
		}
		fmt.Fprintf(w, "  %s\n  %s %s%s\n", paintW(w, sgrBold, "# "+d.Address.String()+" has changed outside of pier"), paintW(w, markerColour("~"), "~"), d.Address, what)
		renderDiffs(w, d.InputDiffs(), "      ")
		renderDiffs(w, d.OutputDiffs(), "      ")
		fmt.Fprintln(w)
	}
}

// jsonDrift is what a refresh found, for --json: per object, whether it is
// gone, and its inputs and outputs before and after, redacted.
func jsonDrift(p *plan.Plan) []map[string]any {
	out := []map[string]any{}
	for _, d := range p.Drift {
		m := map[string]any{"address": d.Address.String(), "state": d.Handler, "gone": d.Gone,
			"before": map[string]any{"inputs": redact.EntryInputs(d.Recorded), "outputs": withoutBookkeeping(redact.EntryOutputs(d.Recorded))}}
		if !d.Gone {
			m["after"] = map[string]any{"inputs": redact.EntryInputs(d.Now), "outputs": withoutBookkeeping(redact.EntryOutputs(d.Now))}
		}
		out = append(out, m)
	}
	return out
}

// withoutBookkeeping drops the Terraform bridge's private "__tf" output.
func withoutBookkeeping(outputs map[string]any) map[string]any {
	delete(outputs, "__tf")
	return outputs
}

// renderRefreshOnly ends a --refresh-only plan: what applying it records,
// in place of the actions of a plan.
func renderRefreshOnly(w io.Writer, p *plan.Plan) {
	if len(p.Drift) == 0 {
		fmt.Fprintln(w, "No changes. The recorded objects match the real ones.")
		return
	}
	n := 0
	for _, c := range p.Shown() {
		if c.Action == execgraph.ActionRefresh {
			n++
		}
	}
	fmt.Fprintf(w, "This is a refresh-only plan: pier will not change any object. Applying it (pier apply --refresh-only) records %d %s in state as read.\n", n, pluralObjects(n))
}

func pluralObjects(n int) string {
	if n == 1 {
		return "object"
	}
	return "objects"
}
