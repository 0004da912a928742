package client_test

import (
	"strings"
	"testing"

	"github.com/pierhq/pier/rpcapi/pier1"
)

// TestDeepNestingIsADiagnostic sends the service a lock file and an
// expression nested 100,000 levels deep: each is a "Nesting too deep"
// diagnostic in a successful response, and the service goes on serving.
// Before, the service died of a stack overflow (and left its socket
// directory behind).
func TestDeepNestingIsADiagnostic(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	deep := strings.Repeat("[", 100_000)
	lockDir := writeDeployment(t, map[string]string{".pier.lock.hcl": "provider \"x\" {\n  version = " + deep + "\n}\n"})
	lr, err := c.Dependencies.OpenDependencyLockFile(ctx, &pier1.OpenDependencyLockFile_Request{Path: lockDir})
	if err != nil || lr.DependencyLocksHandle != 0 || len(lr.Diagnostics) == 0 || lr.Diagnostics[0].Summary != "Nesting too deep" {
		t.Fatalf("OpenDependencyLockFile = %.300v, %v", lr, err)
	}
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": "provider \"local\" {\n  builtin = \"local\"\n}\n"})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	ins, err := c.Inspector.OpenInspector(ctx, &pier1.OpenInspector_Request{DeploymentHandle: od.DeploymentHandle})
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{deep, `"` + strings.Repeat("%{if true}", 12_000)} {
		r, err := c.Inspector.InspectExpression(ctx, &pier1.InspectExpression_Request{InspectorHandle: ins.InspectorHandle, Expression: expr})
		if err != nil || len(r.Diagnostics) == 0 || r.Diagnostics[0].Summary != "Nesting too deep" {
			t.Fatalf("InspectExpression(%.20s…) = %.300v, %v", expr, r, err)
		}
	}
	r, err := c.Inspector.InspectExpression(ctx, &pier1.InspectExpression_Request{InspectorHandle: ins.InspectorHandle, Expression: "1 + 1"})
	if err != nil || string(r.ValueJson) != "2" {
		t.Errorf("InspectExpression(1 + 1) after the deep ones = %v, %v", r, err)
	}
}
