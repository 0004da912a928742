package nixsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/nixops4state"
)

// TestNixOps4StateInterop runs the real pier and nix on a flake in
// NixOps4's shape whose state file was written by NixOps4 (pretty-printed,
// index 0 on every event, input_properties) or in the spelling NixOps4's
// manual shows (inputProperties). pier must read either without planning a
// change, and what it appends must be a file NixOps4's code reads
// (internal/nixops4state emulates its reader).
func TestNixOps4StateInterop(t *testing.T) {
	t.Parallel()
	needNix(t)
	for name, fixture := range map[string]string{"written by NixOps4": "nixops4-state.json", "manual's spelling": "manual-state.json"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			added := `added.resource = { provider = local; type = "memo"; inputs.initialize_with = "from pier"; outputsSkeleton.value = { }; state = [ "state" ]; };`
			flake := copyFlake(t, "interop", nil)
			data, err := os.ReadFile(filepath.Join(flake, fixture))
			if err != nil {
				t.Fatal(err)
			}
			statePath := filepath.Join(flake, "state.json")
			if err := os.WriteFile(statePath, data, 0o600); err != nil {
				t.Fatal(err)
			}
			ref := "path:" + flake

			plan := runPier(t, flake, "plan", "--flake", ref)
			plans := plan.ofType("plan")
			if len(plans) != 1 {
				t.Fatalf("plan: want one plan event, got %v\n%s", plan.events, plan.stderr)
			}
			if d := cmp.Diff(map[string]any{"create": 0.0, "update": 0.0, "destroy": 0.0, "replace": 0.0, "no_op": 2.0}, plans[0]["summary"]); d != "" {
				t.Errorf("plan of the state NixOps4 wrote (-want +got):\n%s", d)
			}

			flakeFile := filepath.Join(flake, "flake.nix")
			src, err := os.ReadFile(flakeFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(flakeFile, []byte(strings.Replace(string(src), "# @EXTRA@", added, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			apply := runPier(t, flake, "apply", "--flake", ref)
			if d := cmp.Diff(map[string]float64{"created": 1, "updated": 0, "destroyed": 0}, apply.summary(t)); d != "" {
				t.Errorf("apply (-want +got):\n%s", d)
			}

			// NixOps4 numbers every event 0: one warning for the file, when
			// apply opens it for writing, not one per event.
			warned := 0
			for _, ev := range apply.ofType("log") {
				if msg, _ := ev["message"].(string); strings.Contains(msg, "does not increase") {
					warned++
				}
			}
			if warned != 1 {
				t.Errorf("apply warned %d times about the indexes, want once: %v", warned, apply.ofType("log"))
			}

			after, err := os.ReadFile(statePath)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(after), string(data)) {
				t.Errorf("pier rewrote events NixOps4 wrote; it may only append")
			}
			verify := runPier(t, flake, "statefile", "verify", "--json", statePath)
			if v := verify.ofType("verify"); len(v) != 1 {
				t.Errorf("statefile verify: %v", verify.events)
			} else if ws, _ := v[0]["warnings"].([]any); len(ws) != 1 || ws[0].(map[string]any)["count"] != 2.0 {
				t.Errorf("statefile verify: want one warning covering NixOps4's 2 index-0 events, got %v", ws)
			}
			st, err := nixops4state.ReadFile(after)
			if fixture == "manual-state.json" {
				// NixOps4's code refuses its manual's spelling; pier leaves
				// entries it did not change as they are.
				if err == nil || !strings.Contains(err.Error(), "input_properties") {
					t.Errorf("NixOps4's reader: err = %v, want it to refuse the manual's spelling", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NixOps4 would refuse the state pier wrote: %v\n%s", err, after)
			}
			want := map[string]nixops4state.Resource{
				"token": {Type: "memo", InputProperties: map[string]any{"initialize_with": "from nixops4"}, OutputProperties: map[string]any{"value": "from nixops4"}},
				"added": {Type: "memo", InputProperties: map[string]any{"initialize_with": "from pier"}, OutputProperties: map[string]any{"value": "from pier"}},
			}
			if d := cmp.Diff(want, st.Resources); d != "" {
				t.Errorf("resources as NixOps4 reads them (-want +got):\n%s", d)
			}
			if got := st.Deployments["app"].Resources["motd"].OutputProperties["value"]; got != "motd: from nixops4" {
				t.Errorf("app.motd as NixOps4 reads it: value %v", got)
			}
		})
	}
}
