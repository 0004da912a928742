package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/rpcapi/client"
	"github.com/pierhq/pier/rpcapi/pier1"
)

// Two files pier manages; contents are filled in per step.
const controlsDeployment = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "a.txt", contents = "A" }
}
resource "b" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "b.txt", contents = "B" }
}
`

func planOK(t *testing.T, c *client.Client, req *pier1.PlanDeployment_Request) *client.PlanResult {
	t.Helper()
	p, err := c.Plan(t.Context(), req)
	if err != nil || p.Complete.PlanHandle == 0 {
		t.Fatalf("plan %v = %+v, %v", req, p, err)
	}
	return p
}

func discard(t *testing.T, c *client.Client, h int64) {
	t.Helper()
	if _, err := c.Deployments.DiscardPlan(t.Context(), &pier1.DiscardPlan_Request{PlanHandle: h}); err != nil {
		t.Fatal(err)
	}
}

// PlanDeployment takes what pier plan's flags give: refresh, target and
// replace.
func TestPlanControls(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": controlsDeployment})
	dh := openDir(t, c, dir)
	first := planOK(t, c, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if _, err := c.Apply(t.Context(), first.Complete.PlanHandle); err != nil {
		t.Fatal(err)
	}

	// Drift: a normal plan trusts the record; with refresh it reads the
	// file and plans to put the contents back.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("edited by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := planOK(t, c, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if a := changesByAddress(t, plain)["a"]; a.GetAction() != pier1.Action_NO_OP {
		t.Fatalf("plan without refresh: a = %v, want NO_OP (the record is unchanged)", a)
	}
	discard(t, c, plain.Complete.PlanHandle)
	refreshed := planOK(t, c, &pier1.PlanDeployment_Request{DeploymentHandle: dh, Refresh: true})
	got := changesByAddress(t, refreshed)
	if got["a"].GetAction() != pier1.Action_UPDATE || got["b"].GetAction() != pier1.Action_NO_OP {
		t.Fatalf("plan with refresh: a = %v, b = %v; want a UPDATE (the read saw the drift), b NO_OP", got["a"], got["b"])
	}
	res, err := c.Apply(t.Context(), refreshed.Complete.PlanHandle)
	if err != nil || res.Complete.Updated != 1 {
		t.Fatalf("apply refreshed plan = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "A" {
		t.Fatalf("a.txt after the refreshed apply = %q, want A", b)
	}

	// Target: both files change; the plan covers only b.
	next := strings.NewReplacer(`contents = "A"`, `contents = "A2"`, `contents = "B"`, `contents = "B2"`).Replace(controlsDeployment)
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(next), 0o644); err != nil {
		t.Fatal(err)
	}
	targeted := planOK(t, c, &pier1.PlanDeployment_Request{DeploymentHandle: dh, Targets: []string{"b"}})
	got = changesByAddress(t, targeted)
	if got["b"].GetAction() != pier1.Action_UPDATE || got["a"].GetAction() == pier1.Action_UPDATE {
		t.Fatalf("plan targeting b: a = %v, b = %v; want only b updated", got["a"], got["b"])
	}
	if s := targeted.Complete.Summary; s.Update != 1 {
		t.Fatalf("plan targeting b: summary %v, want one update", s)
	}
	discard(t, c, targeted.Complete.PlanHandle)

	// Replace: an unchanged resource is replaced because the request says so.
	replaced := planOK(t, c, &pier1.PlanDeployment_Request{DeploymentHandle: dh, Targets: []string{"a"}, Replace: []string{"a"}})
	if a := changesByAddress(t, replaced)["a"]; a.GetAction() != pier1.Action_REPLACE {
		t.Fatalf("plan replacing a: a = %v, want REPLACE", a)
	}
	discard(t, c, replaced.Complete.PlanHandle)

	// Bad requests are refused as pier plan refuses the flags.
	_, err = c.Plan(t.Context(), &pier1.PlanDeployment_Request{DeploymentHandle: dh, Targets: []string{"a["}})
	wantCode(t, err, codes.InvalidArgument, `"a[" is not a resource address`)
	_, err = c.Plan(t.Context(), &pier1.PlanDeployment_Request{DeploymentHandle: dh, RefreshOnly: true, Replace: []string{"a"}})
	wantCode(t, err, codes.InvalidArgument, "refresh-only")
	_, err = c.Plan(t.Context(), &pier1.PlanDeployment_Request{DeploymentHandle: dh, Destroy: true, Targets: []string{"a"}})
	wantCode(t, err, codes.InvalidArgument, "destroy")
}

// A plan file pier plan -out wrote, given as bytes, opens as a plan
// handle that ApplyPlan carries out; a stale one is refused as pier
// apply FILE refuses it.
func TestOpenSavedPlan(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": strings.Replace(controlsDeployment, `contents = "A"`, `contents = var.greeting`, 1) + `
variable "greeting" { type = string }
`})
	plan := exec.Command(testbin.Pier(t), "plan", "--var", "greeting=from the plan", "-out", "saved.plan")
	plan.Dir = dir
	if out, err := plan.CombinedOutput(); err != nil {
		t.Fatalf("pier plan -out: %v\n%s", err, out)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "saved.plan"))
	if err != nil {
		t.Fatal(err)
	}

	bad, err := c.Deployments.OpenSavedPlan(t.Context(), &pier1.OpenSavedPlan_Request{SavedPlan: append([]byte(nil), saved[:len(saved)/2]...)})
	if err != nil || bad.PlanHandle != 0 || len(bad.Diagnostics) == 0 {
		t.Fatalf("OpenSavedPlan of half a plan = %+v, %v; want diagnostics and no handle", bad, err)
	}

	op, err := c.Deployments.OpenSavedPlan(t.Context(), &pier1.OpenSavedPlan_Request{SavedPlan: saved})
	if err != nil || op.PlanHandle == 0 {
		t.Fatalf("OpenSavedPlan = %+v, %v", op, err)
	}
	actions := map[string]pier1.Action{}
	for _, pc := range op.PlannedChanges {
		actions[pc.Address] = pc.Action
	}
	if actions["a"] != pier1.Action_CREATE || actions["b"] != pier1.Action_CREATE {
		t.Errorf("saved plan's changes = %v, want a and b created", op.PlannedChanges)
	}
	res, err := c.Apply(t.Context(), op.PlanHandle)
	if err != nil || res.Complete.Created != 2 {
		t.Fatalf("apply saved plan = %+v, %v (diagnostics %v)", res, err, res)
	}
	// The plan's variables, not a fresh evaluation's (which has none).
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "from the plan" {
		t.Fatalf("a.txt = %q, want the saved plan's value", b)
	}

	// A plan made, then the source edited: stale.
	plan = exec.Command(testbin.Pier(t), "plan", "--var", "greeting=again", "-out", "saved.plan")
	plan.Dir = dir
	if out, err := plan.CombinedOutput(); err != nil {
		t.Fatalf("pier plan -out: %v\n%s", err, out)
	}
	if saved, err = os.ReadFile(filepath.Join(dir, "saved.plan")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra.pier.hcl"), []byte("# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale, err := c.Deployments.OpenSavedPlan(t.Context(), &pier1.OpenSavedPlan_Request{SavedPlan: saved})
	if err != nil || stale.PlanHandle != 0 || len(stale.Diagnostics) == 0 || !strings.Contains(stale.Diagnostics[0].Summary+stale.Diagnostics[0].Detail, "no longer matches") {
		t.Fatalf("OpenSavedPlan of a stale plan = %+v, %v; want a diagnostic saying it no longer matches", stale, err)
	}
}
