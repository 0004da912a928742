package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/session"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/rpcapi/client"
	"github.com/pierhq/pier/rpcapi/pier1"
)

// helloForBench copies examples/hello and the provider it uses.
func helloForBench(b *testing.B) string {
	b.Helper()
	root := testbin.ModuleRoot()
	tmp := b.TempDir()
	for _, d := range []struct{ src, dst string }{
		{filepath.Join(root, "examples", "hello"), filepath.Join(tmp, "hello")},
		{filepath.Join(root, "examples", "providers", "python-kv"), filepath.Join(tmp, "providers", "python-kv")},
	} {
		if out, err := exec.Command("cp", "-r", d.src, d.dst).CombinedOutput(); err != nil {
			if err := os.MkdirAll(filepath.Dir(d.dst), 0o755); err != nil {
				b.Fatal(err)
			}
			if out, err = exec.Command("cp", "-r", d.src, d.dst).CombinedOutput(); err != nil {
				b.Fatalf("cp: %v\n%s", err, out)
			}
		}
	}
	return filepath.Join(tmp, "hello")
}

// BenchmarkPlanHelloRPC is one Plan of examples/hello over pier rpcapi,
// the server running and the deployment open, as an editor or CI service
// holds them: PlanDeployment streamed to its end, then DiscardPlan.
func BenchmarkPlanHelloRPC(b *testing.B) {
	dir := helloForBench(b)
	c, err := client.Start(client.Options{Pier: testbin.Pier(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := b.Context()
	if _, err := c.Handshake(ctx, nil); err != nil {
		b.Fatal(err)
	}
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}, LockMode: pier1.LockMode_LOCK_OFF})
	if err != nil || od.DeploymentHandle == 0 {
		b.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: od.DeploymentHandle})
		if err != nil || p.Complete.PlanHandle == 0 {
			b.Fatalf("Plan = %v, %v", p, err)
		}
		if _, err := c.Deployments.DiscardPlan(ctx, &pier1.DiscardPlan_Request{PlanHandle: p.Complete.PlanHandle}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanHelloCLI is `pier plan --lock=off` on the same deployment,
// the baseline: a process per plan.
func BenchmarkPlanHelloCLI(b *testing.B) {
	dir := helloForBench(b)
	pier := testbin.Pier(b)
	for b.Loop() {
		cmd := exec.Command(pier, "plan", "--lock=off", "--dir", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("pier plan: %v\n%s", err, out)
		}
	}
}

// BenchmarkPlanHelloInProcess is the work the server does for one Plan,
// called directly: the difference to BenchmarkPlanHelloRPC is the RPC's
// own cost (gRPC, the stream, the handles).
func BenchmarkPlanHelloInProcess(b *testing.B) {
	dir := helloForBench(b)
	d, err := session.Open(session.Options{Dir: dir, PierExecutable: testbin.Pier(b), Lock: lockfile.ModeOff, Builtins: builtin.Capabilities})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		eng, err := d.Engine(nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := plan.Make(ctx, eng, plan.Options{}); err != nil {
			b.Fatal(err)
		}
		if err := eng.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
