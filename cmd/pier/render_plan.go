package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
)

// renderPlan prints a plan as a per-resource diff of inputs and a summary
// line, coloured when w is a colourWriter that colours.
func renderPlan(w io.Writer, p *plan.Plan) {
	// stdout is unbuffered: without this every line of every change is a
	// write system call of its own, thousands for a plan of 1000 creates.
	bw := bufio.NewWriterSize(w, renderBuffer)
	defer bw.Flush()
	w = sameColour(w, bw)
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "Warning: %s\n\n", warn)
	}
	renderDrift(w, p)
	if p.RefreshOnly {
		renderRefreshOnly(w, p)
		return
	}
	shown := 0
	var scratch renderScratch
	for _, c := range p.Shown() {
		// A create-before-destroy replace shows its deposed half itself.
		if c.StateHandler || c.Action == execgraph.ActionNoOp || c.OfReplace {
			continue
		}
		if shown == 0 {
			fmt.Fprintln(w, "pier will perform the following actions:")
			fmt.Fprintln(w)
		}
		shown++
		renderChange(w, c, &scratch)
	}
	outputs := p.OutputChanges()
	switch {
	case shown == 0 && len(outputs) > 0:
		fmt.Fprintln(w, "No changes to resources. Applying the plan records the new output values in state, changing nothing else.")
		fmt.Fprintln(w)
	case shown == 0:
		fmt.Fprintln(w, "No changes. The deployment matches its recorded state.")
		fmt.Fprintln(w)
	}
	s := p.Summary()
	fmt.Fprintf(w, "%s ", paintW(w, sgrBold, "Plan:"))
	if s.Import > 0 {
		fmt.Fprintf(w, "%d to import, ", s.Import)
	}
	fmt.Fprintf(w, "%d to create, %d to update, %d to destroy", s.Create, s.Update, s.Destroy)
	if s.Replace > 0 {
		fmt.Fprintf(w, ", %d to replace", s.Replace)
	}
	if s.Forget > 0 {
		fmt.Fprintf(w, ", %d to forget", s.Forget)
	}
	if s.Move > 0 {
		fmt.Fprintf(w, ", %d to move", s.Move)
	}
	fmt.Fprintf(w, ", %d unchanged.\n", s.NoOp)
	renderOutputChanges(w, outputs)
}

// renderOutputChanges prints "Changes to Outputs", as terraform plan does.
func renderOutputChanges(w io.Writer, changes []plan.OutputChange) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, paintW(w, sgrBold, "Changes to Outputs:"))
	width := 0
	for _, c := range changes {
		width = max(width, len(c.Name))
	}
	value := func(v any, sensitive, unknown bool) string {
		switch {
		case sensitive:
			return source.SensitiveText
		case unknown:
			return "(known after apply)"
		}
		return outputText(v, false)
	}
	for _, c := range changes {
		name := fmt.Sprintf("%-*s", width, c.Name)
		switch c.Action {
		case execgraph.ActionCreate:
			fmt.Fprintf(w, "  %s %s = %s\n", paintW(w, sgrGreen, "+"), name, value(c.After, c.Sensitive, c.Unknown))
		case execgraph.ActionDestroy:
			fmt.Fprintf(w, "  %s %s = %s -> null\n", paintW(w, sgrRed, "-"), name, value(c.Before, c.Sensitive, false))
		default:
			fmt.Fprintf(w, "  %s %s = %s -> %s\n", paintW(w, sgrYellow, "~"), name, value(c.Before, c.Sensitive, false), value(c.After, c.Sensitive, c.Unknown))
		}
	}
}

// renderScratch is what rendering one change after another reuses: the
// diffs of its planned outputs and the buffer of a diff's line, each
// done with once written.
type renderScratch struct {
	diffs []plan.Diff
	line  []byte
}

