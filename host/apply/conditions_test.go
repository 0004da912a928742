package apply_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/hclsource"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/statefile"
)

const conditionsHead = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "clock" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "3" }
}
resource "free" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "free" }
}
resource "after" {
  provider   = provider.local
  type       = "memo"
  state      = resource.state
  inputs     = { initialize_with = "after" }
  depends_on = [resource.guarded]
}
`

// guarded is the resource under test, with lifecycle blocks lc.
func guarded(lc string) string {
	return conditionsHead + `
resource "guarded" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "bad" }
  lifecycle {
` + lc + `
  }
}
`
}

// TestConditionsApply runs resources' preconditions and postconditions
// through plan and apply against the real local adapter: what a failure
// stops, what it leaves recorded, and what the next plan says.
func TestConditionsApply(t *testing.T) {
	t.Parallel()
	type outcome struct {
		planErr  string            // a plan refused: the failed block's condition, file:line:col
		failed   map[string]string // address → kind of the condition that failed it
		skipped  []string          // skipped resources
		recorded []string          // recorded after apply
		next     string            // what refuses the next plan, as planErr
		created  int
	}
	tests := map[string]struct {
		src  string
		want outcome
	}{
		"a precondition known to fail refuses the plan": {
			src: guarded(`    precondition {
      condition     = 1 > 2
      error_message = "one is not more than two."
    }`),
			want: outcome{planErr: "main.pier.hcl:35:23: Resource precondition failed: one is not more than two."},
		},
		"a precondition known only after apply fails the resource then": {
			src: guarded(`    precondition {
      condition     = tonumber(resource.clock.outputs.value) > 5
      error_message = "the clock says ${resource.clock.outputs.value}."
    }`),
			want: outcome{
				failed:   map[string]string{"guarded": "precondition"},
				skipped:  []string{"after"},
				recorded: []string{"clock", "free"},
				next:     "main.pier.hcl:35:23: Resource precondition failed: the clock says 3.",
				created:  2,
			},
		},
		"a precondition known only after apply that holds": {
			src: guarded(`    precondition {
      condition     = tonumber(resource.clock.outputs.value) == 3
      error_message = "the clock says ${resource.clock.outputs.value}."
    }`),
			want: outcome{recorded: []string{"after", "clock", "free", "guarded"}, created: 4},
		},
		"a postcondition that fails keeps the object recorded": {
			src: guarded(`    postcondition {
      condition     = self.value == "good"
      error_message = "guarded holds ${self.value}."
    }`),
			want: outcome{
				failed:   map[string]string{"guarded": "postcondition"},
				skipped:  []string{"after"},
				recorded: []string{"clock", "free", "guarded"},
				next:     "main.pier.hcl:35:23: Resource postcondition failed: guarded holds bad.",
				created:  3,
			},
		},
		"a postcondition that holds": {
			src: guarded(`    postcondition {
      condition     = self.value == "bad" && resource.clock.outputs.value == "3"
      error_message = "guarded holds ${self.value}."
    }`),
			want: outcome{recorded: []string{"after", "clock", "free", "guarded"}, created: 4},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			newEngine := func() *engine.Engine {
				src, err := hclsource.Load(dir, hclsource.Options{})
				if err != nil {
					t.Fatal(err)
				}
				e := engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
				t.Cleanup(func() { e.Close() })
				return e
			}
			e := newEngine()
			p, err := plan.Make(t.Context(), e, plan.Options{})
			if got := conditionFailure(t, err, dir); got != tc.want.planErr {
				t.Fatalf("plan: %q, want %q", got, tc.want.planErr)
			}
			if err != nil {
				return
			}
			res, err := apply.Run(t.Context(), e, plan.NewRunTimePlanner(e), nil, p)
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]string{}
			for _, re := range res.Errors {
				var ce *plan.ConditionError
				if !errors.As(re, &ce) {
					t.Errorf("%s failed for another reason: %v", re.Address, re)
					continue
				}
				failed[re.Address] = ce.Result.Kind.String()
			}
			if diff := cmp.Diff(tc.want.failed, failed, cmpEmpty); diff != "" {
				t.Errorf("failed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want.skipped, res.Skipped, cmpEmpty); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if res.Created != tc.want.created {
				t.Errorf("created %d, want %d", res.Created, tc.want.created)
			}
			e.Close()
			if diff := cmp.Diff(tc.want.recorded, recordedIn(t, filepath.Join(dir, "state.json"))); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
			_, err = plan.Make(t.Context(), newEngine(), plan.Options{})
			if got := conditionFailure(t, err, dir); got != tc.want.next {
				t.Errorf("next plan: %q, want %q", got, tc.want.next)
			}
		})
	}
}

var cmpEmpty = cmp.FilterValues(func(a, b any) bool {
	return isEmpty(a) && isEmpty(b)
}, cmp.Ignore())

func isEmpty(v any) bool {
	switch x := v.(type) {
	case []string:
		return len(x) == 0
	case map[string]string:
		return len(x) == 0
	}
	return false
}

// conditionFailure is a plan's error as file:line:col: summary: message
// when it is a failed condition, "" when there is none.
func conditionFailure(t *testing.T, err error, dir string) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var ce *plan.ConditionError
	if !errors.As(err, &ce) {
		t.Fatalf("not a failed condition: %v", err)
	}
	at := strings.TrimPrefix(ce.Result.Range.String(), dir+string(filepath.Separator))
	return at + ": " + ce.Result.Summary + ": " + ce.Result.Message
}

// recordedIn lists the resources a state file records, sorted.
func recordedIn(t *testing.T, path string) []string {
	t.Helper()
	snap, err := statefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := snap.State()
	if err != nil {
		t.Fatal(err)
	}
	res, _ := st["resources"].(map[string]any)
	return slices.Sorted(maps.Keys(res))
}

// TestPreconditionBeforeReplace checks that a replacement whose
// precondition is known only during apply destroys nothing when it
// fails: the check comes before the destroy that starts the replace.
func TestPreconditionBeforeReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(lc string) {
		if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(guarded(lc)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(o plan.Options) *apply.Result {
		src, err := hclsource.Load(dir, hclsource.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := engine.New(engine.Config{Source: src, Dir: dir, PierExecutable: testbin.Pier(t), Builtins: builtin.Capabilities})
		defer e.Close()
		p, err := plan.Make(t.Context(), e, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := apply.Run(t.Context(), e, plan.NewRunTimePlanner(e), nil, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	write("")
	if err := run(plan.Options{}).Err(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The clock changes, so the precondition is known only once it has.
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(strings.Replace(guarded(`    precondition {
      condition     = tonumber(resource.clock.outputs.value) > 5
      error_message = "the clock says ${resource.clock.outputs.value}."
    }`), `initialize_with = "3"`, `initialize_with = "4"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(plan.Options{Replace: []string{"guarded"}})
	var ce *plan.ConditionError
	if len(res.Errors) != 1 || res.Errors[0].Address != "guarded" || !errors.As(res.Errors[0], &ce) {
		t.Fatalf("errors %v, want guarded's precondition", res.Errors)
	}
	if res.Destroyed != 0 || res.Updated != 1 {
		t.Errorf("%d destroyed, %d updated; want the clock's update only", res.Destroyed, res.Updated)
	}
	if diff := cmp.Diff([]string{"after", "clock", "free", "guarded"}, recordedIn(t, filepath.Join(dir, "state.json"))); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	after, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(after), "\n")-strings.Count(string(before), "\n") > 3 {
		t.Errorf("more events than the clock's update:\n%s", after[len(before):])
	}
}
