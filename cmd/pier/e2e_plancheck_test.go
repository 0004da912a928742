package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

// These tests check that mistakes are caught by pier plan, before
// anything changes: the providers are asked at plan time (preview), and
// the plan fails with exit 1 and the file:line:col of the mistake. Each
// deployment also has a resource that would be created before the faulty
// one, so that "nothing was created" can fail.

// planCheckDeployment is a deployment whose first.txt file resource is
// created before (and independently of) the resource under test.
func planCheckDeployment(t *testing.T, extra string) *deployment {
	t.Helper()
	d := &deployment{t: t, dir: t.TempDir(), pier: testbin.Pier(t)}
	d.writeRaw("main.pier.hcl", `provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "first" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "first.txt", contents = "x" }
}
`+extra)
	return d
}

// mustFailAtPlan runs pier plan and pier apply: both must exit 1 with
// stderr matching each of want (regular expressions), and create nothing:
// no state file, no first.txt.
func (d *deployment) mustFailAtPlan(want ...string) {
	d.t.Helper()
	for _, cmd := range []string{"plan", "apply"} {
		out, errs, code := d.run(cmd)
		if code != 1 {
			d.t.Errorf("pier %s: exit %d, want 1\n%s\n%s", cmd, code, out, errs)
		}
		for _, w := range want {
			if !regexp.MustCompile(w).MatchString(errs) {
				d.t.Errorf("pier %s: stderr does not match %q:\n%s", cmd, w, errs)
			}
		}
		for _, f := range []string{"state.json", "first.txt"} {
			if _, err := os.Stat(filepath.Join(d.dir, f)); err == nil {
				d.t.Errorf("pier %s created %s", cmd, f)
			}
		}
	}
}

// at is the regular expression of a position in the deployment's file.
func at(line, col int) string {
	// The snippet's header (on main.pier.hcl:17:35, in resource ...), or
	// a one-line error's prefix; the problem follows.
	return regexp.QuoteMeta(fmt.Sprintf("main.pier.hcl:%d:%d", line, col)) + `(?s)[:,].*`
}

// TestPlanRejectsUnknownLocalInput: the local adapter previews its
// creates, so a misspelt input fails the plan at the key.
func TestPlanRejectsUnknownLocalInput(t *testing.T) {
	t.Parallel()
	d := planCheckDeployment(t, `resource "typo" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "typo.txt", contnets = "hi" }
}
`)
	d.mustFailAtPlan(at(17, 35) + `resource typo \(provider local\): input contnets: .*unknown field \(known: contents, mode, name\)`)
}

// TestPlanRejectsMissingProviderExecutable: a provider that will be
// started must exist, checked at plan, at the provider block.
func TestPlanRejectsMissingProviderExecutable(t *testing.T) {
	t.Parallel()
	d := planCheckDeployment(t, `provider "gone" {
  executable = "./no-such-provider"
}
resource "g" {
  provider = provider.gone
  type     = "thing"
  state    = resource.state
  inputs   = {}
}
`)
	d.mustFailAtPlan(at(13, 1) + `provider gone: executable .*no-such-provider.* does not exist`)

	// Not executable is refused as well.
	if err := os.WriteFile(filepath.Join(d.dir, "no-such-provider"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.mustFailAtPlan(at(13, 1) + `provider gone: executable .* is not executable`)
}

// openstackDeployment has one openstack resource, whose provider needs no
// cloud to validate: pier plan runs ValidateResourceConfig and fails on
// what the provider refuses, with the provider's own message.
func openstackDeployment(t *testing.T, resource string) *deployment {
	t.Helper()
	plugin := tfProviderForTest(t, "terraform-provider-openstack")
	return planCheckDeployment(t, fmt.Sprintf(`provider "openstack" {
  terraform = %q
}
%s`, plugin, resource))
}

func TestPlanRejectsOpenstackDirection(t *testing.T) {
	t.Parallel()
	d := openstackDeployment(t, `resource "rule" {
  provider = provider.openstack
  type     = "openstack_networking_secgroup_rule_v2"
  state    = resource.state
  inputs = {
    direction         = "sideways"
    ethertype         = "IPv4"
    security_group_id = "00000000-0000-0000-0000-000000000000"
  }
}
`)
	d.mustFailAtPlan(at(21, 5) + `resource rule \(provider openstack\): input direction: unknown "sideways" direction for openstack_networking_secgroup_rule_v2`)
}

func TestPlanRejectsOpenstackTooManyBlocks(t *testing.T) {
	t.Parallel()
	d := openstackDeployment(t, `resource "port" {
  provider = provider.openstack
  type     = "openstack_networking_port_v2"
  state    = resource.state
  inputs = {
    network_id = "00000000-0000-0000-0000-000000000000"
    binding = [
      { vnic_type = "normal" },
      { vnic_type = "direct" },
    ]
  }
}
`)
	d.mustFailAtPlan(`Error: Too many list items`, at(22, 5)+`resource port \(provider openstack\): input binding: Attribute binding supports 1 item maximum, but config has 2 declared`)
}

// TestPlanShowsPlannedValues: a bridged create shows the provider's
// planned values, its computed attributes known after apply.
func TestPlanShowsPlannedValues(t *testing.T) {
	t.Parallel()
	d, _ := newTimeDeployment(t, 1, "v1")
	out := d.mustRun("plan")
	for _, want := range []string{
		"  + stamp (time time_static)\n      + triggers = {\"release\":\"v1\"}\n      + day = (known after apply)\n",
		"      + rfc3339 = (known after apply)\n",
		"      + rotation_rfc3339 = (known after apply)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "= null") {
		t.Errorf("plan shows null planned values:\n%s", out)
	}
}

// TestPlanReportsSharedMistakeOnce: instances of one declaration share
// its mistake, and the plan says it once, counting the others.
func TestPlanReportsSharedMistakeOnce(t *testing.T) {
	t.Parallel()
	d := planCheckDeployment(t, `resource "typo" {
  count    = 5
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs   = { name = "typo${count.index}.txt", contnets = "hi" }
}
`)
	d.mustFailAtPlan(at(18, 49) + `resource typo\[\d\] \(provider local\): input contnets: .*; 4 more instances of this resource have it too`)
	// Once: one snippet (its source line names contnets too), one message.
	if _, errs, _ := d.run("plan"); strings.Count(errs, "input contnets") != 1 || strings.Count(errs, "Error: ") != 1 {
		t.Errorf("the mistake is reported more than once:\n%s", errs)
	}
}