func renderChange(w io.Writer, c *plan.Change, scratch *renderScratch) {
	addr := c.Addr()
	what := ""
	if c.Resource == nil && c.Prior != nil {
		what = fmt.Sprintf(" (%s)", strings.TrimSpace(c.Prior.Entry.Provider+" "+c.Prior.Entry.Type))
	}
	if c.Structural {
		fmt.Fprintf(w, "  # %s: %s\n\n", addr, c.Note)
		return
	}
	if c.Pending && c.Resource == nil {
		fmt.Fprintf(w, "  # %s (depends on outputs of %s; planned after %s is applied)\n\n", addr, strings.Join(c.WaitsOn, ", "), plural(c.WaitsOn))
		return
	}
	var sym, verb string
	switch c.Action {
	case execgraph.ActionCreate:
		sym, verb = "+", "will be created"
	case execgraph.ActionUpdate:
		sym, verb = "~", "will be updated in place"
	case execgraph.ActionDestroy:
		sym, verb = "-", "will be destroyed"
	case execgraph.ActionReplace:
		sym, verb = "-/+", "will be replaced"
		if c.CreateBeforeDestroy {
			sym = "+/-"
		}
	case execgraph.ActionRefresh:
		// As a saved refresh-only plan shows it (pier show).
		sym, verb = "~", "will be recorded in state as read"
	case execgraph.ActionForget:
		sym, verb = ".", "will no longer be managed by pier"
	case execgraph.ActionImport:
		sym, verb = "<=", "will be imported"
	case execgraph.ActionMove:
		sym, verb = "->", "has moved"
	}
	if c.Move != nil {
		// Terraform's words: the record moves, the object stays.
		if c.Action == execgraph.ActionMove {
			verb = fmt.Sprintf("has moved from %s", c.Move.From)
		} else {
			verb = fmt.Sprintf("has moved from %s, and %s", c.Move.From, verb)
		}
	}
	if c.Import != nil {
		if c.Action == execgraph.ActionImport {
			verb = fmt.Sprintf("will be imported (id %q)", c.Import.ID)
		} else {
			verb = fmt.Sprintf("will be imported (id %q), then %s", c.Import.ID, strings.TrimPrefix(verb, "will be "))
		}
	}
	// The two lines that name the change are written part by part into
	// the line buffer: formatting them, and joining the bold part, once
	// per change was an allocation each of a large plan's many.
	bold, reset := "", ""
	if cw, ok := w.(colourWriter); ok && cw.on {
		bold, reset = sgrBold, sgrReset
	}
	writeLine(w, &scratch.line, "  ", bold, "# ", addr, " ", verb, reset)
	if c.Note != "" {
		fmt.Fprintf(w, " (%s)", c.Note)
	}
	if c.Pending {
		fmt.Fprintf(w, " (inputs depend on outputs of %s)", strings.Join(c.WaitsOn, ", "))
	}
	if c.Resource != nil {
		writeLine(w, &scratch.line, "\n  ", paintW(w, markerColour(sym), sym), " ", addr, " (", c.Resource.Provider, " ", c.Resource.Type, ")\n")
	} else {
		writeLine(w, &scratch.line, "\n  ", paintW(w, markerColour(sym), sym), " ", addr, what, "\n")
	}
	switch c.Action {
	case execgraph.ActionCreate:
		renderDiffLines(w, &scratch.line, c.RedactDiffs(plan.DiffInputs(nil, c.Resource.Inputs)), "      ")
	case execgraph.ActionUpdate, execgraph.ActionReplace:
		renderDiffLines(w, &scratch.line, c.RedactDiffs(plan.DiffInputs(c.Prior.Entry.InputProperties, c.Resource.Inputs)), "      ")
	case execgraph.ActionDestroy:
		renderDiffLines(w, &scratch.line, c.RedactDiffs(plan.DiffInputs(c.Prior.Entry.InputProperties, nil)), "      ")
	}
	if c.Planned != nil {
		planned := plannedDiffs(c, scratch.diffs[:0])
		renderDiffLines(w, &scratch.line, c.RedactDiffs(planned), "      ")
		if planned != nil {
			clear(planned)
			scratch.diffs = planned[:0]
		}
	}
	fmt.Fprintln(w)
}

