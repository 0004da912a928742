package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// previewDeployment has the same provider twice: "imm" declares preview,
// "plain" does not, so the plan may ask only the first. a and b change
// their name (which the provider cannot do in place), c only its size.
func previewDeployment(t *testing.T, aName, bName, cSize string) string {
	t.Helper()
	prov, err := filepath.Abs("testdata/providers/preview.py")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(`
provider "local" { builtin = "local" }
provider "imm" {
  executable = "PREVIEW_PROVIDER"
  operations = ["destroy", "preview"]
}
provider "plain" {
  executable = "PREVIEW_PROVIDER"
  operations = ["destroy"]
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  provider = provider.imm
  type     = "named"
  state    = resource.state
  inputs   = { name = "`+aName+`", size = 1 }
}
resource "b" {
  provider = provider.plain
  type     = "named"
  state    = resource.state
  inputs   = { name = "`+bName+`", size = 1 }
}
resource "c" {
  provider = provider.imm
  type     = "named"
  state    = resource.state
  inputs   = { name = "c", size = `+cSize+` }
}
`, "PREVIEW_PROVIDER", prov)
}

// ops lists the journal's operations as "op address-name", in order.
func (d *deployment) ops() []string {
	var out []string
	for _, e := range d.journal() {
		out = append(out, e.Op+" "+e.Inputs["name"].(string))
	}
	return out
}

// TestPreviewShowsReplacement: the plan asks a provider that declares
// preview about its updates, shows the replacement it reports, and apply
// lets the provider's update replace, without a destroy of its own.
func TestPreviewShowsReplacement(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": previewDeployment(t, "a1", "b1", "1")})
	d.mustRun("apply")
	afterApply := len(d.ops())

	// Unchanged: nothing to preview, no provider started.
	out := d.mustRun("plan")
	if !strings.Contains(out, "No changes.") {
		t.Errorf("unchanged plan:\n%s", out)
	}
	created := d.ops()
	slices.Sort(created)
	// The creates on imm were previewed at plan; b's provider cannot be.
	if diff := cmp.Diff([]string{"create a1", "create b1", "create c", "preview-create a1", "preview-create c"}, created); diff != "" {
		t.Errorf("journal after the unchanged plan (-want +got):\n%s", diff)
	}

	d.write(map[string]string{"main.pier.hcl": previewDeployment(t, "a2", "b2", "2")})
	out = d.mustRun("plan")
	for _, want := range []string{
		"# a will be replaced (name forces a new object)\n  -/+ a (imm named)\n",
		`~ name = "a1" -> "a2"`,
		// plain did not declare preview: pier cannot know, and says update.
		"# b will be updated in place\n",
		"# c will be updated in place\n",
		"Plan: 0 to create, 2 to update, 0 to destroy, 1 to replace, 0 unchanged.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	previews := d.ops()[afterApply:]
	slices.Sort(previews)
	if diff := cmp.Diff([]string{"preview a2", "preview c"}, previews); diff != "" {
		t.Errorf("previews sent (-want +got):\n%s", diff)
	}

	// A saved plan holds the replace; pier carries it out as a destroy
	// and a create of its own, each recorded, never inside an update.
	d.mustRun("plan", "-out", "replace.plan")
	before := len(d.ops())
	out = d.mustRun("apply", "replace.plan")
	if !strings.Contains(out, "Apply complete! Resources: 1 created, 2 updated, 1 destroyed.") {
		t.Errorf("apply:\n%s", out)
	}
	var applied []string
	for _, op := range d.ops()[before:] {
		if !strings.HasPrefix(op, "preview ") {
			applied = append(applied, op)
		}
	}
	slices.Sort(applied)
	// plain did not declare preview, so its own update replaces b.
	if diff := cmp.Diff([]string{"create a2", "destroy a1", "update c", "update-replace b2"}, applied); diff != "" {
		t.Errorf("operations carried out (-want +got):\n%s", diff)
	}
	if log := d.mustRun("statefile", "log", "state.json"); !strings.Contains(log, "destroy") {
		t.Errorf("the state log does not record the replace's destroy:\n%s", log)
	}
	if entry := d.state("state.json")["resources"].(map[string]any)["a"].(map[string]any); entry["output_properties"].(map[string]any)["name"] != "a2" {
		t.Errorf("recorded a = %v", entry)
	}
	if out := d.mustRun("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("plan after the replace:\n%s", out)
	}
}

// TestPreviewErrorNamesResource: a failed preview fails the plan with the
// resource, the provider and the provider's reason, and changes nothing.
func TestPreviewErrorNamesResource(t *testing.T) {
	t.Parallel()
	d := newDeployment(t, map[string]string{"main.pier.hcl": previewDeployment(t, "a1", "b1", "1")})
	d.mustRun("apply")
	d.write(map[string]string{"main.pier.hcl": previewDeployment(t, "fail-preview", "b1", "1")})
	for _, cmd := range []string{"plan", "apply"} {
		out, errs, code := d.run(cmd)
		if code != exitError {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", cmd, code, exitError, out, errs)
		}
		if !strings.Contains(errs, "preview the update of a (provider imm)") || !strings.Contains(errs, "cannot preview a change to name fail-preview") {
			t.Errorf("%s: stderr does not name the resource, provider and cause:\n%s", cmd, errs)
		}
	}
	for _, op := range d.ops() {
		if strings.HasPrefix(op, "update") || strings.HasPrefix(op, "destroy") {
			t.Errorf("a failed preview still changed something: %v", d.ops())
		}
	}
}
