package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// TestSavedPlanDoesNotPlanAgain: pier apply PLANFILE carries out the
// saved execution graph. It asks no provider to preview again: each
// create and update is previewed once in all, when planning. A resource
// whose inputs wait on a create's outputs is resolved at run time from
// the deployment source, without planning anything else again.
func TestSavedPlanDoesNotPlanAgain(t *testing.T) {
	t.Parallel()
	conf := func(cSize string) string {
		return previewDeployment(t, "a1", "b1", cSize) + `
resource "d" {
  provider = provider.imm
  type     = "named"
  state    = resource.state
  inputs   = { name = "d-${resource.a.outputs.serial}", size = 1 }
}
`
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": conf("1")})
	d.mustRun("plan", "-out", "plan.json")
	planned := d.ops()
	want := []string{"preview-create a1", "preview-create c"}
	if got := previewsOf(planned); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan previewed %v, want %v (d waits on a's outputs; b's provider does not preview)", got, want)
	}
	out := d.mustRun("apply", "plan.json")
	if !strings.Contains(out, "4 created") {
		t.Fatalf("apply of the saved plan:\n%s", out)
	}
	applied := d.ops()[len(planned):]
	if p := previewsOf(applied); len(p) > 0 {
		t.Errorf("apply of the saved plan previewed again: %v", p)
	}
	if fmt.Sprint(countOps(applied, "create")) != "4" {
		t.Errorf("apply of the saved plan: %v, want 4 creates", applied)
	}

	// An update: previewed once, when planning.
	d.write(map[string]string{"main.pier.hcl": conf("2")})
	before := len(d.ops())
	d.mustRun("plan", "-out", "plan2.json")
	d.mustRun("apply", "plan2.json")
	ops := d.ops()[before:]
	if fmt.Sprint(previewsOf(ops)) != "[preview c]" || countOps(ops, "update") != 1 {
		t.Errorf("plan and apply of an update: %v, want one preview and one update of c", ops)
	}
}

func previewsOf(ops []string) []string {
	var out []string
	for _, o := range ops {
		if strings.HasPrefix(o, "preview") {
			out = append(out, o)
		}
	}
	// Previews run in parallel.
	slices.Sort(out)
	return out
}

func countOps(ops []string, op string) int {
	n := 0
	for _, o := range ops {
		if strings.HasPrefix(o, op+" ") {
			n++
		}
	}
	return n
}

