package client_test

import (
	"encoding/json"
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

// The deployment the actions test starts from: two files pier manages.
const actionsBase = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "motd" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "motd.txt", contents = "hello\n" }
}
resource "kept" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "kept.txt", contents = "keep me\n" }
}
`

// Then kept is let go of, a file written by hand is adopted with a secret
// as its planned contents, and a new file's contents wait on a memo.
const actionsNext = `
variable "token" {
  type      = string
  default   = "s3cret-token"
  sensitive = true
}
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "motd" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "motd.txt", contents = "hello\n" }
}
removed {
  from = resource.kept
  lifecycle { destroy = false }
}
resource "adopted" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "adopted.txt", contents = var.token }
}
import {
  to = resource.adopted
  id = "adopted.txt"
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "later" }
}
resource "copy" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "copy.txt", contents = resource.m.outputs.value }
}
`

func openDir(t *testing.T, c *client.Client, dir string) int64 {
	t.Helper()
	od, err := c.Deployments.OpenDeployment(t.Context(), &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	return od.DeploymentHandle
}

func changesByAddress(t *testing.T, plan *client.PlanResult) map[string]*pier1.PlannedChange {
	t.Helper()
	out := map[string]*pier1.PlannedChange{}
	for _, c := range plan.Changes {
		out[c.Address] = c
	}
	return out
}

func decodeSide(t *testing.T, what string, b []byte) map[string]any {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v: %s", what, err, b)
	}
	return m
}

// A refresh-only plan, a removed block with destroy = false and an import
// block come over the RPC as REFRESH, FORGET and IMPORT (not
// ACTION_INVALID), with before and after as pier show --json has them.
func TestPlanActionsAndValues(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": actionsBase})
	dh := openDir(t, c, dir)
	plan, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if err != nil || plan.Complete.PlanHandle == 0 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	motd := changesByAddress(t, plan)["motd"]
	if motd.GetAction() != pier1.Action_CREATE || len(motd.BeforeJson) != 0 || string(motd.AfterJson) != `{"contents":"hello\n","name":"motd.txt"}` {
		t.Fatalf("create motd = %+v", motd)
	}
	if _, err := c.Apply(ctx, plan.Complete.PlanHandle); err != nil {
		t.Fatal(err)
	}

	// Drift: the file is edited outside of pier.
	if err := os.WriteFile(filepath.Join(dir, "motd.txt"), []byte("edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh, Destroy: true, RefreshOnly: true})
	wantCode(t, err, codes.InvalidArgument, "refresh_only cannot be combined with destroy")
	ro, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh, RefreshOnly: true})
	if err != nil || ro.Complete.PlanHandle == 0 {
		t.Fatalf("refresh-only plan = %+v, %v", ro, err)
	}
	if len(ro.Changes) != 1 || ro.Changes[0].Address != "motd" || ro.Changes[0].Action != pier1.Action_REFRESH || ro.Complete.Summary.Refresh != 1 {
		t.Fatalf("refresh-only plan changes = %v, summary %v", ro.Changes, ro.Complete.Summary)
	}
	var reads []string
	for _, p := range ro.Progress {
		if rs := p.GetResourceStatus(); rs != nil {
			if rs.Status == pier1.Progress_ResourceStatus_INVALID {
				t.Errorf("refresh-only progress with an invalid status: %v", rs)
			}
			if rs.Address == "motd" {
				reads = append(reads, rs.Status.String())
			}
		}
	}
	if strings.Join(reads, " ") != "REFRESHING REFRESHED" {
		t.Errorf("progress of motd's read = %v", reads)
	}
	if b := decodeSide(t, "refresh before", ro.Changes[0].BeforeJson); b["contents"] != "hello\n" || len(ro.Changes[0].AfterJson) != 0 {
		t.Errorf("refresh before = %s, after = %s", ro.Changes[0].BeforeJson, ro.Changes[0].AfterJson)
	}
	if res, err := c.Apply(ctx, ro.Complete.PlanHandle); err != nil || res.Complete.Recorded != 1 || res.Complete.Updated != 0 {
		t.Fatalf("refresh-only apply = %+v, %v", res.Complete, err)
	}
	if _, err := c.Deployments.CloseDeployment(ctx, &pier1.CloseDeployment_Request{DeploymentHandle: dh}); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(actionsNext), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "adopted.txt"), []byte("written by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dh = openDir(t, c, dir)
	next, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh, SavedPlan: true})
	if err != nil || next.Complete.PlanHandle == 0 {
		t.Fatalf("plan = %+v, %v", next, err)
	}
	got := changesByAddress(t, next)
	for addr, want := range map[string]pier1.Action{"kept": pier1.Action_FORGET, "adopted": pier1.Action_UPDATE, "m": pier1.Action_CREATE, "copy": pier1.Action_CREATE} {
		if got[addr].GetAction() != want {
			t.Errorf("%s: action %v, want %v (%+v)", addr, got[addr].GetAction(), want, got[addr])
		}
	}
	if s := next.Complete.Summary; s.Forget != 1 || s.Imports != 1 {
		t.Errorf("summary = %v", s)
	}
	kept := got["kept"]
	if b := decodeSide(t, "forget before", kept.GetBeforeJson()); b["name"] != "kept.txt" || len(kept.GetAfterJson()) != 0 {
		t.Errorf("forget kept: before %s, after %s", kept.GetBeforeJson(), kept.GetAfterJson())
	}
	adopted := got["adopted"]
	if adopted.GetImportId() != "adopted.txt" {
		t.Errorf("adopted import id = %q", adopted.GetImportId())
	}
	before, after := decodeSide(t, "adopted before", adopted.GetBeforeJson()), decodeSide(t, "adopted after", adopted.GetAfterJson())
	if before["name"] != "adopted.txt" || before["contents"] != "(sensitive value)" || after["contents"] != "(sensitive value)" {
		t.Errorf("adopted: before %s, after %s", adopted.GetBeforeJson(), adopted.GetAfterJson())
	}
	cp := got["copy"]
	if a := decodeSide(t, "copy after", cp.GetAfterJson()); a["name"] != "copy.txt" || a["contents"] != nil || strings.Join(cp.GetAfterUnknown(), ",") != "contents" {
		t.Errorf("copy: after %s, unknown %v", cp.GetAfterJson(), cp.GetAfterUnknown())
	}
	for _, pc := range next.Changes {
		for _, b := range [][]byte{pc.BeforeJson, pc.AfterJson} {
			if strings.Contains(string(b), "s3cret-token") {
				t.Errorf("a sensitive input crossed the wire in %s: %s", pc.Address, b)
			}
		}
	}

	// pier show --json of the same plan shows the same values.
	planFile := filepath.Join(t.TempDir(), "tfplan")
	if err := os.WriteFile(planFile, next.Complete.SavedPlan, 0o600); err != nil {
		t.Fatal(err)
	}
	shown, err := exec.Command(testbin.Pier(t), "show", "--json", planFile).Output()
	if err != nil {
		t.Fatalf("pier show --json: %v", err)
	}
	var show struct {
		ResourceChanges []struct {
			Address string
			Change  struct {
				Before, After json.RawMessage
				AfterUnknown  []string `json:"after_unknown"`
			}
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal(shown, &show); err != nil {
		t.Fatalf("pier show --json: %v: %s", err, shown)
	}
	compared := 0
	for _, rc := range show.ResourceChanges {
		pc := got[rc.Address]
		if pc == nil || pc.Action == pier1.Action_FORGET {
			continue // show renders a forget's missing after as {}
		}
		compared++
		for _, side := range []struct {
			name      string
			rpc, show []byte
		}{{"before", pc.BeforeJson, rc.Change.Before}, {"after", pc.AfterJson, rc.Change.After}} {
			if string(side.show) == "null" {
				side.show = nil
			}
			if string(side.rpc) != string(side.show) {
				t.Errorf("%s %s: rpc %s, pier show --json %s", rc.Address, side.name, side.rpc, side.show)
			}
		}
		if strings.Join(pc.AfterUnknown, ",") != strings.Join(rc.Change.AfterUnknown, ",") {
			t.Errorf("%s after_unknown: rpc %v, pier show --json %v", rc.Address, pc.AfterUnknown, rc.Change.AfterUnknown)
		}
	}
	if compared < 3 {
		t.Errorf("compared %d changes with pier show --json: %s", compared, shown)
	}

	// An import the configuration needs unchanged is IMPORT alone.
	if _, err := c.Deployments.DiscardPlan(ctx, &pier1.DiscardPlan_Request{PlanHandle: next.Complete.PlanHandle}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Deployments.CloseDeployment(ctx, &pier1.CloseDeployment_Request{DeploymentHandle: dh}); err != nil {
		t.Fatal(err)
	}
	unchanged := strings.Replace(actionsNext, "contents = var.token", `contents = "written by hand\n"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(unchanged), 0o644); err != nil {
		t.Fatal(err)
	}
	dh = openDir(t, c, dir)
	same, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if err != nil || same.Complete.PlanHandle == 0 {
		t.Fatalf("plan = %+v, %v", same, err)
	}
	adopted = changesByAddress(t, same)["adopted"]
	if adopted.GetAction() != pier1.Action_IMPORT || adopted.GetImportId() != "adopted.txt" {
		t.Errorf("unchanged import = %+v", adopted)
	}
	if a := decodeSide(t, "import after", adopted.GetAfterJson()); a["contents"] != "written by hand\n" || string(adopted.GetBeforeJson()) != string(adopted.GetAfterJson()) {
		t.Errorf("unchanged import: before %s, after %s", adopted.GetBeforeJson(), adopted.GetAfterJson())
	}
	res, err := c.Apply(ctx, same.Complete.PlanHandle)
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete.Imported != 1 || res.Complete.Forgotten != 1 {
		t.Errorf("apply = %+v", res.Complete)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "kept.txt")); err != nil || string(data) != "keep me\n" {
		t.Errorf("the forgotten object was touched: %q, %v", data, err)
	}
	for _, p := range res.Progress {
		if rs := p.GetResourceStatus(); rs != nil && rs.Action == pier1.Action_ACTION_INVALID {
			t.Errorf("apply progress with an invalid action: %v", rs)
		}
	}
}
