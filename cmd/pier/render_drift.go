package main

import (
	"fmt"
	"io"

	"github.com/pierhq/pier/host/engine"
)

// renderDrift prints what a refresh found, before the plan: as Terraform's
// "Objects have changed outside of Terraform", one block per object.
func renderDrift(w io.Writer, p *engine.Plan) {
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
