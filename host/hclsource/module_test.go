package hclsource

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

// writeTree writes files, whose names may hold directories, into a fresh
// directory and returns it.
func writeTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

const siteModule = `
variable "name" { type = string }
variable "state" {}
variable "suffix" {
  type    = string
  default = "!"
}
locals { title = "page-${var.name}${var.suffix}" }
resource "page" {
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { value = local.title }
}
output "url" { value = resource.page.outputs.value }
`

func TestModuleForEach(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"main.pier.hcl": `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
module "site" {
  source    = "./modules/site"
  for_each  = toset(["blog", "shop"])
  name      = each.key
  state     = resource.state
  providers = { local = provider.local }
}
output "blog" { value = module.site["blog"].url }
output "all"  { value = { for k, m in module.site : k => m.url } }
`,
		"modules/site/main.pier.hcl": siteModule,
	})
	d := mustLoad(t, dir, Options{})
	s := mustResolve(t, d, nil)
	want := map[string]resView{
		"state": {Status: "ready", Provider: "local", Type: "state_file", Inputs: map[string]any{"name": "s.json"}, Line: 3},
		`module.site["blog"].page`: {Status: "ready", Provider: "local", Type: "memo", State: "state",
			Inputs: map[string]any{"value": "page-blog!"}, DependsOn: []string{"state"}, Line: 9},
		`module.site["shop"].page`: {Status: "ready", Provider: "local", Type: "memo", State: "state",
			Inputs: map[string]any{"value": "page-shop!"}, DependsOn: []string{"state"}, Line: 9},
	}
	if diff := cmp.Diff(want, view(t, s)); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"blog", "all"}, s.PendingOutputs); diff != "" {
		t.Errorf("pending outputs (-want +got):\n%s", diff)
	}
	blog := source.Address{{Name: "site", Key: "blog", Module: true}, {Name: "page"}}
	if diff := cmp.Diff([]string{"deployments", `module.site["blog"]`, "resources", "page"}, blog.StateKey()); diff != "" {
		t.Errorf("state key (-want +got):\n%s", diff)
	}

	s = mustResolve(t, d, source.Outputs{
		`module.site["blog"].page`: {"value": "page-blog!"},
		`module.site["shop"].page`: {"value": "page-shop!"},
	})
	if diff := cmp.Diff(map[string]any{"blog": "page-blog!", "all": map[string]any{"blog": "page-blog!", "shop": "page-shop!"}}, outputsView(s)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

// TestModuleArgumentReadsOutputs: an argument that reads a resource's
// outputs is known only while resolving, and the module's resources
// depend on that resource.
func TestModuleArgumentReadsOutputs(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"main.pier.hcl": `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
resource "src" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { value = "x" }
}
module "one" {
  source    = "./m"
  name      = resource.src.outputs.value
  state     = resource.state
  providers = { local = provider.local }
}
module "many" {
  source    = "./m"
  count     = 2
  name      = "n${count.index}"
  state     = resource.state
  providers = { local = provider.local }
  depends_on = [module.one]
}
`,
		"m/main.pier.hcl": siteModule,
	})
	d := mustLoad(t, dir, Options{})
	s := mustResolve(t, d, nil)
	got := view(t, s)
	one := got["module.one.page"]
	if one.Status != "blocked" || !cmp.Equal(one.WaitsOn, []string{"src"}) || !cmp.Equal(one.DependsOn, []string{"src", "state"}) {
		t.Errorf("module.one.page = %+v, want blocked on src, depending on src and state", one)
	}
	many := got["module.many[1].page"]
	if many.Status != "ready" || many.Inputs["value"] != "page-n1!" || !cmp.Equal(many.DependsOn, []string{"module.one.page", "state"}) {
		t.Errorf("module.many[1].page = %+v, want ready with page-n1!, after module.one.page", many)
	}
	s = mustResolve(t, d, source.Outputs{"src": {"value": "from-src"}})
	if got := view(t, s)["module.one.page"]; got.Status != "ready" || got.Inputs["value"] != "page-from-src!" {
		t.Errorf("after src: module.one.page = %+v", got)
	}
}

func TestModuleNested(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"main.pier.hcl": `
provider "local" { builtin = "local" }
module "outer" {
  source    = "./outer"
  count     = 1
  providers = { local = provider.local }
}
output "v" { value = module.outer[0].v }
`,
		"outer/main.pier.hcl": `
module "inner" {
  source    = "../inner"
  word      = "hi"
  providers = { local = provider.local }
}
output "v" { value = module.inner.v }
`,
		"inner/main.pier.hcl": `
variable "word" {}
resource "e" {
  provider = provider.local
  type     = "exec"
  inputs   = { command = ["echo", var.word] }
}
output "v" { value = resource.e.outputs.stdout }
`,
	})
	d := mustLoad(t, dir, Options{})
	s := mustResolve(t, d, nil)
	addr := "module.outer[0].module.inner.e"
	if got := view(t, s)[addr]; got.Status != "ready" {
		t.Fatalf("%s = %+v; snapshot %v", addr, got, view(t, s))
	}
	s = mustResolve(t, d, source.Outputs{addr: {"stdout": "hi\n"}})
	if diff := cmp.Diff(map[string]any{"v": "hi\n"}, outputsView(s)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if g := d.Graph(); len(g.Deployments) != 2 || g.Deployments[1].String() != "module.outer[0].module.inner" {
		t.Errorf("graph deployments = %v", g.Deployments)
	}
}

