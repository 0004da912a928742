package client_test

import (
	"strings"
	"testing"

	"github.com/pierhq/pier/rpcapi/pier1"
)

// secretsHCL gives a secret to a memo and to an exec that prints its
// stdin: the provider cannot say which of its outputs echo it, so all
// of them are sensitive.
const secretsHCL = `
variable "token" {
  type      = string
  sensitive = true
}
provider "local" {
  builtin = "local"
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
  inputs   = { initialize_with = var.token }
}
resource "e" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
  inputs   = { executable = "cat", args = [], stdin = var.token }
}
`

const secret = "hunter2-rpc-secret"

// TestInspectorShowsNoSecret applies a deployment whose local resources
// hold a secret and asks the inspector, over a real gRPC connection,
// about their outputs and about an object keyed by the secret: no
// response carries the secret, in its value, its type or a diagnostic.
func TestInspectorShowsNoSecret(t *testing.T) {
	t.Parallel()
	c := start(t, true)
	ctx := t.Context()
	dir := writeDeployment(t, map[string]string{"main.pier.hcl": secretsHCL})
	od, err := c.Deployments.OpenDeployment(ctx, &pier1.OpenDeployment_Request{
		Source: &pier1.OpenDeployment_Request_Dir{Dir: dir}, Vars: map[string]string{"token": secret}})
	if err != nil || od.DeploymentHandle == 0 {
		t.Fatalf("OpenDeployment = %v, %v", od, err)
	}
	plan, err := c.Plan(ctx, &pier1.PlanDeployment_Request{DeploymentHandle: od.DeploymentHandle})
	if err != nil || plan.Complete.Summary.Create != 2 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	if _, err := c.Apply(ctx, plan.Complete.PlanHandle); err != nil {
		t.Fatal(err)
	}
	ins, err := c.Inspector.OpenInspector(ctx, &pier1.OpenInspector_Request{DeploymentHandle: od.DeploymentHandle})
	if err != nil {
		t.Fatal(err)
	}
	for expr, typ := range map[string]string{
		"resource.m.outputs.value":          "string",
		"resource.m.outputs":                "object({value=string})",
		"upper(resource.e.outputs.stdout)":  "string",
		"{(var.token) = 1}":                 "object(sensitive)",
		"merge({a = 1}, {(var.token) = 2})": "object(sensitive)",
	} {
		r, err := c.Inspector.InspectExpression(ctx, &pier1.InspectExpression_Request{InspectorHandle: ins.InspectorHandle, Expression: expr})
		if err != nil || len(r.Diagnostics) != 0 {
			t.Fatalf("InspectExpression(%s) = %v, %v", expr, r, err)
		}
		if !r.Sensitive || len(r.ValueJson) != 0 || r.Type != typ {
			t.Errorf("InspectExpression(%s) = %s %s sensitive=%v, want no value, %s, sensitive", expr, r.ValueJson, r.Type, r.Sensitive, typ)
		}
		if strings.Contains(r.String(), "hunter2") {
			t.Errorf("InspectExpression(%s): the secret crossed the wire: %v", expr, r)
		}
	}
}
