package terraform_test

import (
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
)

// callsByRequest lists the plugin calls a bridge made for each of its
// requests (by request id), from its debug log; read it once the bridge
// has exited, when its stderr is complete.
func callsByRequest(t *testing.T, b *bridge) map[int][]string {
	t.Helper()
	if code := b.exitCode(); code != 0 {
		t.Fatalf("bridge exited %d; stderr:\n%s", code, b.stderr)
	}
	calls := map[int][]string{}
	for line := range strings.Lines(b.stderr.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "call" {
			continue
		}
		if id, ok := rec[logkey.RequestID].(float64); ok {
			call, _ := rec[logkey.Call].(string)
			calls[int(id)] = append(calls[int(id)], call)
		}
	}
	return calls
}

// withoutConfigure drops the calls that configure the provider, which
// the first request needing a configured provider makes.
func withoutConfigure(calls []string) []string {
	var out []string
	for _, c := range calls {
		if c != "validate provider config" && c != "configure provider" {
			out = append(out, c)
		}
	}
	return out
}

func (b *bridge) createPlanned(typ string, in schema.Properties, plan string) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{CreateResourceRequest: &schema.CreateResourceRequest{Type: typ, InputProperties: in, IsStateful: true, Plan: plan}})
}

func (b *bridge) updatePlanned(typ string, oldIn, out, in schema.Properties, plan string) schema.Response {
	b.t.Helper()
	return b.send(schema.Request{UpdateResourceRequest: &schema.UpdateResourceRequest{
		Resource:        schema.ExtantResource{Type: typ, InputProperties: oldIn, OutputProperties: out},
		InputProperties: in,
		Plan:            plan,
	}})
}

// TestSavedPlanIsApplied: the plan a preview returns, handed to another
// bridge process (as pier apply PLANFILE does, long after pier plan),
// is applied there without planning again: a create asks only
// ApplyResourceChange, an update neither UpgradeResourceState nor
// PlanResourceChange. A plan that does not fit its request (other inputs,
// or not a plan at all) is planned again, as without one. The plan is
// never logged.
func TestSavedPlanIsApplied(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-fixture")
	root, token := t.TempDir(), "tok-"+rand.Text()
	opts := bridgeOpts{
		config: map[string]any{"root": root, "token": token},
		env:    []string{"FIXTURE_EXPECTED_TOKEN=" + token},
	}
	planner, applier := startBridge(t, bin, opts), startBridge(t, bin, opts)
	plan := func(resp schema.Response) string {
		t.Helper()
		p := ok(t, resp).PreviewResourceResponse.Plan
		if p == "" {
			t.Fatal("the preview returned no plan")
		}
		return p
	}

	in := fullInputs("a.txt", "one")
	created := plan(planner.previewCreate("fixture_file", in))
	out := ok(t, applier.createPlanned("fixture_file", in, created)).CreateResourceResponse.OutputProperties // request 1
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "one" {
		t.Errorf("created file holds %q, want one", got)
	}

	changed := fullInputs("a.txt", "two")
	updated := plan(planner.preview("fixture_file", in, out, changed))
	out2 := ok(t, applier.updatePlanned("fixture_file", in, out, changed, updated)).UpdateResourceResponse.OutputProperties // 2
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "two" {
		t.Errorf("updated file holds %q, want two", got)
	}

	three := fullInputs("a.txt", "three")
	other := plan(planner.preview("fixture_file", changed, out2, three))
	ok(t, applier.updatePlanned("fixture_file", changed, out2, fullInputs("a.txt", "four"), other)) // 3
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "four" {
		t.Errorf("updated file holds %q, want four (the plan for three is not applied to four)", got)
	}
	ok(t, applier.createPlanned("fixture_file", fullInputs("b.txt", "x"), created)) // 4: a.txt's plan
	if got := readFile(t, filepath.Join(root, "b.txt")); got != "x" {
		t.Errorf("created file holds %q, want x", got)
	}
	ok(t, applier.createPlanned("fixture_file", fullInputs("c.txt", "y"), "not a plan")) // 5

	calls := callsByRequest(t, applier)
	want := map[int][]string{
		1: {"apply resource change"},
		2: {"apply resource change"},
		3: {"validate resource config", "upgrade resource state", "plan resource change", "apply resource change"},
		4: {"validate resource config", "plan resource change", "apply resource change"},
		5: {"validate resource config", "plan resource change", "apply resource change"},
	}
	for id, w := range want {
		if diff := cmp.Diff(w, withoutConfigure(calls[id])); diff != "" {
			t.Errorf("request %d: plugin calls (-want +got):\n%s", id, diff)
		}
	}
	callsByRequest(t, planner)
	for _, b := range []*bridge{planner, applier} {
		for _, p := range []string{created, updated, other} {
			if strings.Contains(b.stderr.String(), p) {
				t.Errorf("a plan appears on a bridge's stderr")
			}
		}
	}
}

// TestTimeStaticSavedPlan: terraform-provider-time's plan of a create,
// applied by another bridge process, makes the object the plan said, with
// the values it left unknown filled in, and no second plan.
func TestTimeStaticSavedPlan(t *testing.T) {
	t.Parallel()
	bin := providerBin(t, "terraform-provider-time")
	planner, applier := startBridge(t, bin, bridgeOpts{}), startBridge(t, bin, bridgeOpts{})
	in := schema.Properties{"triggers": map[string]any{"k": "1"}}
	pr := ok(t, planner.previewCreate("time_static", in)).PreviewResourceResponse
	if pr.Plan == "" {
		t.Fatal("the preview returned no plan")
	}
	out := ok(t, applier.createPlanned("time_static", in, pr.Plan)).CreateResourceResponse.OutputProperties
	if str(t, out, "rfc3339") == "" {
		t.Errorf("rfc3339, unknown in the plan, is not set: %v", out)
	}
	if diff := cmp.Diff(map[string]any{"k": "1"}, out["triggers"]); diff != "" {
		t.Errorf("triggers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"apply resource change"}, withoutConfigure(callsByRequest(t, applier)[1])); diff != "" {
		t.Errorf("create with the saved plan: plugin calls (-want +got):\n%s", diff)
	}
	callsByRequest(t, planner)
}