func TestModuleErrors(t *testing.T) {
	t.Parallel()
	module := `
variable "name" { type = number }
resource "r" {
  provider = provider.local
  type     = "exec"
  inputs   = { command = ["echo", var.name] }
}
output "o" { value = resource.r.outputs.stdout }
`
	cases := map[string]struct {
		main string
		want string
	}{
		"unknown argument": {`module "m" {
  source    = "./m"
  name      = 1
  nmae      = 2
  providers = { local = provider.local }
}`, `main.pier.hcl:5:3: Unsupported argument: module "m" has no variable "nmae". Did you mean "name"?`},
		"missing argument": {`module "m" {
  source    = "./m"
  providers = { local = provider.local }
}`, `main.pier.hcl:2:1: Missing required argument: module "m" needs argument "name": its variable at m/main.pier.hcl:2:1 has no default.`},
		"wrong type": {`module "m" {
  source    = "./m"
  name      = "seven"
  providers = { local = provider.local }
}`, `main.pier.hcl:4:15: Invalid value for variable: variable "name" needs a value of type number: a number is required.`},
		"provider not passed": {`module "m" {
  source = "./m"
  name   = 1
}`, `m/main.pier.hcl:4:22: Unknown provider: no provider "local" is declared. A module sees only the providers it declares and those its block passes, as in providers = { local = provider.local } at main.pier.hcl:2:1.`},
		"unknown output": {`module "m" {
  source    = "./m"
  name      = 1
  providers = { local = provider.local }
}
output "x" { value = module.m.p }`, `main.pier.hcl:7:30: Unknown output: module "m" has no output "p". Did you mean "o"?`},
		"for_each reads a resource": {`resource "r" {
  provider = provider.local
  type     = "exec"
  inputs   = { command = ["true"] }
}
module "m" {
  source    = "./m"
  for_each  = resource.r.outputs
  name      = 1
  providers = { local = provider.local }
}`, `main.pier.hcl:9:15: Invalid for_each: for_each of module "m" must be known when the deployment loads: it may read variables, locals that read no resource, and literals, not resources or modules.`},
		"missing instance": {`module "m" {
  source    = "./m"
  for_each  = { a = 1 }
  name      = each.value
  providers = { local = provider.local }
}
output "x" { value = module.m["b"].o }`, `main.pier.hcl:8:30: Unknown module instance: module "m" has no instance module.m["b"]; it has 1.`},
		"module resources are private": {`module "m" {
  source    = "./m"
  name      = 1
  providers = { local = provider.local }
}
output "x" { value = resource.r.outputs }`, `main.pier.hcl:7:30: Unknown resource: no resource "r" is declared here.`},
		"missing source dir": {`module "m" {
  source = "./nowhere"
}`, `main.pier.hcl:3:12: Unreadable module: module directory `},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{
				"main.pier.hcl":   "provider \"local\" { builtin = \"local\" }\n" + tc.main + "\n",
				"m/main.pier.hcl": module,
			})
			_, err := Load(dir, Options{})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			lines := diagLines(t, err, dir)
			for _, l := range lines {
				if strings.HasPrefix(l, tc.want) {
					return
				}
			}
			t.Errorf("errors:\n%s\nwant one starting %q", strings.Join(lines, "\n"), tc.want)
		})
	}
}

