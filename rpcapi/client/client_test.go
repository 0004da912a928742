package client_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
	"github.com/pierhq/pier/rpcapi/client"
	"github.com/pierhq/pier/rpcapi/pier1"
)

const deploymentHCL = `
variable "token" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
provider "local" {
  builtin = "local"
}
provider "v0" {
  executable = "/bin/true"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "first" }
}
output "memo" {
  value = resource.m.outputs.value
}
output "token" {
  value     = var.token
  sensitive = true
}
`

func writeDeployment(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// start starts a server for one test; handshake says whether to shake.
func start(t *testing.T, handshake bool) *client.Client {
	t.Helper()
	c, err := client.Start(client.Options{Pier: testbin.Pier(t), Stderr: &logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if handshake {
		if _, err := c.Handshake(t.Context(), &pier1.ClientCapabilities{}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

type logWriter struct{ t *testing.T }

func (w *logWriter) Write(p []byte) (int, error) {
	w.t.Logf("pier rpcapi: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func wantCode(t *testing.T, err error, code codes.Code, contains string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
	if !strings.Contains(status.Convert(err).Message(), contains) {
		t.Errorf("error %q does not say %q", status.Convert(err).Message(), contains)
	}
}

func TestHandshakeFirstAndOnce(t *testing.T) {
	t.Parallel()
	c := start(t, false)
	ctx := t.Context()
	_, err := c.Dependencies.GetBuiltInProviders(ctx, &pier1.GetBuiltInProviders_Request{})
	wantCode(t, err, codes.FailedPrecondition, "before Setup.Handshake")
	stream, err := c.Deployments.PlanDeployment(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: 1})
	if err == nil {
		_, err = stream.Recv()
	}
	wantCode(t, err, codes.FailedPrecondition, "before Setup.Handshake")

	caps, err := c.Handshake(ctx, &pier1.ClientCapabilities{ProviderLogs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !caps.ProviderLogs || !caps.LockVerification || !caps.TerraformProviderSchemas {
		t.Errorf("capabilities = %v", caps)
	}
	_, err = c.Handshake(ctx, &pier1.ClientCapabilities{})
	wantCode(t, err, codes.FailedPrecondition, "only once")
	b, err := c.Dependencies.GetBuiltInProviders(ctx, &pier1.GetBuiltInProviders_Request{})
	if err != nil || len(b.Providers) != 2 || b.Providers[0].Name != "local" || b.Providers[1].Name != "postgres" {
		t.Errorf("GetBuiltInProviders = %v, %v; want local and postgres", b, err)
	}
}

func TestBadDeploymentIsDiagnosticsWithZeroHandle(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": "resource \"x\" {\n  provider = provider.nope\n}\n"})
	resp, err := c.Deployments.OpenDeployment(t.Context(), &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}})
	if err != nil {
		t.Fatalf("a user error became an RPC error: %v", err)
	}
	if resp.DeploymentHandle != 0 || len(resp.Diagnostics) == 0 {
		t.Fatalf("OpenDeployment = %v", resp)
	}
	d := resp.Diagnostics[0]
	if d.Severity != pier1.Diagnostic_ERROR || d.Subject == nil || !strings.HasSuffix(d.Subject.Filename, "main.pier.hcl") || d.Subject.Start.Line == 0 {
		t.Errorf("diagnostic = %v", d)
	}
	// A bad lock file, likewise.
	lockDir := writeDeployment(t, map[string]string{".pier.lock.hcl": `provider "x" {`})
	lr, err := c.Dependencies.OpenDependencyLockFile(t.Context(), &pier1.OpenDependencyLockFile_Request{Path: lockDir})
	if err != nil || lr.DependencyLocksHandle != 0 || len(lr.Diagnostics) == 0 {
		t.Errorf("OpenDependencyLockFile = %v, %v", lr, err)
	}
}

// TestLocksHandleLifetime: created, read, used by a deployment (so it
// cannot close), closed, and unknown afterwards.
func TestLocksHandleLifetime(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	sel := []*pier1.ProviderLock{{Key: "v0", Executable: "/bin/true", Hashes: []string{"sha256:00"}}}
	cr, err := c.Dependencies.CreateDependencyLocks(ctx, &pier1.CreateDependencyLocks_Request{ProviderSelections: sel})
	if err != nil || cr.DependencyLocksHandle == 0 {
		t.Fatalf("CreateDependencyLocks = %v, %v", cr, err)
	}
	lh := cr.DependencyLocksHandle
	got, err := c.Dependencies.GetLockedProviderDependencies(ctx, &pier1.GetLockedProviderDependencies_Request{DependencyLocksHandle: lh})
	if err != nil || len(got.SelectedProviders) != 1 || got.SelectedProviders[0].Hashes[0] != "sha256:00" {
		t.Fatalf("GetLockedProviderDependencies = %v, %v", got, err)
	}
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": deploymentHCL})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}, DependencyLocksHandle: lh})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	// The deployment checks against these locks: /bin/true is not sha256:00.
	v, err := c.Deployments.ValidateDeployment(ctx, &pier1.ValidateDeployment_Request{DeploymentHandle: od.DeploymentHandle})
	if err != nil || len(v.Diagnostics) != 1 || !strings.Contains(v.Diagnostics[0].Summary, "expected sha256:00") {
		t.Errorf("ValidateDeployment against the locks handle = %v, %v", v, err)
	}
	_, err = c.Dependencies.CloseDependencyLocks(ctx, &pier1.CloseDependencyLocks_Request{DependencyLocksHandle: lh})
	wantCode(t, err, codes.FailedPrecondition, "still used by deployment handle")
	if _, err := c.Deployments.CloseDeployment(ctx, &pier1.CloseDeployment_Request{DeploymentHandle: od.DeploymentHandle}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dependencies.CloseDependencyLocks(ctx, &pier1.CloseDependencyLocks_Request{DependencyLocksHandle: lh}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Dependencies.CloseDependencyLocks(ctx, &pier1.CloseDependencyLocks_Request{DependencyLocksHandle: lh})
	wantCode(t, err, codes.InvalidArgument, "no open dependency locks handle")
	_, err = c.Dependencies.GetLockedProviderDependencies(ctx, &pier1.GetLockedProviderDependencies_Request{DependencyLocksHandle: lh})
	wantCode(t, err, codes.InvalidArgument, "no open dependency locks handle")
	// A lock file opens as a handle too; a missing one is empty locks.
	lf, err := c.Dependencies.OpenDependencyLockFile(ctx, &pier1.OpenDependencyLockFile_Request{Path: dir})
	if err != nil || lf.DependencyLocksHandle == 0 || len(lf.Diagnostics) != 0 {
		t.Errorf("OpenDependencyLockFile(missing) = %v, %v", lf, err)
	}
}

// TestDeploymentPlanInspectorLifetimes: a deployment cannot close while
// a plan or an inspector of it is open; a plan is consumed by its apply
// or dropped by DiscardPlan; closed handles are unknown.
func TestDeploymentPlanInspectorLifetimes(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": deploymentHCL})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}, LockMode: pier1.LockMode_LOCK_OFF})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	dh := od.DeploymentHandle
	plan, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if err != nil || plan.Complete.PlanHandle == 0 {
		t.Fatalf("Plan = %+v, %v", plan, err)
	}
	ins, err := c.Inspector.OpenInspector(ctx, &pier1.OpenInspector_Request{DeploymentHandle: dh})
	if err != nil || ins.InspectorHandle == 0 {
		t.Fatalf("OpenInspector = %v, %v", ins, err)
	}
	_, err = c.Deployments.CloseDeployment(ctx, &pier1.CloseDeployment_Request{DeploymentHandle: dh})
	wantCode(t, err, codes.FailedPrecondition, "still used by inspector handle")
	wantCode(t, err, codes.FailedPrecondition, "plan handle")

	if _, err := c.Deployments.DiscardPlan(ctx, &pier1.DiscardPlan_Request{PlanHandle: plan.Complete.PlanHandle}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Apply(ctx, plan.Complete.PlanHandle)
	wantCode(t, err, codes.InvalidArgument, "no open plan handle")

	// Apply consumes its plan.
	plan, err = c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Apply(ctx, plan.Complete.PlanHandle)
	if err != nil || res.Complete.Created != 1 || len(res.Diagnostics) != 0 {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	_, err = c.Apply(ctx, plan.Complete.PlanHandle)
	wantCode(t, err, codes.InvalidArgument, "no open plan handle")

	if _, err := c.Inspector.CloseInspector(ctx, &pier1.CloseInspector_Request{InspectorHandle: ins.InspectorHandle}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Inspector.InspectExpression(ctx, &pier1.InspectExpression_Request{InspectorHandle: ins.InspectorHandle, Expression: "1"})
	wantCode(t, err, codes.InvalidArgument, "no open inspector handle")
	if _, err := c.Deployments.CloseDeployment(ctx, &pier1.CloseDeployment_Request{DeploymentHandle: dh}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Deployments.ValidateDeployment(ctx, &pier1.ValidateDeployment_Request{DeploymentHandle: dh})
	wantCode(t, err, codes.InvalidArgument, "no open deployment handle")
}

func TestPlanApplyInspect(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": deploymentHCL})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	dh := od.DeploymentHandle
	comps, err := c.Deployments.ListComponents(ctx, &pier1.ListComponents_Request{DeploymentHandle: dh})
	if err != nil || len(comps.Resources) != 2 || len(comps.Providers) != 2 || strings.Join(comps.Outputs, ",") != "memo,token" {
		t.Fatalf("ListComponents = %v, %v", comps, err)
	}
	plan, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Changes[0].Address != "m" || plan.Changes[0].Action != pier1.Action_CREATE || plan.Complete.Summary.Create != 1 {
		t.Fatalf("plan = %+v", plan)
	}
	// There is no lock file: the plan says so as a warning.
	if len(plan.Diagnostics) != 1 || plan.Diagnostics[0].Severity != pier1.Diagnostic_WARNING {
		t.Errorf("plan diagnostics = %v", plan.Diagnostics)
	}
	res, err := c.Apply(ctx, plan.Complete.PlanHandle)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, p := range res.Progress {
		if rs := p.GetResourceStatus(); rs != nil && rs.Address == "m" {
			statuses = append(statuses, rs.Status.String())
		}
	}
	if strings.Join(statuses, " ") != "PENDING APPLYING APPLIED" || len(res.Applied) != 1 {
		t.Errorf("progress of m = %v, applied %v", statuses, res.Applied)
	}
	outs := map[string]*pier1.OutputValue{}
	for _, o := range res.Complete.Outputs {
		outs[o.Name] = o
	}
	if string(outs["memo"].GetValueJson()) != `"first"` || !outs["token"].GetSensitive() || len(outs["token"].GetValueJson()) != 0 {
		t.Errorf("outputs = %v", res.Complete.Outputs)
	}
	again, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: dh})
	if err != nil || again.Complete.Summary.Create != 0 || len(again.Changes) != 1 || again.Changes[0].Action != pier1.Action_NO_OP {
		t.Errorf("second plan = %+v, %v", again, err)
	}
	ins, err := c.Inspector.OpenInspector(ctx, &pier1.OpenInspector_Request{DeploymentHandle: dh})
	if err != nil || ins.InspectorHandle == 0 {
		t.Fatalf("OpenInspector = %v, %v", ins, err)
	}
	for expr, want := range map[string]struct {
		json, typ string
		sensitive bool
	}{
		`upper(resource.m.outputs.value)`: {json: `"FIRST"`, typ: "string"},
		`output.memo`:                     {json: `"first"`, typ: "string"},
		`var.token`:                       {typ: "string", sensitive: true},
		`output.token`:                    {typ: "dynamic", sensitive: true},
	} {
		r, err := c.Inspector.InspectExpression(ctx, &pier1.InspectExpression_Request{InspectorHandle: ins.InspectorHandle, Expression: expr})
		if err != nil || len(r.Diagnostics) != 0 {
			t.Fatalf("InspectExpression(%s) = %v, %v", expr, r, err)
		}
		if string(r.ValueJson) != want.json || r.Type != want.typ || r.Sensitive != want.sensitive {
			t.Errorf("InspectExpression(%s) = %s %s %v, want %s %s %v", expr, r.ValueJson, r.Type, r.Sensitive, want.json, want.typ, want.sensitive)
		}
		if strings.Contains(string(r.ValueJson), "s3cret") {
			t.Errorf("a secret crossed the wire: %s", r.ValueJson)
		}
	}
	r, err := c.Inspector.InspectExpression(ctx, &pier1.InspectExpression_Request{InspectorHandle: ins.InspectorHandle, Expression: "resource.nope"})
	if err != nil || len(r.Diagnostics) == 0 || r.Diagnostics[0].Subject.Start.Column != 9 {
		t.Errorf("bad expression = %v, %v", r, err)
	}
}

func TestGetProviderSchema(t *testing.T) {
	t.Parallel()
	timeProvider := filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders", "terraform-provider-time")
	testneed.File(t, timeProvider, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
	c := start(t, true)
	ctx := t.Context()
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": deploymentHCL + `
provider "time" {
  terraform = "` + timeProvider + `"
}
`})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	schema := func(name string) *pier1.GetProviderSchema_Response {
		r, err := c.Dependencies.GetProviderSchema(ctx, &pier1.GetProviderSchema_Request{DeploymentHandle: od.DeploymentHandle, ProviderName: name})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	v0 := schema("v0")
	if v0.Status != pier1.GetProviderSchema_Response_UNKNOWN || !strings.Contains(v0.Reason, "cannot describe itself") {
		t.Errorf("v0 schema = %v", v0)
	}
	tf := schema("time")
	var info struct {
		ResourceTypes []struct{ Name string } `json:"resource_types"`
	}
	if tf.Status != pier1.GetProviderSchema_Response_KNOWN || json.Unmarshal(tf.SchemaJson, &info) != nil {
		t.Fatalf("time schema = %v", tf)
	}
	var names []string
	for _, rt := range info.ResourceTypes {
		names = append(names, rt.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "time_static") {
		t.Errorf("time resource types = %v (%s)", names, tf.SchemaJson)
	}
	if missing := schema("nope"); len(missing.Diagnostics) == 0 {
		t.Errorf("unknown provider = %v", missing)
	}
}

// TestServerExitsWhenClientCloses: Close stops the server gracefully
// while a plan holds providers open. go-plugin does not have to kill it,
// and nothing is left behind: not the server, not a provider it started,
// not its socket directory.
func TestServerExitsWhenClientCloses(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	c, err := client.Start(client.Options{Pier: testbin.Pier(t), Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := c.Handshake(ctx, nil); err != nil {
		t.Fatal(err)
	}
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": deploymentHCL})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}, LockMode: pier1.LockMode_LOCK_OFF})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: od.DeploymentHandle}); err != nil {
		t.Fatal(err)
	}
	pid, socket := client.Server(c)
	kids := childrenOf(pid)
	if len(kids) == 0 {
		t.Fatalf("the server %d runs no provider after a plan", pid)
	}
	c.Close()
	if !c.Exited() {
		t.Error("pier rpcapi still runs after Close")
	}
	if strings.Contains(stderr.String(), "plugin failed to exit gracefully") {
		t.Errorf("go-plugin killed the server:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Dir(socket)); !os.IsNotExist(err) {
		t.Errorf("the socket directory %s is left behind (%v)", filepath.Dir(socket), err)
	}
	for _, kid := range kids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", kid)); err == nil {
			t.Errorf("provider process %d outlives the server", kid)
		}
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(data)
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			kids = append(kids, n)
		}
	}
	return kids
}

// syncBuffer is a bytes.Buffer for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSavedPlanAppliesWithPierApply: the saved-plan bytes of a Plan over
// the RPC are a plan file `pier apply FILE` carries out.
func TestSavedPlanAppliesWithPierApply(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": deploymentHCL})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}, LockMode: pier1.LockMode_LOCK_OFF})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	plan, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: od.DeploymentHandle, SavedPlan: true})
	if err != nil || len(plan.Complete.SavedPlan) == 0 {
		t.Fatalf("Plan = %+v, %v", plan, err)
	}
	if _, err := c.Deployments.DiscardPlan(ctx, &pier1.DiscardPlan_Request{PlanHandle: plan.Complete.PlanHandle}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(file, plan.Complete.SavedPlan, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testbin.Pier(t), "apply", "--lock=off", file).CombinedOutput()
	if err != nil {
		t.Fatalf("pier apply FILE: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "memo = \"first\"") {
		t.Errorf("pier apply FILE:\n%s", out)
	}
}
