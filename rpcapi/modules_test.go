package rpcapi_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
)

// modulesHCL makes a module once per site.
var modulesHCL = map[string]string{
	"main.pier.hcl": `provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
module "site" {
  source    = "./modules/site"
  for_each  = toset(["blog", "shop"])
  name      = each.key
  state     = resource.state
  providers = { local = provider.local }
}
`,
	"modules/site/main.pier.hcl": `variable "name" { type = string }
variable "state" {}
resource "title" {
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { initialize_with = var.name }
}
resource "page" {
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { initialize_with = "page-${resource.title.outputs.value}" }
}
output "url" { value = resource.page.outputs.value }
`,
}

// TestModuleAddressesOverRPC plans and applies a for_each module from a
// Python gRPC client: the module addresses are what PlannedChange,
// AppliedChange and ResourceStatus say, spelt as pier plan spells them,
// and targets and replace take them; the inspector reads the instances'
// outputs and recorded resources by them.
func TestModuleAddressesOverRPC(t *testing.T) {
	t.Parallel()
	python := grpcPython(t)
	pier := testbin.Pier(t)
	dir := t.TempDir()
	for name, body := range modulesHCL {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("testdata/modules.py")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("pier1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, pier, proto, t.TempDir(), dir)
	cmd.Dir = t.TempDir()
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("modules.py: %v\n%s", err, out)
	}
	type applyStep struct {
		Planned     []string
		Diagnostics []map[string]string
		Applied     []string
		Statuses    []string
	}
	var got struct {
		Components      []string
		TargetBlog      applyStep `json:"target_blog"`
		Everything      applyStep
		ReplaceShopPage applyStep `json:"replace_shop_page"`
		TargetMissing   struct {
			Planned     []string
			Handle      int64
			Diagnostics []map[string]string
		} `json:"target_missing"`
		Inspected map[string]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("modules.py printed %q: %v", out, err)
	}
	checks := map[string]struct{ want, got any }{
		"components":           {[]string{`module.site["blog"].page`, `module.site["blog"].title`, `module.site["shop"].page`, `module.site["shop"].title`, "state"}, got.Components},
		"target_blog planned":  {[]string{`CREATE module.site["blog"].page (memo)`, `CREATE module.site["blog"].title (memo)`}, got.TargetBlog.Planned},
		"target_blog applied":  {[]string{`CREATE module.site["blog"].page`, `CREATE module.site["blog"].title`}, got.TargetBlog.Applied},
		"target_blog statuses": {[]string{`APPLIED module.site["blog"].page`, `APPLIED module.site["blog"].title`}, got.TargetBlog.Statuses},
		"everything planned": {[]string{`CREATE module.site["shop"].page (memo)`, `CREATE module.site["shop"].title (memo)`,
			`NO_OP module.site["blog"].page (memo)`, `NO_OP module.site["blog"].title (memo)`}, got.Everything.Planned},
		"everything applied": {[]string{`CREATE module.site["shop"].page`, `CREATE module.site["shop"].title`}, got.Everything.Applied},
		"replace planned": {[]string{`NO_OP module.site["blog"].page (memo)`, `NO_OP module.site["blog"].title (memo)`,
			`NO_OP module.site["shop"].title (memo)`, `REPLACE module.site["shop"].page (memo)`}, got.ReplaceShopPage.Planned},
		// A replacement is recorded as its destroy and its create, as
		// for a resource outside a module.
		"replace applied":        {[]string{`CREATE module.site["shop"].page`, `DESTROY module.site["shop"].page`}, got.ReplaceShopPage.Applied},
		"replace statuses":       {[]string{`APPLIED module.site["shop"].page`}, got.ReplaceShopPage.Statuses},
		"missing target planned": {[]string{}, got.TargetMissing.Planned},
		"missing target handle":  {int64(0), got.TargetMissing.Handle},
		"inspected": {map[string]any{
			`module.site["blog"].resource.page.outputs.value`: "page-blog",
			`module.site["shop"].resource.page.outputs.value`: "page-shop",
			`module.site["blog"].url`:                         "page-blog",
		}, got.Inspected},
	}
	for name, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for _, s := range []applyStep{got.TargetBlog, got.Everything, got.ReplaceShopPage} {
		if len(s.Diagnostics) > 0 {
			t.Errorf("diagnostics: %v", s.Diagnostics)
		}
	}
	if len(got.TargetMissing.Diagnostics) == 0 || !strings.Contains(got.TargetMissing.Diagnostics[0]["summary"]+got.TargetMissing.Diagnostics[0]["detail"], `module.site["news"]`) {
		t.Errorf("a missing instance as target: diagnostics %v, want one naming module.site[\"news\"]", got.TargetMissing.Diagnostics)
	}
}