// TestSavedPlanRefusesChangedProviderBinary: a saved plan is carried out
// only by the provider executables it was made with. Edit the script
// after planning, and apply refuses (exit 3), naming the provider, before
// any provider starts or any state is written.
func TestSavedPlanRefusesChangedProviderBinary(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/providers/journal.py")
	if err != nil {
		t.Fatal(err)
	}
	d := newDeployment(t, map[string]string{"main.pier.hcl": strings.ReplaceAll(header, "JOURNAL_PROVIDER", "./journal.py") + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "a" }
}
`})
	script := filepath.Join(d.dir, "journal.py")
	testbin.WriteExecutable(t, script, src, 0o755)
	d.mustRun("plan", "-out", "plan.json")
	testbin.WriteExecutable(t, script, append(src, []byte("\n# edited after the plan\n")...), 0o755)
	out, errs, code := d.run("apply", "plan.json")
	if code != exitStalePlan || !regexp.MustCompile(`provider journal: its executable \S*journal.py has changed since the plan was made`).MatchString(errs) {
		t.Fatalf("apply with an edited provider: exit %d, want %d\n%s\n%s", code, exitStalePlan, out, errs)
	}
	if n := len(d.journal()); n != 0 {
		t.Errorf("a refused plan ran the provider: %v", d.journal())
	}
	if _, err := os.Stat(filepath.Join(d.dir, "state.json")); err == nil {
		t.Error("a refused plan wrote the state file")
	}
	// The same edit planned again applies.
	d.mustRun("plan", "-out", "plan.json")
	if out := d.mustRun("apply", "plan.json"); !strings.Contains(out, "1 created") {
		t.Errorf("apply of the new plan:\n%s", out)
	}
}

// TestSavedPlanTerraformPlansOnce counts the Terraform protocol requests
// terraform-provider-time receives (its own trace log): planning asks
// ValidateResourceTypeConfig and PlanResourceChange once per create;
// applying the saved plan asks them only once more, the bridge's own
// plan before ApplyResourceChange, as terraform apply PLANFILE does.
// Before the saved graph was executed, apply planned everything again:
// twice each.
func TestSavedPlanTerraformPlansOnce(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, nil)
	rpcs := tracedTimeProvider(t, d)
	d.write(map[string]string{"main.pier.hcl": timeStatics(3, "")})
	d.mustRun("plan", "-out", "plan.json")
	if got := rpcs(); got["PlanResourceChange"] != 3 || got["ValidateResourceTypeConfig"] != 3 || got["ApplyResourceChange"] != 0 {
		t.Errorf("plan -out: %v, want 3 PlanResourceChange and 3 ValidateResourceTypeConfig", got)
	}
	out := d.mustRun("apply", "plan.json")
	if !strings.Contains(out, "3 created") {
		t.Fatalf("apply of the saved plan:\n%s", out)
	}
	if got := rpcs(); got["PlanResourceChange"] != 3 || got["ValidateResourceTypeConfig"] != 3 || got["ApplyResourceChange"] != 3 {
		t.Errorf("apply plan.json: %v, want 3 of PlanResourceChange, ValidateResourceTypeConfig and ApplyResourceChange (the bridge's own, not a second plan)", got)
	}
}

// TestApplyTerraformPlansOnce: a live pier apply plans each create once.
// The preview's plan waits in the bridge that made it, the host sends the
// create to that bridge, and the bridge applies the plan it has: one
// ValidateResourceTypeConfig, PlanResourceChange and ApplyResourceChange
// per create, where terraform apply plans each create a second time
// during apply. One bridge (parallelism = 1) makes the count
// exact; with several, a create whose bridge is busy may go to another,
// which plans again.
func TestApplyTerraformPlansOnce(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, nil)
	rpcs := tracedTimeProvider(t, d)
	d.write(map[string]string{"main.pier.hcl": timeStatics(3, "parallelism = 1")})
	if out := d.mustRun("apply"); !strings.Contains(out, "3 created") {
		t.Fatalf("apply:\n%s", out)
	}
	if got := rpcs(); got["PlanResourceChange"] != 3 || got["ValidateResourceTypeConfig"] != 3 || got["ApplyResourceChange"] != 3 {
		t.Errorf("apply: %v, want 3 each of ValidateResourceTypeConfig, PlanResourceChange and ApplyResourceChange", got)
	}
}

// tracedTimeProvider puts terraform-provider-time in d behind a wrapper
// that turns on its protocol trace, and returns a function that counts
// the requests it received since the last call, by RPC name.
func tracedTimeProvider(t *testing.T, d *deployment) func() map[string]int {
	t.Helper()
	real := tfProviderForTest(t, "terraform-provider-time")
	log := filepath.Join(d.dir, "tf.log")
	wrapper := filepath.Join(d.dir, "terraform-provider-time")
	script := fmt.Sprintf("#!/bin/sh\nexport TF_LOG=trace TF_LOG_SDK=trace TF_LOG_SDK_PROTO=trace\nexec '%s' \"$@\" 2>>'%s'\n", real, log)
	testbin.WriteExecutable(t, wrapper, []byte(script), 0o755)
	rpc := regexp.MustCompile(`"tf_rpc":"(\w+)"`)
	return func() map[string]int {
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(log); err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, line := range strings.Split(string(data), "\n") {
			if m := rpc.FindStringSubmatch(line); m != nil && strings.Contains(line, `"Received request"`) {
				out[m[1]]++
			}
		}
		return out
	}
}

// timeStatics is a deployment of n time_static through the wrapper
// tracedTimeProvider writes; attrs go in the provider block.
func timeStatics(n int, attrs string) string {
	return fmt.Sprintf(`
provider "local" { builtin = "local" }
provider "time" {
  terraform = "./terraform-provider-time"
  %s
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "t" {
  count    = %d
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { index = "${count.index}" } }
}
`, attrs, n)
}

// TestNixSavedPlanResolvesAtRunTime: a saved plan of a flake whose
// member reads another's outputs (examples/flake: site.motd reads
// first.value) holds a resolve operation; pier apply FILE evaluates the
// flake for it once first is applied, and plans nothing again.
func TestNixSavedPlanResolvesAtRunTime(t *testing.T) {
	t.Parallel()
	testneed.Tool(t, "nix")
	git := testneed.Tool(t, "git")
	src, err := os.ReadFile("../../examples/flake/flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("flake.nix", string(src))
	for _, args := range [][]string{{"init", "-q"}, {"add", "flake.nix"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = d.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	d.mustRun("plan", "--flake", ".", "-out", "plan.json")
	data, err := os.ReadFile(filepath.Join(d.dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"opcode": "resolve"`) && !strings.Contains(string(data), `"opcode":"resolve"`) {
		t.Errorf("the saved plan has no resolve operation for site.motd:\n%s", data)
	}
	if out := d.mustRun("apply", "plan.json"); !strings.Contains(out, "2 created") {
		t.Fatalf("apply of the saved plan:\n%s", out)
	}
	motd, err := os.ReadFile(filepath.Join(d.dir, "motd.txt"))
	if err != nil || !strings.Contains(string(motd), "since the first apply") {
		t.Errorf("motd.txt: %q, %v", motd, err)
	}
	if out := d.mustRun("plan", "--flake", "."); !strings.Contains(out, "No changes") {
		t.Errorf("plan after the saved plan's apply:\n%s", out)
	}
}