// TestModuleImportAndRemoved: import blocks reach into module instances,
// and removed blocks name resources of instances that are gone, both in
// the caller and in a module's own files.
func TestModuleImportAndRemoved(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"main.pier.hcl": `
provider "local" { builtin = "local" }
module "site" {
  source    = "./m"
  for_each  = toset(["blog"])
  providers = { local = provider.local }
}
import {
  to = module.site["blog"].resource.r
  id = "r-1"
}
removed {
  from    = module.site["gone"].resource.r
  destroy = false
}
`,
		"m/main.pier.hcl": `
resource "r" {
  provider = provider.local
  type     = "exec"
  inputs   = { command = ["true"] }
}
import {
  to = resource.r
  id = "r-2"
}
removed {
  from     = resource.old
  provider = provider.local
}
`,
	})
	_, err := Load(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), `module.site["blog"].r is already imported`) {
		t.Fatalf("Load = %v, want the two imports of one address refused", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m", "main.pier.hcl"), []byte(`
resource "r" {
  provider = provider.local
  type     = "exec"
  inputs   = { command = ["true"] }
}
removed {
  from     = resource.old
  provider = provider.local
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustResolve(t, mustLoad(t, dir, Options{}), nil)
	var imports, removed []string
	for _, im := range s.Imports {
		imports = append(imports, im.To.String()+"="+im.ID)
	}
	for _, rm := range s.Removed {
		removed = append(removed, rm.From.String())
	}
	if d := cmp.Diff([]string{`module.site["blog"].r=r-1`}, imports); d != "" {
		t.Errorf("imports (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`module.site["gone"].r`, `module.site["blog"].old`}, removed); d != "" {
		t.Errorf("removed (-want +got):\n%s", d)
	}
}

// TestModuleVariableValidation: a module's validation blocks check the
// values its block passes, at load for an argument known then and once
// its value is known for one that reads outputs; a failure is reported at
// the caller's argument and names the instance's variable.
func TestModuleVariableValidation(t *testing.T) {
	t.Parallel()
	const module = `
variable "name" {
  type = string
  validation {
    condition     = length(regexall("^[a-z]+$", var.name)) > 0
    error_message = "name must be lower-case letters, not ${var.name}."
  }
}
variable "state" {}
resource "page" {
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { value = var.name }
}
`
	const head = `provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
resource "src" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { value = "x" }
}
`
	const fail = "Invalid value for variable: name must be lower-case letters, not "
	const rule = "This was checked by the validation block of "
	t.Run("an argument known at load", func(t *testing.T) {
		t.Parallel()
		dir := writeTree(t, map[string]string{
			"main.pier.hcl": head + `module "site" {
  source    = "./m"
  for_each  = toset(["blog", "Bad Shop"])
  name      = each.key
  state     = resource.state
  providers = { local = provider.local }
}
`,
			"m/main.pier.hcl": module,
		})
		_, err := Load(dir, Options{})
		if err == nil {
			t.Fatal("Load succeeded, want a validation error")
		}
		want := []string{"main.pier.hcl:16:15: " + fail + "Bad Shop.\n\n" + rule + `module.site["Bad Shop"].var.name at m/main.pier.hcl:4:3.`}
		if diff := cmp.Diff(want, diagLines(t, err, dir)); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
		var de *DiagnosticsError
		errors.As(err, &de)
		if got := FailedCheckables(de.Diagnostics); !cmp.Equal(got, []string{`module.site["Bad Shop"].var.name`}) {
			t.Errorf("FailedCheckables = %q", got)
		}
	})
	t.Run("a default, and a sensitive argument", func(t *testing.T) {
		t.Parallel()
		dir := writeTree(t, map[string]string{
			"main.pier.hcl": head + `variable "secret" {
  default   = "Hunter2"
  sensitive = true
}
module "site" {
  source    = "./m"
  name      = var.secret
  state     = resource.state
  providers = { local = provider.local }
}
module "other" {
  source    = "./m"
  state     = resource.state
  providers = { local = provider.local }
}
`,
			"m/main.pier.hcl": strings.Replace(module, "  type = string\n", "  type = string\n  default = \"Default\"\n", 1),
		})
		_, err := Load(dir, Options{})
		if err == nil {
			t.Fatal("Load succeeded, want validation errors")
		}
		want := []string{
			// The secret stays out of the message.
			"main.pier.hcl:19:15: Invalid value for variable: " + sensitiveMessage + "\n\n" + rule + "module.site.var.name at m/main.pier.hcl:5:3.",
			// No argument: the rule's own condition is the place.
			"m/main.pier.hcl:6:21: " + fail + "Default.\n\n" + rule + "module.other.var.name at m/main.pier.hcl:5:3.",
		}
		if diff := cmp.Diff(want, diagLines(t, err, dir)); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
	})
	t.Run("an argument that reads outputs", func(t *testing.T) {
		t.Parallel()
		dir := writeTree(t, map[string]string{
			"main.pier.hcl": head + `module "site" {
  source    = "./m"
  name      = resource.src.outputs.value
  state     = resource.state
  providers = { local = provider.local }
}
`,
			"m/main.pier.hcl": module,
		})
		d := mustLoad(t, dir, Options{})
		if got := view(t, mustResolve(t, d, nil))["module.site.page"]; got.Status != "blocked" {
			t.Errorf("before src: module.site.page = %+v, want blocked", got)
		}
		_, err := d.Resolve(t.Context(), source.Outputs{"src": {"value": "Bad Name"}})
		if err == nil {
			t.Fatal("Resolve succeeded with a refused value")
		}
		want := []string{"main.pier.hcl:15:15: " + fail + "Bad Name.\n\n" + rule + "module.site.var.name at m/main.pier.hcl:4:3."}
		if diff := cmp.Diff(want, diagLines(t, err, dir)); diff != "" {
			t.Errorf("diagnostics (-want +got):\n%s", diff)
		}
		s := mustResolve(t, d, source.Outputs{"src": {"value": "good"}})
		if got := view(t, s)["module.site.page"]; got.Status != "ready" || got.Inputs["value"] != "good" {
			t.Errorf("after a good value: module.site.page = %+v", got)
		}
	})
}

// TestModuleUnknownExpansion: under UnsetUnknown (pier validate), a
// module whose count or for_each reads a variable without a value is
// checked once, through one instance with unknown keys: references to
// its instances are unknown, and errors in its body are still found.
func TestModuleUnknownExpansion(t *testing.T) {
	t.Parallel()
	const main = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
variable "sites" { type = set(string) }
variable "n" { type = number }
module "site" {
  source    = "./m"
  for_each  = var.sites
  name      = each.key
  state     = resource.state
  providers = { local = provider.local }
}
module "counted" {
  source    = "./m"
  count     = var.n
  name      = "c${count.index}"
  state     = resource.state
  providers = { local = provider.local }
}
output "blog"  { value = module.site["blog"].url }
output "all"   { value = [for m in module.site : m.url] }
output "first" { value = module.counted[0].url }
`
	dir := writeTree(t, map[string]string{"main.pier.hcl": main, "m/main.pier.hcl": siteModule})
	d := mustLoad(t, dir, Options{UnsetUnknown: true})
	s := mustResolve(t, d, nil)
	got := view(t, s)
	for _, addr := range []string{"module.site.page", "module.counted.page"} {
		r, ok := got[addr]
		if !ok {
			t.Fatalf("no %s in %v", addr, slices.Sorted(maps.Keys(got)))
		}
		if r.Inputs["value"] != unknownText {
			t.Errorf("%s inputs = %v, want an unknown value", addr, r.Inputs)
		}
	}
	if len(got) != 3 {
		t.Errorf("resources %v, want state and one stand-in per module", slices.Sorted(maps.Keys(got)))
	}
	for name, v := range outputsView(s) {
		if v != unknownText {
			t.Errorf("output %s = %v, want unknown", name, v)
		}
	}

	t.Run("errors in the body are found", func(t *testing.T) {
		t.Parallel()
		dir := writeTree(t, map[string]string{
			"main.pier.hcl":   strings.Replace(main, "module.site[\"blog\"].url", "module.site[\"blog\"].nope", 1),
			"m/main.pier.hcl": strings.Replace(siteModule, "state    = var.state", "state    = var.stat", 1),
		})
		_, err := Load(dir, Options{UnsetUnknown: true})
		if err == nil {
			t.Fatal("Load succeeded, want errors")
		}
		lines := strings.Join(diagLines(t, err, dir), "\n")
		for _, want := range []string{
			`main.pier.hcl:24:45: Unknown output: module "site" has no output "nope".`,
			`m/main.pier.hcl:12:17: Invalid state reference`,
		} {
			if !strings.Contains(lines, want) {
				t.Errorf("errors:\n%s\nwant %q", lines, want)
			}
		}
	})
	t.Run("plan still needs the values", func(t *testing.T) {
		t.Parallel()
		if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "Missing variable value") {
			t.Errorf("Load without UnsetUnknown: %v, want Missing variable value", err)
		}
	})
}

// TestModuleOutputs: the inspector's module outputs are evaluated against
// the recorded outputs; what reads nothing recorded is unknown.
func TestModuleOutputs(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"main.pier.hcl": `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
module "site" {
  source    = "./m"
  for_each  = toset(["blog", "shop"])
  name      = each.key
  state     = resource.state
  providers = { local = provider.local }
}
`,
		"m/main.pier.hcl": siteModule,
	})
	d := mustLoad(t, dir, Options{})
	got, err := d.ModuleOutputs(t.Context(), source.Outputs{`module.site["blog"].page`: {"value": "page-blog!"}})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, o := range got {
		if o.Value.ContainsMarked() {
			t.Errorf("%s.%s carries marks, none of them sensitive: %#v", o.Module, o.Name, o.Value)
		}
		v := "(unknown)"
		if o.Value.IsKnown() {
			v = o.Value.AsString()
		}
		lines = append(lines, o.Module.String()+"."+o.Name+" = "+v)
	}
	want := []string{`module.site["blog"].url = page-blog!`, `module.site["shop"].url = (unknown)`}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("module outputs (-want +got):\n%s", diff)
	}
	flat := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": `provider "local" { builtin = "local" }`}), Options{})
	if got, err := flat.ModuleOutputs(t.Context(), nil); err != nil || got != nil {
		t.Errorf("without modules: %v, %v", got, err)
	}
}