// plannedDiffs are the changes of the outputs the provider planned that
// are not inputs (those are shown already): computed attributes, "(known
// after apply)" where the provider cannot tell yet. Nulls are left out,
// as Terraform leaves them out.
// For a create they are appended to buf, which the caller may reuse once
// they are rendered.
func plannedDiffs(c *plan.Change, buf []plan.Diff) []plan.Diff {
	if c.Action != execgraph.ActionUpdate || c.Prior == nil {
		// Every output is added, as plan.DiffInputs(nil, planned) has
		// it, without the map of planned outputs it would take: one a
		// resource, the largest part of rendering a fresh plan.
		out := buf[:0]
		for k, v := range c.Planned {
			if _, isInput := c.Resource.Inputs[k]; !isInput && v != nil {
				out = append(out, plan.Diff{Key: k, Kind: plan.DiffAdded, New: v})
			}
		}
		if len(out) == 0 {
			return nil
		}
		slices.SortFunc(out, func(a, b plan.Diff) int { return strings.Compare(a.Key, b.Key) })
		return out
	}
	planned := make(map[string]any, len(c.Planned))
	for k, v := range c.Planned {
		if _, isInput := c.Resource.Inputs[k]; !isInput && v != nil {
			planned[k] = v
		}
	}
	prior := make(map[string]any, len(planned))
	for k := range planned {
		if v, ok := c.Prior.Entry.OutputProperties[k]; ok {
			prior[k] = v
		}
	}
	return plan.DiffInputs(prior, planned)
}

func plural(s []string) string {
	if len(s) == 1 {
		return "it"
	}
	return "they are"
}

// renderDiffs writes diffs, a line each (a nested one a block), after
// indent. A line is put together in one buffer and written at once:
// fmt.Fprintf boxed each of its operands, four allocations a line, most
// of what rendering a fresh plan allocated.
func renderDiffs(w io.Writer, diffs []plan.Diff, indent string) {
	var line []byte
	renderDiffLines(w, &line, diffs, indent)
}

func renderDiffLines(w io.Writer, line *[]byte, diffs []plan.Diff, indent string) {
	for _, d := range diffs {
		switch d.Kind {
		case plan.DiffAdded:
			writeLine(w, line, indent, paintW(w, sgrGreen, "+"), " ", d.Key, " = ", renderValue(d.New), "\n")
		case plan.DiffRemoved:
			writeLine(w, line, indent, paintW(w, sgrRed, "-"), " ", d.Key, " = ", renderValue(d.Old), "\n")
		case plan.DiffChanged:
			writeLine(w, line, indent, paintW(w, sgrYellow, "~"), " ", d.Key, " = ", renderValue(d.Old), " -> ", renderValue(d.New), "\n")
		case plan.DiffNested:
			writeLine(w, line, indent, paintW(w, sgrYellow, "~"), " ", d.Key, " {\n")
			renderDiffLines(w, line, d.Children, indent+"    ")
			writeLine(w, line, indent, "  }\n")
		}
	}
}

// writeLine writes parts, joined in *line, with one Write.
func writeLine(w io.Writer, line *[]byte, parts ...string) {
	b := (*line)[:0]
	for _, p := range parts {
		b = append(b, p...)
	}
	*line = b
	_, _ = w.Write(b)
}

// renderValue prints an input value compactly; unknown values read
// "(known after apply)", also inside objects and lists.
func renderValue(v any) string {
	if source.IsUnknown(v) {
		return "(known after apply)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.ReplaceAll(string(b), `"(known after apply)"`, "(known after apply)")
}

// renderBuffer is how much of a rendered plan goes out in one write.
const renderBuffer = 32 << 10
