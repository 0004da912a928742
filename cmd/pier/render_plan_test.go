package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
)

// writeCounter counts the writes that reach it.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (c *writeCounter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// TestRenderPlanWritesOnce: a plan goes to stdout, which is unbuffered,
// in as few writes as its size needs rather than one per line, and
// buffering keeps the writer's colour decision.
func TestRenderPlanWritesOnce(t *testing.T) {
	t.Parallel()
	var changes []plan.PlannedChange
	for i := range 100 {
		changes = append(changes, plan.PlannedChange{
			Address: fmt.Sprintf("t[%d]", i), Action: execgraph.ActionCreate, Provider: "time", Type: "time_static",
			After: map[string]any{"triggers": map[string]any{"index": fmt.Sprint(i)}},
		})
	}
	p := plan.Showable(changes, nil, false)
	tests := map[string]struct {
		colour bool
		want   string // present in the output
		absent string
	}{
		"colour":    {colour: true, want: "  " + sgrBold + "# t[7] will be created" + sgrReset + "\n  " + sgrGreen + "+" + sgrReset + " t[7] (time time_static)\n", absent: ""},
		"no colour": {colour: false, want: "t[99]", absent: "\x1b["},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var direct writeCounter
			renderPlan(colourWriter{Writer: &direct, on: tt.colour}, p)
			out := direct.String()
			if direct.writes != 1 {
				t.Errorf("%d writes for a %d byte plan, want 1", direct.writes, len(out))
			}
			for _, want := range []string{tt.want, "t[0]", "t[99]", "100 to create, 0 to update"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if tt.absent != "" && strings.Contains(out, tt.absent) {
				t.Errorf("output has %q:\n%s", tt.absent, out)
			}
		})
	}
}

// BenchmarkRenderPlan renders the plan of 1000 creates that a fresh apply
// of bench/vs-tofu.sh shows, for the allocations rendering costs the
// command (-benchmem).
func BenchmarkRenderPlan(b *testing.B) {
	var changes []plan.PlannedChange
	for i := range 1000 {
		changes = append(changes, plan.PlannedChange{
			Address: fmt.Sprintf("t[%d]", i), Action: execgraph.ActionCreate, Provider: "time", Type: "time_static",
			After: map[string]any{"triggers": map[string]any{"index": fmt.Sprint(i)}},
		})
	}
	p := plan.Showable(changes, nil, false)
	b.ReportAllocs()
	for b.Loop() {
		renderPlan(colourWriter{Writer: io.Discard}, p)
	}
}
