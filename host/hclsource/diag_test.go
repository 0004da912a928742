package hclsource

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/source"
)

// header declares what most diagnostic cases need, on lines 1-6.
const header = `provider "local" {
  builtin = "local"
}
resource "state" {
  provider = provider.local
  type = "state_file"
}
`

func TestLoadDiagnostics(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src  string
		opts Options
		want []string
	}{
		"unknown provider": {
			src: header + `resource "a" {
  provider = provider.locl
  type     = "exec"
}
`,
			want: []string{`main.pier.hcl:9:22: Unknown provider: no provider "locl" is declared. Did you mean "local"?`},
		},
		"unknown resource": {
			src: header + `resource "db" {
  provider = provider.local
  type     = "exec"
}
resource "a" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.dbb.outputs.y }
}
`,
			want: []string{`main.pier.hcl:15:28: Unknown resource: no resource "dbb" is declared here. Did you mean "db"?`},
		},
		"cycle": {
			src: header + `resource "a" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.b.outputs.y }
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.c.inputs.y }
}
resource "c" {
  provider   = provider.local
  type       = "exec"
  depends_on = [resource.a]
}
`,
			want: []string{"main.pier.hcl:11:20: Dependency cycle: a → b → c → a:" +
				"\n  a (main.pier.hcl:8:1) refers to b at main.pier.hcl:11:20" +
				"\n  b (main.pier.hcl:13:1) refers to c at main.pier.hcl:16:20" +
				"\n  c (main.pier.hcl:18:1) refers to a at main.pier.hcl:21:17"},
		},
		"self reference": {
			src: header + `resource "a" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.a.inputs.y }
}
`,
			want: []string{"main.pier.hcl:11:20: Dependency cycle: a → a:" +
				"\n  a (main.pier.hcl:8:1) refers to a at main.pier.hcl:11:20"},
		},
		"memo without state": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "memo"
}
`,
			want: []string{`main.pier.hcl:8:1: Missing state: resource "m" has type memo on the builtin local provider "local", which keeps its result in state: set state = resource.NAME of a state handler.`},
		},
		"exec once without state": {
			src: header + `resource "e" {
  provider = provider.local
  type     = "exec"
  inputs   = { command = ["true"], once = true }
}
`,
			want: []string{`main.pier.hcl:8:1: Missing state: resource "e" has type exec with once = true on the builtin local provider "local", which keeps its result in state: set state = resource.NAME of a state handler.`},
		},
		"unknown attribute": {
			src: header + `resource "a" {
  provider = provider.local
  type     = "exec"
  inpts    = {}
}
`,
			want: []string{`main.pier.hcl:11:3: Unsupported argument: An argument named "inpts" is not expected here. Did you mean "inputs"?`},
		},
		"unknown block": {
			src:  header + `resorce "a" {}` + "\n",
			want: []string{`main.pier.hcl:8:1: Unsupported block type: Blocks of type "resorce" are not expected here. Did you mean "resource"?`},
		},
		"provider inside a deployment": {
			src: header + `deployment "d" {
  provider "p" {
    builtin = "local"
  }
}
`,
			want: []string{`main.pier.hcl:9:3: Unsupported block type: Blocks of type "provider" are not expected here.`},
		},
		"missing variable": {
			src:  header + `variable "region" {}` + "\n",
			want: []string{`main.pier.hcl:8:1: Missing variable value: variable "region" has no default and no value: set it with --var region=VALUE, in a --var-file or pier.vars, or as PIER_VAR_region.`},
		},
		"variable type": {
			src:  header + `variable "n" { type = number }` + "\n",
			opts: Options{Vars: map[string]string{"n": "x"}},
			want: []string{`main.pier.hcl:8:1: Invalid value for variable: variable "n" needs a value of type number: a number is required (the value of --var n).`},
		},
		"variable default type": {
			src: header + `variable "n" {
  type    = list(number)
  default = ["a"]
}
`,
			want: []string{
				`main.pier.hcl:10:13: Invalid value for variable: variable "n" needs a value of type list(number): a number is required.`,
			},
		},
		"undeclared variable": {
			src: header + `resource "a" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = var.regio }
}
variable "region" { default = "eu" }
`,
			want: []string{`main.pier.hcl:11:23: Undeclared variable: no variable "regio" is declared. Did you mean "region"?`},
		},
		"two provider sources": {
			src:  `provider "p" {` + "\n" + `  builtin    = "local"` + "\n" + `  executable = "x"` + "\n}\n",
			want: []string{`main.pier.hcl:1:1: Invalid provider: provider "p" needs exactly one of executable, builtin, terraform or source; it has 2.`},
		},
		"no provider source": {
			src:  `provider "p" {}` + "\n",
			want: []string{`main.pier.hcl:1:1: Invalid provider: provider "p" needs exactly one of executable, builtin, terraform or source; it has 0.`},
		},
		"source without version": {
			src:  `provider "p" {` + "\n" + `  source = "hashicorp/time"` + "\n}\n",
			want: []string{`main.pier.hcl:2:3: Missing provider version: provider "p" names source "hashicorp/time" and needs a version too, e.g. version = "0.14.2" or "~> 0.14".`},
		},
		"version without source": {
			src:  `provider "p" {` + "\n" + `  executable = "x"` + "\n" + `  version    = "1.0.0"` + "\n}\n",
			want: []string{`main.pier.hcl:3:3: Invalid provider attribute: version applies only to a provider with source.`},
		},
		"invalid source": {
			src:  `provider "p" {` + "\n" + `  source  = "time"` + "\n" + `  version = "1.0.0"` + "\n}\n",
			want: []string{`main.pier.hcl:2:13: Invalid provider source: parse provider source "time": want NAMESPACE/TYPE or HOST/NAMESPACE/TYPE.`},
		},
		"unknown operation": {
			src:  `provider "p" {` + "\n" + `  executable = "x"` + "\n" + `  operations = ["destroy", "destory"]` + "\n}\n",
			want: []string{`main.pier.hcl:3:28: Unknown operation: provider "p": unknown optional operation "destory" (known: destroy, read, import, preview). Did you mean "destroy"?`},
		},
		"unknown builtin": {
			src:  `provider "p" {` + "\n" + `  builtin = "locl"` + "\n}\n",
			want: []string{`main.pier.hcl:2:13: Unknown builtin provider: pier has no builtin provider "locl"; it has: local, postgres. Did you mean "local"?`},
		},
		"args without executable": {
			src:  `provider "p" {` + "\n" + `  builtin = "local"` + "\n" + `  args = ["x"]` + "\n}\n",
			want: []string{`main.pier.hcl:3:3: Invalid provider attribute: args applies only to a provider with executable.`},
		},
		"sensitive variable in args": {
			src: `variable "token" {
  default   = "x"
  sensitive = true
}
provider "p" {
  executable = "/bin/p"
  args       = ["--token", var.token]
}
`,
			want: []string{`main.pier.hcl:7:16: Sensitive value on a command line: provider "p": args would put a sensitive value on a command line, which every user of the machine can read; pass it in env instead.`},
		},
		"duplicate resource": {
			src: header + `resource "state" {
  provider = provider.local
  type     = "exec"
}
`,
			want: []string{`main.pier.hcl:8:1: Duplicate member: resource "state" is already declared in this deployment at main.pier.hcl:4:1.`},
		},
		"count.index without count": {
			src: header + `resource "a" {
  provider = provider.local
  type     = "exec"
  inputs   = { i = count.index }
}
`,
			want: []string{`main.pier.hcl:11:20: Invalid reference: count.index is available only in the inputs of a resource with count.`},
		},
		"count and for_each": {
			src: header + `resource "a" {
  provider = provider.local
  type     = "exec"
  count    = 1
  for_each = {}
}
`,
			want: []string{`main.pier.hcl:12:3: Invalid combination: resource "a" has both count and for_each; use one.`},
		},
		"state of a counted resource without key": {
			src: header + `resource "s" {
  provider = provider.local
  type     = "state_file"
  count    = 2
}
resource "m" {
  provider = provider.local
  type     = "memo"
  state    = resource.s
}
`,
			want: []string{`main.pier.hcl:16:14: Invalid state reference: resource "s" has count or for_each: name one instance as the state handler, e.g. s[0].`},
		},
		"missing instance key": {
			src: header + `resource "s" {
  provider = provider.local
  type     = "exec"
  count    = 2
}
resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.s.outputs.x }
}
`,
			want: []string{`main.pier.hcl:16:30: Missing instance key: resource "s" has count: pick an instance, as in resource.s[0], or iterate over resource.s.`},
		},
		"key on a single resource": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.state[0].outputs.x }
}
`,
			want: []string{`main.pier.hcl:11:34: Unexpected instance key: resource "state" has neither count nor for_each, so it has no instances to index.`},
		},
		"unknown deployment": {
			src: header + `deployment "web" {}
resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = deployment.wbe.resource.a.outputs.x }
}
`,
			want: []string{`main.pier.hcl:12:30: Unknown deployment: no deployment "wbe" is visible here. Did you mean "web"?`},
		},
		"resource inside deployment is not visible at the top": {
			src: header + `deployment "web" {
  resource "app" {
    provider = provider.local
    type     = "exec"
  }
}
resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.app.outputs.x }
}
`,
			want: []string{`main.pier.hcl:17:28: Unknown resource: no resource "app" is declared here.`},
		},
		"unknown root variable": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resources.a }
}
`,
			want: []string{`main.pier.hcl:11:20: Unknown variable: there is no variable named "resources": references start with resource, deployment, module, var, local, path, count or each. Did you mean "resource"?`},
		},
		"resource attribute other than inputs and outputs": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.state.output.x }
}
`,
			want: []string{`main.pier.hcl:11:34: Unsupported attribute: a resource has inputs and outputs, not "output". Did you mean "outputs"?`},
		},
		"invalid name": {
			src:  `provider "1p" {` + "\n" + `  builtin = "local"` + "\n}\n",
			want: []string{`main.pier.hcl:1:10: Invalid name: "1p" is not a valid provider name: use letters, digits, underscores and dashes, starting with a letter.`},
		},
		"syntax error": {
			src:  `resource "a" {` + "\n" + `  type = ` + "\n}\n",
			want: []string{`main.pier.hcl:2:10: Invalid expression: Expected the start of an expression, but found an invalid expression token.`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": tc.src})
			opts := tc.opts
			opts.Builtins = builtin.Capabilities // as pier passes them
			_, err := Load(dir, opts)
			if err == nil {
				t.Fatal("Load succeeded, want diagnostics")
			}
			if diff := cmp.Diff(tc.want, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveDiagnostics(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src   string
		known source.Outputs
		want  []string
	}{
		"unknown output": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.state.outputs.nme }
}
`,
			known: source.Outputs{"state": {"name": "s", "path": "/p"}},
			want:  []string{`main.pier.hcl:11:42: Unknown output: resource state has no output "nme"; it has: name, path. Did you mean "name"?`},
		},
		"unknown output of an instance": {
			src: header + `resource "c" {
  provider = provider.local
  type     = "exec"
  count    = 1
}
resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.c[0].outputs.idd }
}
`,
			known: source.Outputs{"c[0]": {"id": "1"}},
			want:  []string{`main.pier.hcl:16:41: Unknown output: resource c[0] has no output "idd"; it has: id. Did you mean "id"?`},
		},
		"type error": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = 1 + "a" }
}
`,
			want: []string{`main.pier.hcl:11:24: Invalid operand: Unsuitable value for right operand: a number is required.`},
		},
		"type error with an output": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = 1 + resource.state.outputs.name }
}
`,
			known: source.Outputs{"state": {"name": "s"}},
			want:  []string{`main.pier.hcl:11:24: Invalid operand: Unsuitable value for right operand: a number is required.`},
		},
		"inputs not an object": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = ["a"]
}
`,
			want: []string{`main.pier.hcl:11:14: Invalid inputs: inputs of m must be an object, not tuple.`},
		},
		"negative count": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  count    = -1
}
`,
			want: []string{`main.pier.hcl:11:14: Invalid count: count of resource "m" must be a whole number from 0 to 100000.`},
		},
		"for_each over a list": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  for_each = ["a"]
}
`,
			want: []string{`main.pier.hcl:11:14: Invalid for_each: for_each of resource "m" must be a map, an object or a set of strings, not tuple; convert a list with toset().`},
		},
		"for_each over a string": {
			src: header + `resource "m" {
  provider = provider.local
  type     = "exec"
  for_each = "a"
}
`,
			want: []string{`main.pier.hcl:11:14: Invalid for_each: for_each of resource "m" must be a map, an object or a set of strings, not string; convert a list with toset().`},
		},
		"index out of range": {
			src: header + `resource "c" {
  provider = provider.local
  type     = "exec"
  count    = 1
}
resource "m" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.c[1].inputs }
}
`,
			want: []string{`main.pier.hcl:16:30: Invalid index: The given key does not identify an element in this collection value: the given index is greater than or equal to the length of the collection.`},
		},
		"sensitive output": {
			src: header + `variable "t" {
  default   = "x"
  sensitive = true
}
output "o" {
  value = "token ${var.t}"
}
`,
			want: []string{`main.pier.hcl:12:1: Output refers to sensitive values: To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, ` +
				`pier requires that any output containing sensitive data be explicitly marked as sensitive, to confirm your intent. ` +
				`If you do intend to export this data, annotate output "o" as sensitive by adding the argument sensitive = true.`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": tc.src})
			d := mustLoad(t, dir, Options{})
			_, err := d.Resolve(t.Context(), tc.known)
			if err == nil {
				t.Fatal("Resolve succeeded, want diagnostics")
			}
			if diff := cmp.Diff(tc.want, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			// A failed block is evaluated again, and fails again.
			if _, err := d.Resolve(t.Context(), tc.known); err == nil {
				t.Error("second Resolve succeeded, want the same diagnostics")
			}
		})
	}
}
